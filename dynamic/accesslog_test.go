package dynamic_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bibleplatform/platform/dynamic"
)

// lockedBuffer is an io.Writer safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAccessLog: one JSON line per request, with the route, status, app
// and duration_us (a number of microseconds), and never the query (a
// data-exchange token travels in it).
func TestAccessLog(t *testing.T) {
	var buf lockedBuffer
	srv, _, _ := plainServer(t, dynamic.Config{AccessLog: slog.New(slog.NewJSONHandler(&buf, nil))})
	get := func(path string, edge bool) {
		t.Helper()
		r, err := http.NewRequest("GET", srv.URL()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Believed only with the edge token.
		route, _, _ := strings.Cut(path, "?")
		r.Header.Set("X-Request-Id", "edge-"+route)
		if edge {
			r.Header.Set("X-Edge-Token", edgeToken)
			r.Header.Set("X-Verified-App-Id", appID)
		}
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	get("/v1/apps/"+appID, true)
	get("/data-exchange?token=dx-secret-token", true)
	get("/readyz", false)
	get("/v1/licenses", false)

	type line struct {
		Msg        string `json:"msg"`
		ID         uint64 `json:"id"`
		Method     string `json:"method"`
		Path       string `json:"path"`
		Route      string `json:"route"`
		Status     int    `json:"status"`
		Bytes      int    `json:"bytes"`
		DurationUS *int64 `json:"duration_us"`
		App        string `json:"app"`
		RequestID  string `json:"request_id"`
	}
	out := buf.String()
	if strings.Contains(out, "dx-secret-token") {
		t.Errorf("the access log holds a query's token:\n%s", out)
	}
	var got []line
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v line
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if v.DurationUS == nil || *v.DurationUS < 0 || v.ID == 0 || v.Msg != "request" || v.Method != "GET" {
			t.Errorf("line %q lacks the request's id, method or duration_us", l)
		}
		got = append(got, v)
	}
	want := []line{
		{Path: "/v1/apps/" + appID, Route: "/v1/apps/{app_id}", Status: 404, App: appID, RequestID: "edge-/v1/apps/" + appID},
		{Path: "/data-exchange", Route: "/data-exchange", App: appID, RequestID: "edge-/data-exchange"},
		{Path: "/readyz", Route: "/readyz", Status: 200},
		{Path: "/v1/licenses", Route: "other", Status: 401},
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), out)
	}
	for i, w := range want {
		g := got[i]
		if g.Path != w.Path || g.Route != w.Route || g.App != w.App || g.RequestID != w.RequestID || (w.Status != 0 && g.Status != w.Status) {
			t.Errorf("line %d: got %s %s app=%q request_id=%q status %d, want %s %s app=%q request_id=%q status %d",
				i, g.Path, g.Route, g.App, g.RequestID, g.Status, w.Path, w.Route, w.App, w.RequestID, w.Status)
		}
	}
}
