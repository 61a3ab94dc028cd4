// Package cache holds the building blocks of the edge's in-memory caches:
// an LRU bounded by what its entries cost on the heap, loads shared by the
// requests that want the same thing at once (Flights), and the allocation
// figures the bounds are counted in. The pack tiers, the composed answers
// and the search answers each keep their own caches made of these.
package cache

import (
	"hash/maphash"
	"sync"
	"unsafe"

	"github.com/bibleplatform/platform/edge/internal/metrics"
)

// LRU is a cache bounded by the total size of its values, evicting about
// the least recently used: a second-chance list (CLOCK). Get does not
// allocate, so the hot path can use it.
//
// A hit marks its entry as used and moves nothing. Over a catalogue most
// hits are of entries no processor cache holds, and relinking a node to
// the front touched two more nodes as cold as it (its neighbours) on
// every such hit; now the node at the tail that was used since it got
// there goes back to the front once, when the cache makes room, and one
// that was not goes.
//
// A hit reads one line for most lookups: the table's slot (table) holds
// the key's hashes, the value and its used mark. The list's nodes hold
// only what the list needs (the hash that finds the slot, the size, the
// links), in chunks of chunkLen, linked by index, not each in an
// allocation of its own: a cache of a catalogue holds hundreds of
// thousands of entries, and the collector marks every object and follows
// every pointer at each cycle, where a chunk is one object without
// pointers. Nodes let go are reused first, so the chunks hold as many
// nodes as the cache ever held at once.
//
// For the same reason, and because reading a key kept in an allocation of
// its own is one more line to load on every hit, the cache keeps no keys:
// the table finds a slot by its key's hash, and tells keys of the
// same hash apart by a second hash of another seed (check). Both are
// seeded by the cache, so that a request cannot choose keys that collide;
// two keys whose 128 bits of hashes are equal are taken for one. An entry
// whose key's hash another key shares is let go when that key is added (a
// cache may drop what it holds; with 64-bit hashes it does not happen in
// practice).
type LRU[V comparable] struct {
	mu          sync.Mutex
	max, used   int64
	seed, check maphash.Seed
	mask        uint64   // of a key's hash: every bit, but in a test of keys that collide
	items       table[V] // each key's slot, by its hash (hashes)
	chunks      []*[chunkLen]node
	next        int32 // the first index never handed out (0 is no node)
	free        int32 // the first node let go, chained through next; 0: none
	head, tail  int32 // head: the latest added or given a second chance; tail: the next to go; 0: none
	hits, miss  metrics.HotCounter

	// Kept and Dropped, when set, are told of every value the cache takes
	// in and lets go (evicted or replaced), under the cache's lock.
	// Referenced, when set, reports and clears whether a value was used
	// by a way around Get since it was last asked (the pack tiers' slots):
	// such a value at the tail goes back to the front instead of out, as
	// one found by Get does. They are set before the cache is used.
	Kept, Dropped func(V)
	Referenced    func(V) bool
}

// node is an entry's place in the list.
type node struct {
	hash       uint64 // the key's hash: where its slot is
	size       int64
	prev, next int32 // indexes of the neighbours; 0: none
}

// chunkLen nodes make a chunk: 1.5 KiB, an allocation size class.
const (
	chunkShift = 6
	chunkLen   = 1 << chunkShift
)

// New returns a cache holding at most maxBytes of entries, each counted as cost says.
func New[V comparable](maxBytes int64) *LRU[V] {
	return &LRU[V]{max: maxBytes, seed: maphash.MakeSeed(), check: maphash.MakeSeed(), mask: ^uint64(0)}
}

// hashes are key's hash, by which the table finds its node, and its check,
// which the node holds.
func (c *LRU[V]) hashes(key string) (h, check uint64) {
	return maphash.String(c.seed, key) & c.mask, maphash.String(c.check, key)
}

// find returns the slot of the key whose hashes are h and check; nil when
// there is none.
func (c *LRU[V]) find(h, check uint64) *slot[V] {
	if s := c.items.find(h); s != nil && s.check == check {
		return s
	}
	return nil
}

// at is the node of index i.
func (c *LRU[V]) at(i int32) *node { return &c.chunks[i>>chunkShift][i&(chunkLen-1)] }

// alloc returns a node's index: a node let go, else a new one.
func (c *LRU[V]) alloc() int32 {
	if i := c.free; i != 0 {
		c.free = c.at(i).next
		c.at(i).next = 0
		return i
	}
	if c.next == 0 {
		c.next = 1
	}
	if int(c.next>>chunkShift) == len(c.chunks) {
		c.chunks = append(c.chunks, new([chunkLen]node))
	}
	c.next++
	return c.next - 1
}

// release lets node i go.
func (c *LRU[V]) release(i int32) {
	*c.at(i) = node{next: c.free}
	c.free = i
}

// Get returns the value under key. The key may be a string converted from
// bytes at the call site: nothing keeps it.
func (c *LRU[V]) Get(key string) (V, bool) {
	v, ok := c.lookup(key)
	if !ok {
		c.miss.Inc()
		return v, false
	}
	c.hits.Inc()
	return v, true
}

// Find looks up a key held in bytes and counts a hit but not a miss, for a
// caller that looks before it knows whether the request is one the cache
// serves, and counts the miss itself (Missed) once it does.
func (c *LRU[V]) Find(key []byte) (V, bool) {
	v, ok := c.lookup(unsafe.String(unsafe.SliceData(key), len(key)))
	if ok {
		c.hits.Inc()
	}
	return v, ok
}

// lookup returns the value under key, marking it used.
func (c *LRU[V]) lookup(key string) (v V, ok bool) {
	h, check := c.hashes(key)
	c.mu.Lock()
	if s := c.find(h, check); s != nil {
		if !s.used { // a line written is a line to write back
			s.used = true
		}
		v, ok = s.val, true
	}
	c.mu.Unlock()
	return v, ok
}

// Missed counts a miss for a lookup made with Find.
func (c *LRU[V]) Missed() { c.miss.Inc() }

// Hit counts a hit on a value found by a way around the cache (a slot
// holding it), which Referenced then reports.
func (c *LRU[V]) Hit() { c.hits.Inc() }

// Counts are the hits and misses counted since the start.
func (c *LRU[V]) Counts() (hits, misses uint64) { return c.hits.Load(), c.miss.Load() }

// cost is what an entry of a value of size bytes takes: the value, its list
// node (its share of a chunk) and its share of the table: four slots, in a
// table a quarter to a half full. The cache counts it, so that its bound
// is on memory.
func (c *LRU[V]) cost(size int64) int64 {
	return size + int64(unsafe.Sizeof(node{})) + 4*int64(unsafe.Sizeof(slot[V]{}))
}

// Add stores val, whose own size is size. A value larger than the whole
// cache is not kept: it would only evict everything else.
func (c *LRU[V]) Add(key string, val V, size int64) {
	size = c.cost(size)
	h, check := c.hashes(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.max { // under the lock: SetMax changes the bound
		return
	}
	s := c.items.find(h)
	if s != nil && s.check != check {
		// Another key of the same hash: it goes.
		c.remove(s.node)
		s = nil
	}
	replaced := s != nil
	if replaced {
		n := c.at(s.node)
		c.used += size - n.size
		old := s.val
		s.val, s.used, n.size = val, true, size
		if c.Dropped != nil && old != val {
			c.Dropped(old)
		}
	} else {
		// Room first, then the new node at the front: were it put there
		// first, the nodes given their second chance would go in front
		// of it, and a cache whose every node was used would let the
		// new one go.
		c.evict(size)
		i := c.alloc()
		n := c.at(i)
		n.hash, n.size = h, size
		c.items.add(slot[V]{hash: h, check: check, val: val, node: i})
		c.used += size
		c.pushFront(i, n)
	}
	if c.Kept != nil {
		c.Kept(val)
	}
	if replaced {
		c.evict(0) // the value may have grown; a new node had its room made
	}
}

// evict lets the nodes at the tail go until the cache has room for extra
// more bytes within its bound; a node used since it was put at the front
// goes back to the front instead, once a pass.
func (c *LRU[V]) evict(extra int64) {
	chances := c.items.n
	for c.used+extra > c.max && c.tail != 0 {
		i := c.tail
		n := c.at(i)
		if chances > 0 {
			s := c.items.find(n.hash)
			used := s.used
			if c.Referenced != nil && c.Referenced(s.val) {
				used = true
			}
			if used {
				chances--
				s.used = false
				c.unlink(n)
				c.pushFront(i, n)
				continue
			}
		}
		c.remove(i)
	}
}

// remove lets node i go, telling Dropped.
func (c *LRU[V]) remove(i int32) {
	n := c.at(i)
	c.unlink(n)
	s := c.items.remove(n.hash)
	c.used -= n.size
	c.release(i)
	if c.Dropped != nil {
		c.Dropped(s.val)
	}
}

// Peek returns the value under key without counting a hit or a miss or
// marking it used: for a loader checking again under its own lock.
func (c *LRU[V]) Peek(key string) (V, bool) {
	h, check := c.hashes(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.find(h, check); s != nil {
		return s.val, true
	}
	var zero V
	return zero, false
}

// Resize records that the value under key grew or shrank to size, if the
// entry still holds that value (is says so): a value that has been
// replaced or evicted meanwhile is not put back.
func (c *LRU[V]) Resize(key string, size int64, is func(V) bool) {
	h, check := c.hashes(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.find(h, check)
	if s == nil || !is(s.val) {
		return
	}
	n := c.at(s.node)
	size = c.cost(size)
	c.used += size - n.size
	n.size = size
	c.evict(0)
}

// Stats are the entries held and what they cost.
func (c *LRU[V]) Stats() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.items.n, c.used
}

// SetMax changes the bound, evicting down to it at once.
func (c *LRU[V]) SetMax(maxBytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.max = maxBytes
	c.evict(0)
}

// Clear drops every entry without telling Dropped: for measuring what the
// entries held.
func (c *LRU[V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items = table[V]{}
	c.chunks = nil
	c.next, c.free, c.head, c.tail, c.used = 0, 0, 0, 0, 0
}

// pushFront puts node i (n), unlinked, at the front.
func (c *LRU[V]) pushFront(i int32, n *node) {
	n.prev, n.next = 0, c.head
	if c.head != 0 {
		c.at(c.head).prev = i
	}
	c.head = i
	if c.tail == 0 {
		c.tail = i
	}
}

func (c *LRU[V]) unlink(n *node) {
	if n.prev != 0 {
		c.at(n.prev).next = n.next
	} else {
		c.head = n.next
	}
	if n.next != 0 {
		c.at(n.next).prev = n.prev
	} else {
		c.tail = n.prev
	}
	n.prev, n.next = 0, 0
}

// AllocSize is about what the allocator takes for n bytes: small objects
// are rounded up to a size class, large ones to pages. What the caches
// count is what their entries cost on the heap, so that their bounds bound
// the edge's memory.
func AllocSize[N int | int64](n N) int64 {
	x := int64(n)
	switch {
	case x <= 0:
		return 0
	case x <= 8:
		return 8
	case x <= 1024:
		return (x + 15) &^ 15
	case x <= 32<<10:
		return (x + 127) &^ 127
	}
	return (x + 8191) &^ 8191
}
