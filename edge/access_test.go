package edge

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bibleplatform/platform/access"
)

const keyNew = "test-new-key"

func snapshotWithNewKey(version int64) *access.Snapshot {
	s := testSnapshot()
	s.Version = version
	s.Apps[0].KeyHashes = append(s.Apps[0].KeyHashes, access.HashKeyHex(keyNew))
	return s
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(path, b); err != nil {
		t.Fatal(err)
	}
}

// waitStatus polls until a request answers want, or fails after limit.
func waitStatus(t *testing.T, e *testEdge, key string, want int, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		resp, _ := e.do(t, "GET", "/v1/bibles/9001", "X-SVC-App-Key: "+key)
		if resp.StatusCode == want {
			return time.Since(start)
		}
		if time.Since(start) > limit {
			t.Fatalf("key %s: still %d after %v, want %d", key, resp.StatusCode, limit, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAccessFileRefreshAndLastGood(t *testing.T) {
	dir := t.TempDir()
	src, cache := filepath.Join(dir, "access.json"), filepath.Join(dir, "cache", "access.json")
	writeJSONFile(t, src, testSnapshot())
	e := newTestEdge(t, nil)
	fs, err := NewAccessSource(src, "")
	if err != nil {
		t.Fatal(err)
	}
	w := &AccessWatcher{Source: fs, CachePath: cache, Interval: 50 * time.Millisecond, Server: e.srv, Log: e.srv.log}
	if err := w.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)

	waitStatus(t, e, keyNew, 401, time.Second)
	writeJSONFile(t, src, snapshotWithNewKey(2))
	if d := waitStatus(t, e, keyNew, 200, 5*time.Second); d > 5*time.Second {
		t.Errorf("new key took %v", d)
	}
	// A broken source keeps the last good snapshot in service.
	if err := os.WriteFile(src, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	waitStatus(t, e, keyNew, 200, time.Second)
	cancel()

	// A restart with the source gone starts from the local copy.
	os.Remove(src)
	e2 := newTestEdge(t, nil)
	e2.srv.authz.Clear()
	w2 := &AccessWatcher{Source: fs, CachePath: cache, Interval: time.Second, Server: e2.srv, Log: e2.srv.log}
	if err := w2.Init(context.Background()); err != nil {
		t.Fatalf("start from the local copy: %v", err)
	}
	waitStatus(t, e2, keyNew, 200, time.Second)
}

func TestAccessHTTPSource(t *testing.T) {
	var version atomic.Int64
	version.Store(1)
	var badToken atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Edge-Token") != "tok" {
			badToken.Add(1)
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		have, _ := strconv.ParseInt(r.URL.Query().Get("version"), 10, 64)
		v := version.Load()
		if have >= v {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		snap := testSnapshot()
		if v >= 2 {
			snap = snapshotWithNewKey(v)
		}
		snap.Version = v
		json.NewEncoder(w).Encode(snap)
	}))
	defer ts.Close()
	e := newTestEdge(t, nil)
	src, err := NewAccessSource(ts.URL+"/internal/access", "tok")
	if err != nil {
		t.Fatal(err)
	}
	w := &AccessWatcher{Source: src, Interval: 50 * time.Millisecond, Server: e.srv, Log: e.srv.log}
	if err := w.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	waitStatus(t, e, keyNew, 401, time.Second)
	version.Store(2)
	waitStatus(t, e, keyNew, 200, 5*time.Second)
	if badToken.Load() != 0 {
		t.Error("the edge token was not sent")
	}
}
