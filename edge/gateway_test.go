package edge

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// upstream stands in for the network peer at --dynamic: a plain HTTP
// server that records what reached it, so the test can see what the edge
// forwards. It implements none of dynamic's behaviour.
type upstream struct {
	mu   sync.Mutex
	seen []http.Header
	uris []string
}

// got returns what reached the upstream so far.
func (u *upstream) got() ([]http.Header, []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]http.Header(nil), u.seen...), append([]string(nil), u.uris...)
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.seen = append(u.seen, r.Header.Clone())
	u.uris = append(u.uris, r.RequestURI)
	u.mu.Unlock()
	if r.URL.Path == "/v1/slow" || strings.HasPrefix(r.URL.Path, "/v1/apps/slow") {
		time.Sleep(time.Second)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Upstream", "yes")
	w.WriteHeader(http.StatusCreated)
	w.Write([]byte(`{"ok":true}`))
}

func TestGatewayForwardsVerifiedIdentity(t *testing.T) {
	up := &upstream{}
	ts := httptest.NewServer(up)
	defer ts.Close()
	e := newTestEdge(t, func(c *Config) {
		c.DynamicURL = ts.URL
		c.EdgeToken = "edge-secret"
		c.DynamicTimeout = 500 * time.Millisecond
	})
	resp, body := e.do(t, "POST", "/v1/highlights?x=1", demo,
		"X-Verified-App-Id: forged", "X-Edge-Token: forged", "Authorization: Bearer user-token")
	if resp.StatusCode != 201 || string(body) != `{"ok":true}` || resp.Header.Get("X-Upstream") != "yes" ||
		resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("forwarded: %d %s %v", resp.StatusCode, body, resp.Header)
	}
	if resp.Header.Get("X-RateLimit-Limit") == "" {
		t.Error("rate-limit headers lost on a forwarded answer")
	}
	seen, uris := up.got()
	h := seen[0]
	if got := h.Values("X-Verified-App-Id"); len(got) != 1 || got[0] != appDemo {
		t.Errorf("X-Verified-App-Id upstream = %q, want [%s]", got, appDemo)
	}
	if got := h.Values("X-Edge-Token"); len(got) != 1 || got[0] != "edge-secret" {
		t.Errorf("X-Edge-Token upstream = %q", got)
	}
	// The test edge serves an in-memory connection, so the address is
	// only checked to be an IP.
	if got := h.Get("X-Forwarded-For"); net.ParseIP(got) == nil {
		t.Errorf("X-Forwarded-For upstream = %q, want an IP address", got)
	}
	if got := h.Get("X-Forwarded-Proto"); got != "http" {
		t.Errorf("X-Forwarded-Proto upstream = %q, want http", got)
	}
	if h.Get("X-Forwarded-Host") == "" {
		t.Error("no X-Forwarded-Host upstream")
	}
	if h.Get("Authorization") != "Bearer user-token" || uris[0] != "/v1/highlights?x=1" {
		t.Errorf("upstream got Authorization %q, URI %q", h.Get("Authorization"), uris[0])
	}

	// The browser flow names the app in the query.
	resp, _ = e.do(t, "GET", "/data-exchange?token=t&x-svc-app-key="+keyDemo)
	seen, _ = up.got()
	if resp.StatusCode != 201 || seen[1].Get("X-Verified-App-Id") != appDemo {
		t.Errorf("data exchange by key: %d, app %q", resp.StatusCode, seen[1].Get("X-Verified-App-Id"))
	}
	resp, _ = e.do(t, "GET", "/data-exchange?token=t&x-svc-app-id="+appDemo)
	seen, _ = up.got()
	if resp.StatusCode != 201 || seen[2].Get("X-Verified-App-Id") != appDemo {
		t.Errorf("data exchange by app id: %d", resp.StatusCode)
	}
	runSteps(t, e, []step{
		{name: "unknown app id", path: "/data-exchange?token=t&x-svc-app-id=nope", status: 412},
		{name: "no key", path: "/v1/licenses", status: 401},
		{name: "archived", path: "/v1/licenses", headers: []string{archived}, status: 412},
		{name: "504 on a slow upstream", path: "/v1/apps/slow", headers: []string{demo}, status: 504, body: []string{`"message"`}},
		{name: "unknown path is not forwarded", path: "/v1/highlightsX", headers: []string{demo}, status: 404},
	})
	if seen, _ = up.got(); len(seen) != 4 { // three above plus the slow one
		t.Errorf("upstream saw %d requests, want 4", len(seen))
	}
}

func TestGatewayUpstreamDown(t *testing.T) {
	ts := httptest.NewServer(&upstream{})
	url := ts.URL
	ts.Close()
	e := newTestEdge(t, func(c *Config) { c.DynamicURL = url })
	runSteps(t, e, []step{{name: "503 with Retry-After", path: "/v1/licenses", headers: []string{demo}, status: 503,
		header: map[string]string{"Retry-After": "2"}, body: []string{`"message"`, "unavailable"}}})
}

// Every 204 and 304 forwarded from dynamic goes out without a body or a
// Content-Type, whatever upstream put on it.
func TestGatewayNoContent(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/licenses" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer ts.Close()
	e := newTestEdge(t, func(c *Config) { c.DynamicURL = ts.URL })
	for _, c := range []struct {
		method, path string
		status       int
	}{{"GET", "/v1/highlights?bible_id=9001&passage_id=JHN.3", 204}, {"DELETE", "/v1/highlights/JHN.3?bible_id=9001", 204}, {"GET", "/v1/licenses", 304}} {
		resp, body := e.do(t, c.method, c.path, demo)
		if resp.StatusCode != c.status || len(body) != 0 || resp.Header.Get("Content-Type") != "" {
			t.Errorf("%s %s: %d, Content-Type %q, %d bytes; want %d with neither", c.method, c.path,
				resp.StatusCode, resp.Header.Get("Content-Type"), len(body), c.status)
		}
	}
}

// An upstream that dies halfway through its answer: the client gets the
// 503, with the edge's rate-limit headers and none of the headers that
// arrived before the connection broke (the answer is read straight into
// the client's response).
func TestGatewayUpstreamGoneMidAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				c.Read(buf)
				c.Write([]byte("HTTP/1.1 200 OK\r\nX-Partial: yes\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"da"))
			}()
		}
	}()
	e := newTestEdge(t, func(c *Config) { c.DynamicURL = "http://" + ln.Addr().String() })
	resp, body := e.do(t, "GET", "/v1/licenses", demo)
	if resp.StatusCode != 503 || resp.Header.Get("X-Partial") != "" || resp.Header.Get("X-RateLimit-Limit") == "" ||
		!strings.Contains(string(body), "unavailable") {
		t.Errorf("got %d %v %s; want 503 with the rate-limit headers and nothing of the broken answer", resp.StatusCode, resp.Header, body)
	}
}
