package edge

import (
	"hash/maphash"
	"iter"
	"time"

	"github.com/bibleplatform/platform/publish"
)

// entryIndex finds a whole pack's resources by name. It is the hit path's
// one lookup per answer, and under load each memory line it touches is a
// likely cache miss: a Go map of strings touches its control word, the
// slot, the key's bytes elsewhere on the heap, and then the resource's own
// allocation. Here a name is found with one probe of a flat table whose
// slots carry the name's bytes (names of passages and verses are short),
// and the resources lie side by side in one slice.
type entryIndex struct {
	slots []entrySlot // a power of two, at most half full
	res   []resource  // res[i] is the pack's Entries[i]
	names []publish.Entry
}

// entrySlot is one slot of the table: 32 bytes, two to a cache line.
type entrySlot struct {
	n    uint8 // 1 + the name's length (255 for any longer); 0: empty
	name [slotName]byte
	i    uint32 // the entry's index
}

// slotName is how much of a name a slot holds; a longer name is compared
// whole with the pack's entry.
const slotName = 27

var indexSeed = maphash.MakeSeed()

func slotLen(n int) uint8 { return uint8(1 + min(n, 254)) }

// newEntryIndex prepares every entry of p for serving.
func newEntryIndex(p *publish.Pack, mod time.Time) entryIndex {
	x := entryIndex{res: make([]resource, len(p.Entries)), names: p.Entries}
	size := 1
	for size < 2*len(p.Entries) {
		size *= 2
	}
	x.slots = make([]entrySlot, size)
	mask := uint64(size - 1)
	for i := range p.Entries {
		e := &p.Entries[i]
		initResource(&x.res[i], p, e, mod)
		h := maphash.String(indexSeed, e.Name) & mask
		for x.slots[h].n != 0 {
			// A pack's names are distinct (publish.DecodePackHeader).
			h = (h + 1) & mask
		}
		s := &x.slots[h]
		s.n, s.i = slotLen(len(e.Name)), uint32(i)
		copy(s.name[:], e.Name)
	}
	return x
}

// find returns the resource of the entry name, nil when there is none.
func (x *entryIndex) find(name []byte) *resource {
	if len(x.slots) == 0 {
		return nil
	}
	mask := uint64(len(x.slots) - 1)
	n := slotLen(len(name))
	for h := maphash.Bytes(indexSeed, name) & mask; ; h = (h + 1) & mask {
		s := &x.slots[h]
		switch {
		case s.n == 0:
			return nil
		case s.n != n:
		case len(name) <= slotName:
			if string(s.name[:len(name)]) == string(name) {
				return &x.res[s.i]
			}
		case string(s.name[:]) == string(name[:slotName]) && x.names[s.i].Name == string(name):
			return &x.res[s.i]
		}
	}
}

// all yields every entry's name and resource, in the pack's order.
func (x *entryIndex) all() iter.Seq2[string, *resource] {
	return func(yield func(string, *resource) bool) {
		for i := range x.res {
			if !yield(x.names[i].Name, &x.res[i]) {
				return
			}
		}
	}
}
