package edge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/trending"
	"github.com/bibleplatform/platform/wire"
)

// TestReportInParts: a large batch goes to dynamic in parts of at most
// reportPart phrases, with the edge token; a part that fails is kept, with
// the parts after it, for the next report.
func TestReportInParts(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	failOn := 2
	dyn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(wire.HeaderEdgeToken) != "secret" || r.URL.Path != internalSearchQueries {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		var b trending.Batch
		if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		sizes = append(sizes, len(b.Queries))
		if len(sizes) == failOn {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer dyn.Close()
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{Store: store, DynamicURL: dyn.URL, EdgeToken: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2500 {
		srv.trending.count("en", fmt.Sprint("phrase ", i), "app", "client", 1)
	}
	if err := srv.ReportSearchQueries(context.Background()); err == nil {
		t.Fatal("the failed part was not reported as an error")
	}
	if fmt.Sprint(sizes) != "[1000 1000]" {
		t.Errorf("parts sent %v, want [1000 1000] (the second failed)", sizes)
	}
	if err := srv.ReportSearchQueries(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sizes) != "[1000 1000 1000 500]" {
		t.Errorf("parts sent %v, want the 1500 kept sent next time", sizes)
	}
	if b := srv.trending.counter.Take(); b != nil {
		t.Errorf("%d phrases left after a good report", len(b.Queries))
	}
}

// TestTrendingCountsFound: only searches that found something count, the
// first time and when answered from the cache; a query that is not
// countable text (markup, a URL) is not counted even when it finds verses.
func TestTrendingCountsFound(t *testing.T) {
	e := newCatalogEdge(t, func(c *Config) { c.DynamicURL, c.EdgeToken = "http://127.0.0.1:1", "secret" })
	for range 2 { // computed, then from the answer cache
		for _, q := range []string{"God", "xqzzvw", "<b>God</b>", "God https://evil.example"} {
			e.do(t, "GET", searchURL("/v1/search-verses", "query", q, "bible_id", "9001"), "X-SVC-App-Key: "+keyDemo)
			e.do(t, "GET", searchURL("/v1-beta/search-results", "query", q, "bible_id", "9001"), "X-SVC-App-Key: "+keyDemo)
			e.do(t, "GET", searchURL("/v1-beta/search-topics", "query", q, "language_ranges[]", "en"), "X-SVC-App-Key: "+keyDemo)
		}
	}
	b := e.srv.trending.counter.Take()
	if b == nil {
		t.Fatal("nothing counted")
	}
	for _, q := range b.Queries {
		if q.Phrase != "god" {
			t.Errorf("counted %q (%d)", q.Phrase, q.Count)
		} else if len(q.Clients) != 1 || q.Clients[0] == "" || strings.ContainsAny(q.Clients[0], ".:") {
			t.Errorf("god's clients %q, want one hashed address", q.Clients)
		} else if q.Count != 6 {
			t.Errorf("god counted %d times, want 6 (three searches that found something, twice)", q.Count)
		}
	}
}
