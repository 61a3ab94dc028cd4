package dynamic_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
	"github.com/bibleplatform/platform/edge"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire"
)

func TestSearchQueriesRoute(t *testing.T) {
	e := newEnv(t)
	ok := `{"queries":[{"language":"en","phrase":"love","count":2,"apps":["a","b"]}]}`
	if r := e.do(req{method: "POST", path: "/internal/search-queries", body: ok, edge: "-"}); r.status != 401 {
		t.Errorf("without the edge token: %d", r.status)
	}
	if r := e.do(req{method: "POST", path: "/internal/search-queries", body: ok, edge: "wrong"}); r.status != 401 {
		t.Errorf("with a wrong edge token: %d", r.status)
	}
	if r := e.do(req{method: "GET", path: "/internal/search-trending", edge: "-"}); r.status != 401 {
		t.Errorf("trending without the edge token: %d", r.status)
	}
	for body, loc := range map[string]string{
		`{"queries":[{"language":"","phrase":"love","count":1}]}`:                      "language",
		`{"queries":[{"language":"en","phrase":"Love","count":1}]}`:                    "phrase",
		`{"queries":[{"language":"en","phrase":"love","count":0}]}`:                    "count",
		`{"queries":[{"language":"en","phrase":"love","count":1,"apps":[""]}]}`:        "apps",
		`{"queries":[{"language":"en","phrase":"love","count":1,"clients":[""]}]}`:     "clients",
		`{"queries":[{"language":"en","phrase":"evil.example","count":1}]}`:            "phrase",
		`{"queries":[{"language":"en","phrase":"<script>","count":1}]}`:                "phrase",
		`{"queries":[{"language":"en","phrase":"love","count":1,"user":"u"}]}`:         "",
		`{"queries":[{"language":"en","phrase":"love","count":1}, {"language":"en"}]}`: "phrase",
		`not json`: "",
	} {
		wantValidation(t, e, "/internal/search-queries", body, loc)
	}
	if r := e.do(req{method: "POST", path: "/internal/search-queries", body: ok}); r.status != 204 {
		t.Errorf("a good batch: %d %s", r.status, r.body)
	}
	r := e.do(req{method: "GET", path: "/internal/search-trending"})
	var snap struct {
		Languages map[string][]struct{ Text string }
	}
	r.json(t, &snap)
	if r.status != 200 || len(snap.Languages) != 0 {
		t.Errorf("trending after two apps (the minimum is 3): %d %s", r.status, r.body)
	}
}

// TestTrendingTwoEdges: two edges count searches of different apps and
// report them to one dynamic service; both then serve the same trending
// phrases, which survive a restart of dynamic; a phrase searched by one
// app only, however often, does not trend.
func TestTrendingTwoEdges(t *testing.T) {
	ctx := context.Background()
	env := newTrendingEnv(t)
	store, keys, startDynamic := env.store, env.keys, env.start
	dyn := env.dyn
	// The edges reach dynamic through a fixed address that outlives it.
	proxy := newSwitchProxy(t, dyn.URL())
	a, b := startEdge(t, store, proxy.url, trustLoopback), startEdge(t, store, proxy.url, trustLoopback)

	search := func(e *testEdge, key, query, lang string) {
		t.Helper()
		u := e.url + "/v1-beta/search-topics?query=" + url.QueryEscape(query) + "&language_ranges[]=" + lang
		if r := searchAs(t, u, key); r.status != 200 {
			t.Fatalf("%s: %d %s", u, r.status, r.body)
		}
	}
	search(a, keys[0], "Love", "en")
	search(a, keys[0], "love", "en")
	search(b, keys[1], "  LOVE ", "en")
	for range 20 {
		search(b, keys[2], "light", "en") // one app, many times
	}
	search(a, keys[0], "amor", "es")
	search(b, keys[2], "Amor", "es")
	search(a, keys[1], "peace", "en")
	search(b, keys[2], "peace", "en")
	// Verse and unified search count under the Bible's language; a
	// second page counts nothing.
	get := func(e *testEdge, key, path string) {
		t.Helper()
		if r := searchAs(t, e.url+path, key); r.status != 200 {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
	}
	get(a, keys[0], "/v1-beta/search-verses?bible_id=9001&query=darkness")
	get(b, keys[1], "/v1-beta/search-results?bible_id=9001&query=Darkness")
	// A passage request counts nothing.
	throughEdge(t, http.DefaultClient, "GET", a.url+"/v1/bibles/9001/passages/JHN.3.16", keys[0], "", "")

	for _, e := range []*testEdge{a, b} {
		if err := e.srv.ReportSearchQueries(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Dynamic restarts: the counts are in PostgreSQL.
	dyn.Close()
	dyn = startDynamic()
	t.Cleanup(func() { dyn.Close() })
	proxy.switchTo(dyn.URL())

	trendingOf := func(e *testEdge, lang string) []string {
		t.Helper()
		if err := e.srv.RefreshTrending(ctx); err != nil {
			t.Fatal(err)
		}
		r := throughEdge(t, http.DefaultClient, "GET", e.url+"/v1/search-queries?trending=true&language_ranges[]="+lang, keys[0], "", "")
		if r.status == 204 {
			return nil
		}
		var v struct {
			Data []struct{ Text, Source string }
		}
		if err := json.Unmarshal(r.body, &v); err != nil || r.status != 200 {
			t.Fatalf("trending %s: %d %s", lang, r.status, r.body)
		}
		var out []string
		for _, d := range v.Data {
			out = append(out, d.Text+"/"+d.Source)
		}
		return out
	}
	for _, e := range []*testEdge{a, b} {
		if got, want := strings.Join(trendingOf(e, "en"), ","), "love/trending,darkness/trending,peace/trending"; got != want {
			t.Errorf("en trending = %s, want %s (light: one app only; love 3 searches, darkness and peace 2)", got, want)
		}
		if got, want := strings.Join(trendingOf(e, "fr&language_ranges[]=es"), ","), "amor/trending"; got != want {
			t.Errorf("fr, es trending = %s, want %s", got, want)
		}
		if got := trendingOf(e, "he"); got != nil {
			t.Errorf("he trending = %v, want 204", got)
		}
	}
}

// TestTrendingLoop: an edge running its reporting loop gets its own
// searches back as trending without being driven.
func TestTrendingLoop(t *testing.T) {
	ctx := context.Background()
	env := newTrendingEnv(t)
	c := startEdge(t, env.store, env.dyn.URL(), func(cfg *edge.Config) {
		cfg.SearchReportInterval, cfg.TrendingRefresh = 50*time.Millisecond, 50*time.Millisecond
		trustLoopback(cfg)
	})
	loop, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { c.srv.RunSearchQueries(loop); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	for _, k := range env.keys[:2] {
		if r := searchAs(t, c.url+"/v1/search-topics?query=peace&language_ranges[]=en", k); r.status != 200 {
			t.Fatalf("search: %d %s", r.status, r.body)
		}
	}
	// Dynamic serves a computed snapshot for 5 s.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r := throughEdge(t, http.DefaultClient, "GET", c.url+"/v1/search-queries?trending=true&language_ranges[]=en", env.keys[0], "", "")
		if r.status == 200 && strings.Contains(string(r.body), `"peace"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no trending peace after 15 s: %d %s", r.status, r.body)
		}
	}
}

// switchProxy forwards to a backend that can be replaced, so that edges
// keep one dynamic URL across a restart of dynamic on another port.
type switchProxy struct {
	url     string
	backend chan string
}

func newSwitchProxy(t *testing.T, backend string) *switchProxy {
	p := &switchProxy{backend: make(chan string, 1)}
	p.backend <- backend
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := <-p.backend
		p.backend <- b
		out, _ := http.NewRequestWithContext(r.Context(), r.Method, b+r.URL.RequestURI(), r.Body)
		out.Header = r.Header.Clone()
		res, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		io.Copy(w, res.Body)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	p.url = "http://" + ln.Addr().String()
	return p
}

func (p *switchProxy) switchTo(backend string) {
	<-p.backend
	p.backend <- backend
}

// trendingEnv is a database with three apps and their keys, the fixtures
// published, and a dynamic service over them that trends phrases two apps
// searched.
type trendingEnv struct {
	db    *postgres.DB
	store *publish.Dir
	keys  []string
	dyn   *dynamic.Server
	start func() *dynamic.Server
}

// trustLoopback makes an edge take the client address from
// X-Forwarded-For on loopback connections, as behind a proxy, so that a
// test can search as distinct clients.
func trustLoopback(cfg *edge.Config) {
	cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
}

// searchAs searches through an edge with an App Key, from a client
// address of the key's own (trending needs distinct clients as well as
// distinct apps).
func searchAs(t *testing.T, u, key string) resp {
	t.Helper()
	r, _ := http.NewRequest("GET", u, nil)
	r.Header.Set("X-SVC-App-Key", key)
	r.Header.Set(wire.HeaderForwardedFor, "198.51.100."+key[len(key)-1:])
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{res.StatusCode, res.Header, b}
}

// TestTrendingNeedsClients: three apps' keys used from one client
// address do not make a phrase trend, however often they search.
func TestTrendingNeedsClients(t *testing.T) {
	ctx := context.Background()
	env := newTrendingEnv(t)
	e := startEdge(t, env.store, env.dyn.URL(), nil) // every search from 127.0.0.1
	for range 5 {
		for _, k := range env.keys {
			u := e.url + "/v1-beta/search-topics?query=love&language_ranges[]=en"
			if r := throughEdge(t, http.DefaultClient, "GET", u, k, "", ""); r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
		}
	}
	if err := e.srv.ReportSearchQueries(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.RefreshTrending(ctx); err != nil {
		t.Fatal(err)
	}
	r := throughEdge(t, http.DefaultClient, "GET", e.url+"/v1-beta/search-queries?trending=true&language_ranges[]=en", env.keys[0], "", "")
	if r.status != 204 {
		t.Errorf("trending from one client with three keys: %d %s, want 204", r.status, r.body)
	}
}

func newTrendingEnv(t *testing.T) *trendingEnv {
	ctx := context.Background()
	db := pgtest.New(t)
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := build.Build(ctx, build.Options{Content: filepath.Join(repotest.Root(t), "fixtures", "content"), Store: store}); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 3)
	for i := range keys {
		id := fmt.Sprintf("5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9b0%d", i)
		if err := db.CreateApp(ctx, dynamic.App{ID: id, Name: "App " + fmt.Sprint(i), Status: "live", CallbackURL: "https://app.example/cb"}); err != nil {
			t.Fatal(err)
		}
		keys[i] = fmt.Sprintf("bpk_trending_test_key_%d", i)
		h := sha256.Sum256([]byte(keys[i]))
		if _, err := db.AddKey(ctx, id, h[:], "bpk_tren"); err != nil {
			t.Fatal(err)
		}
	}
	startDynamic := func() *dynamic.Server {
		srv := dynamic.New(dynamic.Config{DB: db, Store: store, EdgeToken: edgeToken, TrendingMinApps: 2,
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err := srv.Open(ctx, "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		return srv
	}
	env := &trendingEnv{db: db, store: store, keys: keys, start: startDynamic}
	env.dyn = startDynamic()
	t.Cleanup(func() { env.dyn.Close() })
	return env
}
