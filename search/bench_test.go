package search_test

import (
	"bufio"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchMix reads testdata/benchmix.txt: the first queries of the Zipf mix
// make bench-search sends (tools/benchmix), in its order, so that a query
// is as frequent here as there.
func benchMix(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open("testdata/benchmix.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// mixKind sorts a query of the mix the way tools/benchmix made it.
func mixKind(q string) string {
	switch {
	case strings.Contains(q, "*"):
		return "prefix"
	case strings.Contains(q, `"`):
		return "phrase"
	case strings.ContainsAny(q, "0123456789"):
		return "reference"
	case strings.Contains(q, " "):
		return "pair"
	}
	return "word" // a word, or a word with a typo
}

// BenchmarkQueryMix answers the bench mix's queries over the WEB with
// its synonyms, as the edge does for a query its answer cache does not
// hold (the first page of 25). One op is one query; "mix" cycles through
// the whole mix in its order, the others through its queries of one kind.
func BenchmarkQueryMix(b *testing.B) {
	x := loadBible(b, "eng-web", true)
	mix := benchMix(b)
	kinds := map[string][]string{"mix": mix}
	for _, q := range mix {
		k := mixKind(q)
		kinds[k] = append(kinds[k], q)
	}
	for _, k := range []string{"mix", "word", "pair", "phrase", "prefix", "reference"} {
		qs := kinds[k]
		b.Run(k, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime(b)
			for i := 0; b.Loop(); i++ {
				x.Search(qs[i%len(qs)], "", 25)
			}
			b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's user and system time: on a shared machine
// wall time per query moves with the load, CPU time much less.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
