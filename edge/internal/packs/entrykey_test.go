package packs

import (
	"bytes"
	"context"
	"testing"

	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// An entry read by range is held under its pack's id and its name: a
// chapter's slot names the pack (Slot.Pack) and a request without one
// makes the same id from the pack's key, so that each finds what the
// other read; two packs' entries of one name stay apart.
func TestEntryKeysNamePacks(t *testing.T) {
	ctx := context.Background()
	p, a, aView := dirPacks(t, 1<<30)
	b, bView := testPack(t, p.store, 21, 300)
	name := []byte("entry/003")
	if bytes.Equal(aView.index.find(name).Reps[0].Body(), bView.index.find(name).Reps[0].Body()) {
		t.Fatal("the two packs' entries are alike: the test tells nothing")
	}
	get := func(slot *Slot, ref *publish.PackRef, want *View) *represent.Resource {
		t.Helper()
		res, err := p.Entry(ctx, slot, ref, name)
		if err != nil {
			t.Fatal(err)
		}
		sameResource(t, ref.Key+" "+string(name), res, want.index.find(name))
		return res
	}
	slotA := &Slot{Pack: IDOf(a.Key)}
	get(slotA, &a, aView) // read, not held (entrySeen)
	held := get(slotA, &a, aView)
	for _, tc := range []struct {
		what string
		slot *Slot
	}{{"through its slot", slotA}, {"through a slot without the pack", &Slot{}}, {"without a slot", nil}} {
		if got := get(tc.slot, &a, aView); got != held {
			t.Errorf("%s: the entry was read again, not found where the first reads left it", tc.what)
		}
	}
	// Pack b's entry of the same name, through slots of each kind.
	get(&Slot{}, &b, bView)
	get(&Slot{Pack: IDOf(b.Key)}, &b, bView)
	get(nil, &b, bView)
	if got := get(slotA, &a, aView); got != held {
		t.Error("pack a's entry went when pack b's of the same name was read")
	}
}
