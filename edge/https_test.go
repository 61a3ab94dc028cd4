package edge

import (
	"context"
	"net/netip"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/publish"
)

func TestHTTPSRedirect(t *testing.T) {
	e := newTestEdge(t, func(c *Config) {
		c.TLS, c.HTTPSPort = true, 8443
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	})
	runSteps(t, e, []step{
		{name: "plain HTTP", method: "POST", path: "/v1/bibles/9001?x=1", status: 308,
			header: map[string]string{"Location": "https://edge.test:8443/v1/bibles/9001?x=1"}},
		{name: "proxy says https", path: "/v1/bibles/9001", headers: []string{demo, "X-Forwarded-Proto: https"}, status: 200},
		{name: "proxy says http", path: "/v1/bibles/9001", headers: []string{demo, "X-Forwarded-Proto: http"}, status: 308},
		{name: "health checks stay on HTTP", path: "/healthz", status: 200},
	})
	untrusted := newTestEdge(t, func(c *Config) {
		c.TLS = true
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	})
	runSteps(t, untrusted, []step{
		{name: "untrusted proxy header is ignored", path: "/v1/bibles/9001", headers: []string{demo, "X-Forwarded-Proto: https"},
			status: 308, header: map[string]string{"Location": "https://edge.test/v1/bibles/9001"}},
	})
	behind := newTestEdge(t, func(c *Config) {
		c.ForceHTTPS = true
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	})
	runSteps(t, behind, []step{
		{name: "TLS at the proxy, client on http", path: "/v1/bibles/9001", headers: []string{demo, "X-Forwarded-Proto: http"}, status: 308},
		{name: "TLS at the proxy, client on https", path: "/v1/bibles/9001", headers: []string{demo, "X-Forwarded-Proto: https"}, status: 200},
		{name: "no proxy header", path: "/v1/bibles/9001", headers: []string{demo}, status: 200},
	})
}

// TestBuildSwap publishes a second build and checks that the edge serves
// it after the watcher sees the store's pointer move.
func TestBuildSwap(t *testing.T) {
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bibles := fxBibles()[1:2] // Spanish only: quick to publish
	publishFixtures(t, store, bibles)
	srv, err := New(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	w := &BuildWatcher{Store: store, Server: srv, Log: srv.log}
	if err := w.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := srv.SetAccess(testSnapshot()); err != nil {
		t.Fatal(err)
	}
	e := &testEdge{srv: srv}
	e.client = newTestEdgeClient(t, srv)
	const p = "/v1/bibles/9002/passages/JHN.3.16-17"
	_, before := e.do(t, "GET", p, demo)
	bibles[0].segments["JHN.3"][0] = []bible.Segment{verseSeg(1, "p", "16", "Texto revisado.", "")}
	second := publishFixtures(t, store, bibles)
	if err := w.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := srv.site.Load().Build; got != second {
		t.Fatalf("serving build %s, want %s", got, second)
	}
	_, after := e.do(t, "GET", p, demo)
	if string(before) == string(after) || !contains(after, "Texto revisado.") {
		t.Errorf("after the swap: %s (before: %s)", after, before)
	}
}

func contains(b []byte, s string) bool { return len(s) == 0 || indexOf(string(b), s) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
