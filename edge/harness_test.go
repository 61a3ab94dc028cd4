package edge

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/bibleplatform/platform/publish"
)

// testEdge is a server over a freshly published store, listening in memory.
type testEdge struct {
	srv    *Server
	store  *publish.Dir
	build  string
	client *http.Client
}

func newTestEdge(t testing.TB, mod func(*Config)) *testEdge {
	t.Helper()
	store, build := sharedStore(t)
	e := startTestEdge(t, store, mod)
	e.build = build
	return e
}

// startTestEdge serves the current build of store with the test access
// snapshot; mod adjusts the configuration first.
func startTestEdge(t testing.TB, store *publish.Dir, mod func(*Config)) *testEdge {
	t.Helper()
	cfg := Config{Store: store}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := New(cfg)
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
	return &testEdge{srv: srv, store: store, client: newTestEdgeClient(t, srv)}
}

// newTestEdgeClient serves srv on an in-memory listener and returns a
// client connected to it.
func newTestEdgeClient(t testing.TB, srv *Server) *http.Client {
	ln := fasthttputil.NewInmemoryListener()
	fs := &fasthttp.Server{Handler: srv.Handler, NoDefaultServerHeader: true, NoDefaultContentType: true}
	go fs.Serve(ln)
	t.Cleanup(func() { fs.Shutdown(); ln.Close() })
	return &http.Client{
		Transport: &http.Transport{
			DialContext:        func(ctx context.Context, _, _ string) (net.Conn, error) { return ln.Dial() },
			DisableCompression: true, // the tests look at encodings themselves
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
}

// do sends one request; headers are "Name: value" lines.
func (e *testEdge) do(t testing.TB, method, target string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://edge.test"+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// The fixture build is published once per test binary: brotli at the
// build's level is what makes publishing slow.
var (
	sharedOnce  sync.Once
	sharedDir   string
	sharedBuild string
)

func sharedStore(t testing.TB) (*publish.Dir, string) {
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "edge-test-store-")
		if err != nil {
			t.Fatal(err)
		}
		store, err := publish.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		sharedDir, sharedBuild = dir, publishFixtures(t, store, fxBibles())
	})
	if sharedDir == "" {
		t.Fatal("fixture store was not published")
	}
	store, err := publish.OpenDir(sharedDir)
	if err != nil {
		t.Fatal(err)
	}
	return store, sharedBuild
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	if fixturePublish.dir != "" {
		os.RemoveAll(fixturePublish.dir)
	}
	os.Exit(code)
}
