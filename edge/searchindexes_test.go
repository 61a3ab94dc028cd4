package edge

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
)

// metricValue reads one unlabelled or labelled sample of /metrics.
func metricValue(t *testing.T, e *testEdge, sample string) int64 {
	t.Helper()
	_, m := e.do(t, "GET", "/metrics")
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\d+)$`)
	got := re.FindSubmatch(m)
	if got == nil {
		t.Fatalf("/metrics has no %s:\n%s", sample, m)
	}
	n, _ := strconv.ParseInt(string(got[1]), 10, 64)
	return n
}

// TestSearchIndexCache: the decoded search indexes are held under their
// bound, the least recently searched let go and loaded again on the next
// search of their Bible, which answers as before; an edge following a
// build decodes none before a search asks.
func TestSearchIndexCache(t *testing.T) {
	key := "X-SVC-App-Key: " + keyDemo
	// Each search asks for another page size, so that it is computed, not
	// answered from the cache of answers.
	size := 0
	find := func(e *testEdge, bible, query, want string) {
		t.Helper()
		size++
		resp, body := e.do(t, "GET", searchURL("/v1/search-verses", "query", query, "bible_id", bible, "page_size", strconv.Itoa(size)), key)
		if resp.StatusCode != 200 || !regexp.MustCompile(want).Match(body) {
			t.Fatalf("bible %s %q: %d %s", bible, query, resp.StatusCode, body)
		}
	}
	// Following the build decodes nothing; room for every fixture index:
	// each loads once.
	e := newTestEdge(t, nil)
	time.Sleep(100 * time.Millisecond) // the background work after the build, had it decoded
	if got := metricValue(t, e, "edge_search_index_loads_total"); got != 0 {
		t.Errorf("%d indexes decoded before any search", got)
	}
	e.srv.search.Load(e.srv.site.Load())
	loads := metricValue(t, e, "edge_search_index_loads_total")
	held := metricValue(t, e, "edge_search_indexes_held")
	for range 2 {
		find(e, "9001", "God loved", "JHN.3.16")
		find(e, "9002", "Dios", "JHN")
	}
	if got := metricValue(t, e, "edge_search_index_loads_total"); got != loads || held < 2 {
		t.Errorf("unbounded: %d indexes held, loads %d then %d", held, loads, got)
	}
	sizes := map[string]int64{}
	for _, id := range []int32{9001, 9002} {
		x, err := search.Load(e.srv.site.Load().Bibles[id].Entry.Search, func(ref publish.PackRef) ([]byte, error) {
			p, err := publish.LoadPack(context.Background(), e.store, ref)
			if err != nil {
				return nil, err
			}
			return p.Raw(publish.NameSearch)
		})
		if err != nil {
			t.Fatal(err)
		}
		sizes[strconv.Itoa(int(id))] = x.Size()
	}
	bound := max(sizes["9001"], sizes["9002"])*3/2 + 1024 // and the cache's own cost of an entry
	if sizes["9001"]+sizes["9002"] <= bound {
		t.Fatalf("the fixture's indexes (%v) differ too much in size for this test", sizes)
	}

	// Room for one: every search of the other Bible than the last loads
	// its index again; the cache holds one index, within its bound.
	e = newTestEdge(t, func(c *Config) { c.SearchIndexCacheBytes = bound })
	loads = metricValue(t, e, "edge_search_index_loads_total")
	for range 3 {
		find(e, "9001", "God loved", "JHN.3.16")
		find(e, "9002", "Dios", "JHN")
	}
	if got := metricValue(t, e, "edge_search_indexes_held"); got != 1 {
		t.Errorf("bound %d: %d indexes held, want 1", bound, got)
	}
	if got := metricValue(t, e, `edge_cache_bytes{cache="search_indexes"}`); got > bound {
		t.Errorf("indexes hold %d bytes, over the bound %d", got, bound)
	}
	if got := metricValue(t, e, "edge_search_index_loads_total") - loads; got != 6 {
		t.Errorf("bound %d: %d loads for 6 alternating searches, want 6", bound, got)
	}

	// Room for none: every search loads its index and answers.
	e = newTestEdge(t, func(c *Config) { c.SearchIndexCacheBytes = 1 })
	find(e, "9001", "God loved", "JHN.3.16")
	find(e, "9001", "God loved", "JHN.3.16")
	if got := metricValue(t, e, "edge_search_indexes_held"); got != 0 {
		t.Errorf("bound 1: %d indexes held", got)
	}
}
