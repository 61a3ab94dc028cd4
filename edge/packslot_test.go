package edge

import (
	"context"
	"testing"

	"github.com/bibleplatform/platform/publish"
)

// A chapter's pack found whole in memory goes into the chapter's slot; the
// next request is served from there; when the cache evicts the pack the
// slot lets it go (the cache's bound stays the bound on memory); a pack
// used through its slot gets a second chance before eviction, as get's
// recency would have given it.
func TestPackSlot(t *testing.T) {
	ctx := context.Background()
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, aView := testPack(t, dir, 5, 200)
	b, _ := testPack(t, dir, 6, 200)
	c, _ := testPack(t, dir, 7, 200)
	srv, err := New(Config{Store: dir})
	if err != nil {
		t.Fatal(err)
	}
	p := srv.packs
	var slotA, slotB, slotC packSlot

	res, err := p.entry(ctx, &slotA, &a, []byte("entry/001"))
	if err != nil {
		t.Fatal(err)
	}
	sameResource(t, "entry/001", res, aView.index.find([]byte("entry/001")))
	va := slotA.Load()
	if va == nil {
		t.Fatal("pack not kept in its slot")
	}
	hits := p.cache.hits.Load()
	if res, _ := p.entry(ctx, &slotA, &a, []byte("entry/002")); res == nil {
		t.Fatal("entry/002 not found through the slot")
	}
	if p.cache.hits.Load() != hits+1 {
		t.Fatal("a hit through the slot is not counted")
	}
	if _, err := p.entry(ctx, &slotB, &b, []byte("entry/001")); err != nil {
		t.Fatal(err)
	}

	// Room for two packs: a third evicts the least recently used, but A
	// was used through its slot after B was loaded, so B goes.
	_, used := p.cache.stats()
	p.cache.mu.Lock()
	p.cache.max = used + 100
	p.cache.mu.Unlock()
	p.entry(ctx, &slotA, &a, []byte("entry/003")) // through the slot: the cache does not see it
	if _, err := p.entry(ctx, &slotC, &c, []byte("entry/001")); err != nil {
		t.Fatal(err)
	}
	if slotB.Load() != nil {
		t.Error("B evicted but still in its slot")
	}
	if slotA.Load() != va {
		t.Error("A, used through its slot, was evicted before B")
	}
	if _, ok := p.cache.peek(b.Key); ok {
		t.Error("B still cached")
	}
	// A evicted now (not used since its second chance): its slot is empty
	// and a view evicted cannot be put back in a slot.
	p.cache.mu.Lock()
	p.cache.max = 1
	p.cache.evict()
	p.cache.mu.Unlock()
	if slotA.Load() != nil || slotC.Load() != nil {
		t.Fatal("evicted packs still in their slots")
	}
	va.attach(&slotA)
	if slotA.Load() != nil {
		t.Fatal("an evicted view was put in a slot")
	}
}

// A pack the cache does not keep (larger than its bound) is never put in
// a slot: a slot holds only what the cache holds.
func TestPackSlotOnlyCached(t *testing.T) {
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := testPack(t, dir, 5, 200)
	srv, err := New(Config{Store: dir, PackCacheBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	var slot packSlot
	for range 2 {
		if res, err := srv.packs.entry(context.Background(), &slot, &a, []byte("entry/001")); err != nil || res == nil {
			t.Fatalf("entry/001: %v %v", res, err)
		}
		if slot.Load() != nil {
			t.Fatal("a pack the cache did not keep was put in a slot")
		}
	}
}
