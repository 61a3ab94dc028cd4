package edge

import (
	"bytes"
	"net/http"
	"sync"
	"testing"
)

// TestComputeOncePerKey: 100 requests at once for one answer that is not
// cached yet compute it once; the others wait for it and are answered
// from the cache it filled, with the same body.
func TestComputeOncePerKey(t *testing.T) {
	e := newCatalogEdge(t, nil)
	for _, target := range []string{
		"/v1/languages?page_size=7&fields[]=id&fields[]=display_names",
		"/v1/bibles?language_ranges[]=*&page_size=2",
		"/v1/search-verses?query=God&bible_id=9001&page_size=3",
		"/v1-beta/search-queries?query=lo&language_ranges[]=en",
		"/v1-beta/search-results?query=God&bible_id=9001",
		"/v1-beta/search-topics?query=love&language_ranges[]=en",
	} {
		t.Run(target, func(t *testing.T) {
			c := e.srv.compute
			before, _ := c.Counts()
			const n = 100
			var wg sync.WaitGroup
			start := make(chan struct{})
			bodies := make([][]byte, n)
			statuses := make([]int, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					// One connection per request, closed after it: 100 idle
					// connections would hold the server's shutdown.
					resp, body := e.do(t, "GET", target, "X-SVC-App-Key: "+keyDemo, "Connection: close")
					statuses[i], bodies[i] = resp.StatusCode, body
				}()
			}
			close(start)
			wg.Wait()
			if run, _ := c.Counts(); run-before != 1 {
				t.Errorf("%d computations for %d requests of one key, want 1", run-before, n)
			}
			for i := range n {
				if statuses[i] != statuses[0] || !bytes.Equal(bodies[i], bodies[0]) {
					t.Fatalf("request %d: %d %s, request 0: %d %s", i, statuses[i], bodies[i], statuses[0], bodies[0])
				}
			}
			if statuses[0] != http.StatusOK {
				t.Fatalf("status %d: %s", statuses[0], bodies[0])
			}
		})
	}
}

// TestComputeKeyNormalised: spellings of one request share one cached
// answer; parameters a route does not read make no new key.
func TestComputeKeyNormalised(t *testing.T) {
	e := newCatalogEdge(t, nil)
	c := e.srv.compute
	cases := [][]string{
		{"/v1/languages?page_size=5", "/v1/languages?page_size=05", "/v1/languages?page_size=5&x=1", "/v1/languages?bibles_available=false&page_size=5"},
		{"/v1/bibles?language_ranges[]=en&page_size=5", "/v1/bibles?language_ranges[]=EN&page_size=05&x=y"},
		{"/v1/languages?fields[]=id&fields[]=display_names", "/v1/languages?fields[]=display_names&fields[]=id&fields[]=id"},
		{"/v1/search-verses?query=God&bible_id=9001", "/v1/search-verses?query=God&bible_id=09001&page_size=25&utm=1", "/v1/search-verses?query=++God+&bible_id=9001"},
		{"/v1-beta/search-topics?query=love&language_ranges[]=en", "/v1-beta/search-topics?query=love+&language_ranges[]=en&z=1"},
		{"/v1-beta/search-queries?query=lo&language_ranges[]=en", "/v1-beta/search-queries?language_ranges[]=en&query=lo&cb=2"},
	}
	for _, spellings := range cases {
		before, _ := c.Counts()
		var first []byte
		for i, target := range spellings {
			_, body := e.getJSONRaw(t, target)
			if i == 0 {
				first = body
			} else if !bytes.Equal(body, first) {
				t.Errorf("%s: %s, %s: %s", spellings[0], first, target, body)
			}
		}
		if run, _ := c.Counts(); run-before != 1 {
			t.Errorf("%q: %d computations, want 1", spellings, run-before)
		}
	}
}

func (e *testEdge) getJSONRaw(t *testing.T, target string) (*http.Response, []byte) {
	t.Helper()
	resp, body := e.do(t, "GET", target, "X-SVC-App-Key: "+keyDemo)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", target, resp.StatusCode, body)
	}
	return resp, body
}

// TestComputeCap: beyond the cap on computations at once, a request that
// needs one is answered 503 with Retry-After at once; answers already
// cached are still served.
func TestComputeCap(t *testing.T) {
	e := newCatalogEdge(t, nil)
	e.getJSONRaw(t, "/v1/languages?page_size=3")
	// No slot free: every computation is refused.
	e.srv.compute.Limit(0)
	for _, target := range []string{
		"/v1/languages?page_size=4",
		"/v1/search-verses?query=God&bible_id=9001&page_size=2",
	} {
		resp, body := e.do(t, "GET", target, "X-SVC-App-Key: "+keyDemo)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
			t.Errorf("%s: %d Retry-After %q %s, want 503 with Retry-After 1", target, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	e.getJSONRaw(t, "/v1/languages?page_size=3")
	_, m := e.do(t, "GET", "/metrics")
	if !bytes.Contains(m, []byte(`edge_computations_total{outcome="refused"} 2`)) {
		t.Errorf("/metrics does not count the 2 refused computations:\n%s", m)
	}
}
