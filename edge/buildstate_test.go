package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/publish"
)

// A saved build that is not whole is logged and ignored: the edge starts
// with no build rather than one naming packs of no build at all.
func TestSavedBuildDamagedIsIgnored(t *testing.T) {
	// good saves a build in dir and returns the file's path and bytes.
	good := func(t *testing.T, dir string) (string, []byte) {
		store, err := publish.OpenDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		p, err := packs.New(packs.Config{Store: store, MaxBytes: 1 << 20, DiskDir: dir, DiskBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SaveBuild("b1", &publish.Manifest{Created: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(files) != 1 {
			t.Fatalf("saved build files: %q, want one", files)
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return files[0], b
	}
	tests := []struct {
		name    string
		damage  func(b []byte) []byte // nil: no file at all
		wantLog string                // "" for no log line
	}{
		{"no file (first start)", nil, ""},
		{"empty", func([]byte) []byte { return nil }, "unexpected end of JSON"},
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }, "unexpected end of JSON"},
		{"manifest changed", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"manifest":{`), []byte(`"manifest":{ `), 1)
		}, "checksum mismatch"},
		{"bad build id", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"build":"b1"`), []byte(`"build":"../b1"`), 1)
		}, "bad build id"},
		{"not json", func([]byte) []byte { return []byte("\x00\x01garbage") }, "invalid character"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.damage != nil {
				path, b := good(t, dir)
				if err := os.WriteFile(path, tc.damage(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var logs bytes.Buffer
			store, _ := sharedStore(t)
			srv, err := New(Config{Store: store, DiskCacheDir: dir, DiskCacheBytes: 1 << 20,
				Log: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			if id, ok := srv.restoreBuild(); ok {
				t.Fatalf("restored build %s from a damaged file", id)
			}
			if srv.Build() != "" {
				t.Errorf("serving build %s", srv.Build())
			}
			got := logs.String()
			switch {
			case tc.wantLog == "" && got != "":
				t.Errorf("logged %q; want nothing", got)
			case tc.wantLog != "" && (!strings.Contains(got, "ignoring the saved build") || !strings.Contains(got, tc.wantLog)):
				t.Errorf("logged %q; want a line about ignoring the saved build with %q", got, tc.wantLog)
			}
		})
	}
}

// TestRestartDuringStoreOutage: an edge that served a passage is
// replaced by a new process while the store is unreachable. The new one
// serves the passage from its disk cache, answers 503 for what was never
// fetched and reports the outage; once the store is back, it loads the
// rest without a restart.
func TestRestartDuringStoreOutage(t *testing.T) {
	shared, build := sharedStore(t)
	store, start := restartableEdges(t, shared, build)
	root := store.Root()
	const cached, uncached = "/v1/bibles/9001/passages/JHN.3.16", "/v1/bibles/9001/passages/JHN.4.1"
	first, err := start()
	if err != nil {
		t.Fatal(err)
	}
	// A chapter's pack is fetched whole, and kept on disk, when a second
	// entry of it is asked for (the first is read by range).
	resp, want := first.do(t, "GET", cached, demo)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s = %d %s", cached, resp.StatusCode, want)
	}
	if resp, body := first.do(t, "GET", "/v1/bibles/9001/passages/JHN.3.17", demo); resp.StatusCode != 200 {
		t.Fatalf("GET JHN.3.17 = %d %s", resp.StatusCode, body)
	}
	// Verse search reads its index through the same tiers: the first edge
	// put every Bible's index on its disk when it followed the build, and
	// decodes one when a search asks. 9002 is never searched before the
	// outage.
	const search, searchUnasked = "/v1/search-verses?bible_id=9001&query=loved", "/v1/search-verses?bible_id=9002&query=Dios"
	if resp, body := first.do(t, "GET", search, demo); resp.StatusCode != 200 {
		t.Fatalf("GET %s = %d %s", search, resp.StatusCode, body)
	}
	for last, still, deadline := int64(-1), 0, time.Now().Add(10*time.Second); still < 4; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the disk cache kept growing for 10 s")
		}
		if n := metricValue(t, first, "edge_disk_cache_files"); n == last {
			still++
		} else {
			last, still = n, 0
		}
	}

	// The volume holding the store is gone: reads fail with ENOTDIR, an
	// outage, not a missing object.
	if err := os.Rename(root, root+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := start()
	if err == nil {
		t.Fatal("the build check succeeded with the store gone")
	}
	if got := second.srv.Build(); got != build {
		t.Fatalf("restarted during the outage serving build %q, want the saved %s", got, build)
	}
	for _, c := range []struct {
		path     string
		want     int
		wantBody string // a substring
	}{
		{cached, 200, string(want)},
		{search, 200, `"JHN.3.16"`},
		{searchUnasked, 200, `"JHN.`},
		{uncached, 503, `"message"`},
		{"/readyz", 503, "object store unreachable"},
		{"/healthz", 200, "ok"},
	} {
		resp, body := second.do(t, "GET", c.path, demo)
		if resp.StatusCode != c.want || !strings.Contains(string(body), c.wantBody) {
			t.Errorf("during the outage GET %s = %d %.200s; want %d with %q", c.path, resp.StatusCode, body, c.want, c.wantBody)
		}
		if c.path == uncached && (!json.Valid(body) || strings.Contains(string(body), root)) {
			t.Errorf("uncached passage during the outage: %s; want JSON without internals", body)
		}
	}

	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(root+".away", root); err != nil {
		t.Fatal(err)
	}
	w := &BuildWatcher{Store: store, Server: second.srv, Log: second.srv.log}
	if err := w.Check(context.Background()); err != nil {
		t.Fatalf("build check with the store back: %v", err)
	}
	for _, path := range []string{"/readyz", uncached, cached} {
		if resp, body := second.do(t, "GET", path, demo); resp.StatusCode != 200 {
			t.Errorf("store back: GET %s = %d %.200s; want 200", path, resp.StatusCode, body)
		}
	}
}

// restartableEdges copies src into a store of the test's own (so that the
// test may break it) and returns it with start, which starts a new edge on
// it sharing one disk cache with every edge start made before, and returns
// what its first check for the current build said.
func restartableEdges(t *testing.T, src *publish.Dir, build string) (*publish.Dir, func() (*testEdge, error)) {
	root := filepath.Join(t.TempDir(), "store")
	if err := os.CopyFS(root, os.DirFS(src.Root())); err != nil {
		t.Fatal(err)
	}
	store, err := publish.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	return store, func() (*testEdge, error) {
		// The directory store stands in for a remote one: its packs are
		// kept on the disk cache as a remote store's are.
		srv, err := New(Config{Store: store, DiskCacheDir: cache, DiskCacheBytes: 1 << 30, DiskCacheLocalStore: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.SetAccess(testSnapshot()); err != nil {
			t.Fatal(err)
		}
		w := &BuildWatcher{Store: store, Server: srv, Log: srv.log}
		err = w.Check(context.Background())
		return &testEdge{srv: srv, store: store, build: build, client: newTestEdgeClient(t, srv)}, err
	}
}
