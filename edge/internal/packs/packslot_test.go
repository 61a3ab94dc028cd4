package packs

import (
	"context"
	"testing"

	"github.com/bibleplatform/platform/publish"
)

// A chapter's pack found whole in memory goes into the chapter's slot; the
// next request is served from there; when the cache evicts the pack the
// slot lets it go (the cache's bound stays the bound on memory); a pack
// used through its slot gets a second chance before eviction, as a
// lookup in the cache would have given it.
func TestPackSlot(t *testing.T) {
	ctx := context.Background()
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, aView := testPack(t, dir, 5, 200)
	b, _ := testPack(t, dir, 6, 200)
	c, _ := testPack(t, dir, 7, 200)
	// Whole on the first miss: the slots are for whole packs.
	p, err := New(Config{Store: dir, MaxBytes: 1 << 30, WholeFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	var slotA, slotB, slotC Slot

	res, err := p.Entry(ctx, &slotA, &a, []byte("entry/001"))
	if err != nil {
		t.Fatal(err)
	}
	sameResource(t, "entry/001", res, aView.index.find([]byte("entry/001")))
	va := slotA.Load()
	if va == nil {
		t.Fatal("pack not kept in its slot")
	}
	hits, _ := p.cache.Counts()
	if res, _ := p.Entry(ctx, &slotA, &a, []byte("entry/002")); res == nil {
		t.Fatal("entry/002 not found through the slot")
	}
	if now, _ := p.cache.Counts(); now != hits+1 {
		t.Fatal("a hit through the slot is not counted")
	}
	if _, err := p.Entry(ctx, &slotB, &b, []byte("entry/001")); err != nil {
		t.Fatal(err)
	}

	// Room for two packs (C's is the largest, by less than 1,000 bytes;
	// a pack is over 4,000): a third evicts the least recently used, but
	// A was used through its slot after B was loaded, so B goes.
	_, used := p.cache.Stats()
	p.cache.SetMax(used + 2000)
	p.Entry(ctx, &slotA, &a, []byte("entry/003")) // through the slot: the cache does not see it
	if _, err := p.Entry(ctx, &slotC, &c, []byte("entry/001")); err != nil {
		t.Fatal(err)
	}
	if slotB.Load() != nil {
		t.Error("B evicted but still in its slot")
	}
	if slotA.Load() != va {
		t.Error("A, used through its slot, was evicted before B")
	}
	if _, ok := p.cache.Peek(b.Key); ok {
		t.Error("B still cached")
	}
	// A evicted now (not used since its second chance): its slot is empty
	// and a view evicted cannot be put back in a slot.
	p.cache.SetMax(1)
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
	p, err := New(Config{Store: dir, MaxBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	var slot Slot
	for range 2 {
		if res, err := p.Entry(context.Background(), &slot, &a, []byte("entry/001")); err != nil || res == nil {
			t.Fatalf("entry/001: %v %v", res, err)
		}
		if slot.Load() != nil {
			t.Fatal("a pack the cache did not keep was put in a slot")
		}
	}
}
