package edge

import (
	"fmt"
	"io"
	"time"

	"github.com/bibleplatform/platform/edge/internal/metrics"
)

// writeMetrics writes every figure of the edge in the Prometheus text
// format (version 0.0.4); the hot path only adds, to sharded counters
// (metrics.Requests).
func (s *Server) writeMetrics(w io.Writer) {
	m := &s.requests
	fmt.Fprintln(w, "# HELP edge_requests_total Requests by route class and status.")
	fmt.Fprintln(w, "# TYPE edge_requests_total counter")
	for c := range metrics.NumClasses {
		for i := range metrics.NumStatus {
			n := m.Requests(c, i)
			if n == 0 {
				continue
			}
			fmt.Fprintf(w, "edge_requests_total{class=%q,code=%q} %d\n", metrics.Class(c).String(), metrics.StatusLabel(i), n)
		}
	}
	fmt.Fprintln(w, "# HELP edge_response_bytes_total Response body bytes sent, by route class.")
	fmt.Fprintln(w, "# TYPE edge_response_bytes_total counter")
	for c := range metrics.NumClasses {
		fmt.Fprintf(w, "edge_response_bytes_total{class=%q} %d\n", metrics.Class(c).String(), m.Bytes(c))
	}
	var notMod, partial uint64
	for c := range metrics.NumClasses {
		notMod += m.Requests(c, metrics.StatusIndex(304))
		partial += m.Requests(c, metrics.StatusIndex(206))
	}
	metrics.WriteScalar(w, "edge_not_modified_total", "counter", "304 responses.", notMod)
	metrics.WriteScalar(w, "edge_partial_content_total", "counter", "206 responses.", partial)
	metrics.WriteScalar(w, "edge_rate_limited_total", "counter", "Requests refused with 429.", s.authz.RateLimited())

	fmt.Fprintln(w, "# HELP edge_cache_requests_total Lookups in the edge's in-memory caches.")
	fmt.Fprintln(w, "# TYPE edge_cache_requests_total counter")
	// One reading of the counters for both families, so that a ratio
	// agrees with the counts beside it.
	type counts struct {
		name       string
		hits, miss uint64
	}
	caches := []counts{{name: "packs"}, {name: "composed"}, {name: "search"}}
	caches[0].hits, caches[0].miss = s.packs.Cache().Counts()
	caches[1].hits, caches[1].miss = s.composed.Counts()
	caches[2].hits, caches[2].miss = s.searched.Counts()
	for _, c := range caches {
		fmt.Fprintf(w, "edge_cache_requests_total{cache=%q,result=\"hit\"} %d\n", c.name, c.hits)
		fmt.Fprintf(w, "edge_cache_requests_total{cache=%q,result=\"miss\"} %d\n", c.name, c.miss)
	}
	fmt.Fprintln(w, "# HELP edge_cache_hit_ratio Hits over lookups since start.")
	fmt.Fprintln(w, "# TYPE edge_cache_hit_ratio gauge")
	for _, c := range caches {
		ratio := 0.0
		if c.hits+c.miss > 0 {
			ratio = float64(c.hits) / float64(c.hits+c.miss)
		}
		fmt.Fprintf(w, "edge_cache_hit_ratio{cache=%q} %g\n", c.name, ratio)
	}
	fmt.Fprintln(w, "# HELP edge_cache_bytes Bytes held by the edge's in-memory caches.")
	fmt.Fprintln(w, "# TYPE edge_cache_bytes gauge")
	pb := s.packs.Bytes()
	_, cb := s.composed.Stats()
	_, sb := s.searched.Stats()
	held, xb, loads := s.search.IndexStats()
	fmt.Fprintf(w, "edge_cache_bytes{cache=\"packs\"} %d\nedge_cache_bytes{cache=\"composed\"} %d\nedge_cache_bytes{cache=\"search\"} %d\nedge_cache_bytes{cache=\"search_indexes\"} %d\n", pb, cb, sb, xb)
	metrics.WriteScalar(w, "edge_search_indexes_held", "gauge", "Decoded search indexes held in memory (bounded by --search-index-cache-size).", float64(held))
	metrics.WriteScalar(w, "edge_search_index_loads_total", "counter", "Search indexes decoded: a Bible's first search, or its next after the bound let its index go.", float64(loads))

	fmt.Fprintln(w, "# HELP edge_access_snapshot_age_seconds Time since the access source last confirmed the snapshot in use.")
	fmt.Fprintln(w, "# TYPE edge_access_snapshot_age_seconds gauge")
	age := -1.0
	if t := s.authz.ConfirmedAt(); !t.IsZero() {
		age = time.Since(t).Seconds()
	}
	fmt.Fprintf(w, "edge_access_snapshot_age_seconds %g\n", age)
	fmt.Fprintln(w, "# HELP edge_access_snapshot_version Version of the access snapshot in use.")
	fmt.Fprintln(w, "# TYPE edge_access_snapshot_version gauge")
	var version int64 = -1
	if t := s.authz.Table(); t != nil {
		version = t.Version()
	}
	fmt.Fprintf(w, "edge_access_snapshot_version %d\n", version)
	fmt.Fprintln(w, "# HELP edge_computations_total Answers composed on demand (catalogue pages, searches, suggestions not in a cache), by outcome: run, or refused with 503 past the cap.")
	fmt.Fprintln(w, "# TYPE edge_computations_total counter")
	run, refused := s.compute.Counts()
	fmt.Fprintf(w, "edge_computations_total{outcome=\"run\"} %d\n", run)
	fmt.Fprintf(w, "edge_computations_total{outcome=\"refused\"} %d\n", refused)
	s.trending.WriteMetrics(w)
	if s.usage != nil {
		s.usage.WriteMetrics(w)
	}
	s.packs.WriteMetrics(w)
	s.search.WriteMetrics(w)
	fmt.Fprintln(w, "# HELP edge_build_info The build being served.")
	fmt.Fprintln(w, "# TYPE edge_build_info gauge")
	if st := s.site.Load(); st != nil {
		fmt.Fprintf(w, "edge_build_info{build=%q} 1\n", st.Build)
	}
	metrics.WriteScalar(w, "edge_uptime_seconds", "gauge", "Time since the server started.", time.Since(s.started).Seconds())
	if err := s.latency.Write(w); err != nil {
		s.log.Error("metrics", "err", err)
	}
}
