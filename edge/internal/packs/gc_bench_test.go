package packs

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"testing"
	"time"

	"github.com/bibleplatform/platform/publish"
)

// BenchmarkGCHeldEntries is a forced collection of a heap holding
// gcEntries entries read by range (verse-sized, in every coding), as the
// memory tier holds them at catalogue scale: what the collector's mark
// phase costs per entry held, and the heap's objects per entry (the
// headers of their packs and the test's own included). Run it with -cpu 1,
// as the edge is benchmarked.
func BenchmarkGCHeldEntries(b *testing.B) {
	perPack := int(promoteAfter - 1) // read by range, never promoted
	const gcEntries = 60000
	ctx := context.Background()
	dir, err := publish.OpenDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	p, err := New(Config{Store: dir, MaxBytes: 1 << 32})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	words := []string{"in", "the", "beginning", "was", "word", "and", "light", "darkness"}
	enc := publish.NewEncoder()
	for range gcEntries / perPack {
		w := publish.NewPackWriter()
		for i := range perPack {
			var body []byte
			for len(body) < 300 {
				body = append(body, words[rng.Intn(len(words))]...)
				body = append(body, ' ')
			}
			w.Add(fmt.Sprintf("GEN.1.%d", i+1), "text/plain", body)
		}
		data := w.Bytes(enc)
		ref := publish.PackRef{Key: w.Key(), Size: int64(len(data)), Modified: time.Unix(1700000000, 0)}
		if err := dir.Put(ctx, ref.Key, data); err != nil {
			b.Fatal(err)
		}
		for i := range perPack {
			r, err := p.Entry(ctx, nil, &ref, fmt.Appendf(nil, "GEN.1.%d", i+1))
			if err != nil || r == nil {
				b.Fatalf("entry %d of %s: %v", i, ref.Key, err)
			}
		}
	}
	if n, _ := p.Cache().Stats(); n < gcEntries*9/10 {
		b.Fatalf("%d entries held, want %d", n, gcEntries)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
	}
	b.StopTimer()
	b.ReportMetric(float64(m.HeapObjects)/gcEntries, "objects/entry")
	runtime.KeepAlive(p)
}
