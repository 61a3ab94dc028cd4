package packs

import (
	"hash/maphash"
	"iter"
	"time"

	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// NameIndex finds the index of a name among a fixed list of distinct
// names. It serves the hit path's lookups (a chapter in its Bible, an entry
// in its pack), and under load each memory line a lookup touches is a
// likely cache miss: a Go map of strings touches its control word, the
// slot, the key's bytes elsewhere on the heap, and then the value's own
// allocation. Here a name is found with one probe of a flat table whose
// slots carry the name's bytes (the names looked up are short).
type NameIndex struct {
	slots []nameSlot // a power of two, at most half full
}

// nameSlot is one slot of the table: 32 bytes, two to a cache line.
type nameSlot struct {
	n    uint8 // 1 + the name's length (255 for any longer); 0: empty
	name [slotName]byte
	i    uint32 // the name's index
}

// slotName is how much of a name a slot holds; a longer name is compared
// whole with the list's.
const slotName = 27

var indexSeed = maphash.MakeSeed()

func slotLen(n int) uint8 { return uint8(1 + min(n, 254)) }

// NewNameIndex indexes n distinct names, name(i) being the i-th.
func NewNameIndex(n int, name func(i int) string) NameIndex {
	size := 1
	for size < 2*n {
		size *= 2
	}
	x := NameIndex{slots: make([]nameSlot, size)}
	mask := uint64(size - 1)
	for i := range n {
		nm := name(i)
		h := maphash.String(indexSeed, nm) & mask
		for x.slots[h].n != 0 {
			h = (h + 1) & mask
		}
		s := &x.slots[h]
		s.n, s.i = slotLen(len(nm)), uint32(i)
		copy(s.name[:], nm)
	}
	return x
}

// find returns the index of name, -1 when it is not in the list; long
// gives the list's i-th name, asked only for names longer than a slot.
func (x *NameIndex) Find(name []byte, long func(i int) string) int {
	if len(x.slots) == 0 {
		return -1
	}
	mask := uint64(len(x.slots) - 1)
	n := slotLen(len(name))
	for h := maphash.Bytes(indexSeed, name) & mask; ; h = (h + 1) & mask {
		s := &x.slots[h]
		switch {
		case s.n == 0:
			return -1
		case s.n != n:
		case len(name) <= slotName:
			if string(s.name[:len(name)]) == string(name) {
				return int(s.i)
			}
		case string(s.name[:]) == string(name[:slotName]) && long(int(s.i)) == string(name):
			return int(s.i)
		}
	}
}

// entryIndex is a whole pack's entries ready to serve, found by name, the
// resources side by side in one slice.
type entryIndex struct {
	names NameIndex
	res   []represent.Resource // res[i] is the pack's entry i
	pack  *publish.Pack
}

// newEntryIndex prepares every entry of p for serving. A pack's names are
// distinct (publish.DecodePack).
func newEntryIndex(p *publish.Pack, mod time.Time) entryIndex {
	x := entryIndex{
		names: NewNameIndex(p.Len(), p.Name),
		res:   make([]represent.Resource, p.Len()),
		pack:  p,
	}
	// A pack's entries share one or two content types: the edge-wide
	// table (and its lock) is asked once per run of one type.
	var h *represent.Head
	for i := range p.Len() {
		e := p.At(i)
		if h == nil || string(h.ContentType()) != e.Type {
			h = represent.SharedHead(e.Type, mod)
		}
		represent.InitResource(&x.res[i], &e, p.Bodies(), h)
	}
	return x
}

// find returns the resource of the entry name, nil when there is none.
func (x *entryIndex) find(name []byte) *represent.Resource {
	i := x.names.Find(name, x.entryName)
	if i < 0 {
		return nil
	}
	return &x.res[i]
}

func (x *entryIndex) entryName(i int) string { return x.pack.Name(i) }

// all yields every entry's name and resource, in the pack's order.
func (x *entryIndex) all() iter.Seq2[string, *represent.Resource] {
	return func(yield func(string, *represent.Resource) bool) {
		for i := range x.res {
			if !yield(x.pack.Name(i), &x.res[i]) {
				return
			}
		}
	}
}
