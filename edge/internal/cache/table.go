package cache

// table finds a cache's entry by its key's hashes in one line of memory for
// most lookups, and holds there what a hit needs: the value and whether it
// was used. A Go map of the same hashes reads a group's control word
// and then its slot, often two lines, and a cache of a catalogue is
// looked up mostly for keys whose lines no processor cache holds; a slot
// that held only a node's index left the node's line to load after it,
// and the node's chunk before that.
//
// It is open addressing with linear probing, in parts chosen by the
// hash's top bits, each growing on its own: a table grows by rehashing
// every slot at once, under the cache's lock, and growing one part of a
// cache of 600,000 entries took under 1 ms, where growing the whole table
// took 13 ms (measured with the 8-byte slots of before the slot held the
// value). A slot is 32 bytes, two to a line: both of the key's hashes,
// the value, the node's index (0 is an empty slot: index 0 is no node)
// and its used mark. A slot's part and home are bits of its hash's upper
// half (its tag). A part stays at most half full, where a lookup reads
// 1.5 slots on average, and a slot let go is filled by shifting the slots
// after it back (no tombstones), so lookups do not slow as the cache
// turns over. No two slots of a table have the same hash (LRU.Add).
type table[V comparable] struct {
	parts [1 << partBits]part[V]
	n     int // slots in use
}

type part[V comparable] struct {
	slots []slot[V]
	mask  uint64 // len(slots)-1
	n     int    // slots in use
}

// slot is an entry's place in the table, with what a hit reads and
// writes: its node (in the cache's list) is read only to add, evict and
// resize.
type slot[V comparable] struct {
	hash, check uint64 // the key's hashes (LRU.hashes)
	val         V
	node        int32 // the node's index; 0: an empty slot
	used        bool  // found since the node was last put at the front
}

const (
	partBits = 6
	minSlots = 4 // a part's first slots
)

func tagOf(h uint64) uint32 { return uint32(h >> 32) }

// part is the part that holds slots of hash h.
func (t *table[V]) part(h uint64) *part[V] { return &t.parts[tagOf(h)>>(32-partBits)] }

// home is where a slot of hash h belongs in its part.
func (p *part[V]) home(h uint64) uint64 { return uint64(tagOf(h)) & p.mask }

// find returns the slot of hash h, nil when there is none. The slot stays
// where it is until the next add or remove.
func (t *table[V]) find(h uint64) *slot[V] {
	p := t.part(h)
	if p.n == 0 {
		return nil
	}
	for j := p.home(h); ; j = (j + 1) & p.mask {
		s := &p.slots[j]
		if s.node == 0 {
			return nil
		}
		if s.hash == h {
			return s
		}
	}
}

// add records s, whose hash no slot has.
func (t *table[V]) add(s slot[V]) {
	p := t.part(s.hash)
	if 2*(p.n+1) > len(p.slots) {
		p.grow()
	}
	p.put(s)
	p.n++
	t.n++
}

// put writes slot s at the first empty slot from its home.
func (p *part[V]) put(s slot[V]) {
	j := p.home(s.hash)
	for p.slots[j].node != 0 {
		j = (j + 1) & p.mask
	}
	p.slots[j] = s
}

func (p *part[V]) grow() {
	old := p.slots
	p.slots = make([]slot[V], max(2*len(old), minSlots))
	p.mask = uint64(len(p.slots) - 1)
	for _, s := range old {
		if s.node != 0 {
			p.put(s)
		}
	}
}

// remove lets go of the slot of hash h, which the table holds, and
// returns what it held.
func (t *table[V]) remove(h uint64) slot[V] {
	p := t.part(h)
	hole := p.home(h)
	for p.slots[hole].node == 0 || p.slots[hole].hash != h {
		hole = (hole + 1) & p.mask
	}
	gone := p.slots[hole]
	// Every slot after the hole, up to the next empty one, moves back
	// into it unless its home lies after the hole (cyclically): a lookup
	// from any home must not meet an empty slot before its node's.
	for j := (hole + 1) & p.mask; p.slots[j].node != 0; j = (j + 1) & p.mask {
		k := p.home(p.slots[j].hash)
		if hole <= j && (hole < k && k <= j) || hole > j && (k > hole || k <= j) {
			continue // at or after its home, with no gap before it
		}
		p.slots[hole] = p.slots[j]
		hole = j
	}
	p.slots[hole] = slot[V]{}
	p.n--
	t.n--
	return gone
}
