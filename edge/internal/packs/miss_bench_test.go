package packs

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/bibleplatform/platform/publish"
)

// BenchmarkEntryMiss: what a miss of the memory tier costs the edge when
// its pack's header is held, the scale mix's most common miss: an entry
// never read before, of a pack of a large catalogue, read by range from a
// directory store in the page cache and lent (Borrow). EDGE_BENCH_STORE is
// a directory store (bench-scale's SCALE_DIR/store); 3,000 of its current
// build's chapter packs are taken at random, every entry of them once in
// a random order, so that the headers and files a miss touches are not in
// the processor's caches.
// Packs are not promoted (loaded whole) here: promotion is a policy, not
// a miss's cost. Run it with -cpu 1, on a quiet CPU.
func BenchmarkEntryMiss(b *testing.B) {
	root := os.Getenv("EDGE_BENCH_STORE")
	if root == "" {
		b.Skip("EDGE_BENCH_STORE: a directory store of many packs (make bench-scale makes one)")
	}
	dir, err := publish.OpenDir(root)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	// The chapters' packs of the current build, from its manifest: a
	// store of volumes keeps many packs in one file.
	m, _, err := publish.LoadCurrent(ctx, dir)
	if err != nil {
		b.Fatalf("%s: %v", root, err)
	}
	var refs []publish.PackRef
	for i := range m.Bibles {
		for k := range m.Bibles[i].Books {
			for _, c := range m.Bibles[i].Books[k].Chapters {
				refs = append(refs, c.Pack)
			}
		}
	}
	if len(refs) == 0 {
		b.Fatalf("no chapter packs in %s", root)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(refs), func(i, j int) { refs[i], refs[j] = refs[j], refs[i] })
	refs = refs[:min(len(refs), 3000)]
	type miss struct {
		ref  publish.PackRef
		name []byte
	}
	var misses []miss
	for _, ref := range refs {
		data := make([]byte, ref.Size)
		if err := publish.ReadPackRange(ctx, dir, &ref, 0, data); err != nil {
			b.Fatal(err)
		}
		pk, err := publish.DecodePack(data)
		if err != nil {
			b.Fatal(err)
		}
		for i := range pk.Len() {
			misses = append(misses, miss{ref, []byte(pk.Name(i))})
		}
	}
	rng.Shuffle(len(misses), func(i, j int) { misses[i], misses[j] = misses[j], misses[i] })
	defer func(n int32) { promoteAfter = n }(promoteAfter)
	promoteAfter = 1 << 30
	p, err := New(Config{Store: dir, MaxBytes: 4 << 30})
	if err != nil {
		b.Fatal(err)
	}
	// Every header held: a pack's header is held from its second read.
	for _, ref := range refs {
		for range 2 {
			if _, _, _, err := p.view(ctx, ref, new(PackID), nil, true); err != nil {
				b.Fatal(err)
			}
		}
	}
	var slot Slot
	i := 0
	for b.Loop() {
		m := &misses[i%len(misses)]
		i++
		res, loan, err := p.Borrow(ctx, &slot, &m.ref, m.name, nil)
		if err != nil || res == nil {
			b.Fatalf("%s of %s: %v", m.name, m.ref.Key, err)
		}
		p.GiveBack(loan)
	}
	if i > len(misses) {
		b.Logf("%d lookups of %d entries: some were not first reads", i, len(misses))
	}
}
