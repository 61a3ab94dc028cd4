package edge

import "testing"

// TestAnswerCachesApart: composed ranges and search answers are held in
// caches of their own bounds (ComposeCacheBytes, SearchCacheBytes), so
// that an edge keeping no composed range still answers a repeated search
// from memory, and one keeping no search answer a repeated range.
func TestAnswerCachesApart(t *testing.T) {
	key := "X-SVC-App-Key: " + keyDemo
	rng := "/v1/bibles/9001/passages/JHN.3.16-18"
	query := searchURL("/v1/search-verses", "query", "God loved", "bible_id", "9001")
	// hits are the composed and the search caches' hits so far.
	hits := func(t *testing.T, e *testEdge) (composed, search int64) {
		t.Helper()
		return metricValue(t, e, `edge_cache_requests_total{cache="composed",result="hit"}`),
			metricValue(t, e, `edge_cache_requests_total{cache="search",result="hit"}`)
	}
	// ask asks each path twice and returns the hits of the composed and
	// the search caches over those requests.
	ask := func(t *testing.T, e *testEdge) (composedHits, searchHits int64) {
		t.Helper()
		c0, s0 := hits(t, e)
		for range 2 {
			for _, p := range []string{rng, query} {
				if resp, body := e.do(t, "GET", p, key); resp.StatusCode != 200 {
					t.Fatalf("%s: %d %s", p, resp.StatusCode, body)
				}
			}
		}
		c1, s1 := hits(t, e)
		return c1 - c0, s1 - s0
	}
	for _, tc := range []struct {
		name                       string
		compose, search            int64
		wantComposed, wantSearched int64
	}{
		{"no composed ranges kept", 1, 0, 0, 1},
		{"no search answers kept", 0, 1, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEdge(t, func(c *Config) { c.ComposeCacheBytes, c.SearchCacheBytes = tc.compose, tc.search })
			if c, s := ask(t, e); c != tc.wantComposed || s != tc.wantSearched {
				t.Errorf("composed hits %d, search hits %d; want %d and %d", c, s, tc.wantComposed, tc.wantSearched)
			}
		})
	}
}
