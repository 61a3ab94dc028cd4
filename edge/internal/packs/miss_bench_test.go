package packs

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/bibleplatform/platform/publish"
)

// BenchmarkEntryMiss: what a miss of the memory tier costs the edge when
// its pack's header is held, the scale mix's most common miss: an entry
// never read before, of a pack of a large catalogue, read by range from a
// directory store in the page cache and lent (Borrow). EDGE_BENCH_STORE is
// a directory store (bench-scale's SCALE_DIR/store); 3,000 of its packs
// are taken at random, every entry of them once in a random order, so that
// the headers and files a miss touches are not in the processor's caches.
// Packs are not promoted (loaded whole) here: promotion is a policy, not
// a miss's cost. Run it with -cpu 1, on a quiet CPU.
func BenchmarkEntryMiss(b *testing.B) {
	root := os.Getenv("EDGE_BENCH_STORE")
	if root == "" {
		b.Skip("EDGE_BENCH_STORE: a directory store of many packs (make bench-scale makes one)")
	}
	files, err := filepath.Glob(filepath.Join(root, "objects", "packs", "*"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no packs in %s: %v", root, err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	files = files[:min(len(files), 3000)]
	type miss struct {
		ref  publish.PackRef
		name []byte
	}
	var refs []publish.PackRef
	var misses []miss
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		pk, err := publish.DecodePack(data)
		if err != nil {
			b.Fatal(err)
		}
		ref := publish.PackRef{Key: publish.PackPrefix + filepath.Base(f), Size: int64(len(data))}
		refs = append(refs, ref)
		for i := range pk.Len() {
			misses = append(misses, miss{ref, []byte(pk.Name(i))})
		}
	}
	rng.Shuffle(len(misses), func(i, j int) { misses[i], misses[j] = misses[j], misses[i] })
	defer func(n int32) { promoteAfter = n }(promoteAfter)
	promoteAfter = 1 << 30
	dir, err := publish.OpenDir(root)
	if err != nil {
		b.Fatal(err)
	}
	p, err := New(Config{Store: dir, MaxBytes: 4 << 30})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	// Every header held: a pack's header is held from its second read.
	for _, ref := range refs {
		for range 2 {
			if _, _, err := p.view(ctx, ref, nil, true); err != nil {
				b.Fatal(err)
			}
		}
	}
	var slot Slot
	i := 0
	for b.Loop() {
		m := &misses[i%len(misses)]
		i++
		res, loan, err := p.Borrow(ctx, &slot, &m.ref, m.name)
		if err != nil || res == nil {
			b.Fatalf("%s of %s: %v", m.name, m.ref.Key, err)
		}
		p.GiveBack(loan)
	}
	if i > len(misses) {
		b.Logf("%d lookups of %d entries: some were not first reads", i, len(misses))
	}
}
