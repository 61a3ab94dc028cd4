package edge

import (
	"os"
	"runtime"
	"testing"
)

// BenchmarkSearchMix runs the handler over make bench-search's query mix
// (50,000 verse searches of the WEB, Zipf-distributed, four in five
// accepting br) as BenchmarkHandlerMix runs the passage mix: on 64
// request contexts taken in turn, with the process's CPU time per request
// (cpu-ns/op). nocache is an edge whose answer cache keeps nothing, as
// bench-search's second edge (--search-answer-cache 1): every query computed,
// what a query not seen before costs. cached is an edge with its default
// answer cache after two passes over the mix: every query a hit.
//
// It needs the benchmark's work directory (made by make bench-search):
//
//	EDGE_SEARCH_BENCH_DIR=$PWD/.run/bench-search go test -run '^$' -bench SearchMix ./edge
func BenchmarkSearchMix(b *testing.B) {
	dir := os.Getenv("EDGE_SEARCH_BENCH_DIR")
	if dir == "" {
		b.Skip("EDGE_SEARCH_BENCH_DIR names make bench-search's work directory")
	}
	for _, bc := range []struct {
		name  string
		bytes int64
	}{{"nocache", 1}, {"cached", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			m := searchMixes[bc.name]
			if m == nil {
				m = openBenchMix(b, dir, Config{SearchCacheBytes: bc.bytes})
				m.srv.search.Load(m.srv.site.Load())
				// Twice: the cached edge then holds every answer, with
				// every coding (an answer is compressed in the codings its
				// computing request did not get when first asked again).
				m.serve(2*len(m.paths), m.srv.Handler)
				runtime.GC()
				searchMixes[bc.name] = m
			}
			m.fail = func(status int) { b.Fatalf("status %d", status) }
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime(b)
			m.serve(b.N, m.srv.Handler)
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// searchMixes are BenchmarkSearchMix's edges, opened and warmed once per
// test binary: a benchmark function runs again for each b.N.
var searchMixes = map[string]*benchMix{}
