package edge

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/bibleplatform/platform/trending"
)

// TestTrendingCountsFound: only searches that found something count, the
// first time and when answered from the cache; a query that is not
// countable text (markup, a URL) is not counted even when it finds verses.
func TestTrendingCountsFound(t *testing.T) {
	var mu sync.Mutex
	var reported trending.Batch
	dyn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if err := json.NewDecoder(r.Body).Decode(&reported); err != nil {
			t.Errorf("%s: %v", r.URL.Path, err)
		}
	}))
	defer dyn.Close()
	e := newCatalogEdge(t, func(c *Config) { c.DynamicURL, c.EdgeToken = dyn.URL, "secret" })
	for range 2 { // computed, then from the answer cache
		for _, q := range []string{"God", "xqzzvw", "<b>God</b>", "God https://evil.example"} {
			e.do(t, "GET", searchURL("/v1/search-verses", "query", q, "bible_id", "9001"), "X-SVC-App-Key: "+keyDemo)
			e.do(t, "GET", searchURL("/v1-beta/search-results", "query", q, "bible_id", "9001"), "X-SVC-App-Key: "+keyDemo)
			e.do(t, "GET", searchURL("/v1-beta/search-topics", "query", q, "language_ranges[]", "en"), "X-SVC-App-Key: "+keyDemo)
		}
	}
	if err := e.srv.ReportSearchQueries(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	b := &reported
	if len(b.Queries) == 0 {
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
