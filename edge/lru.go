package edge

import (
	"sync"
	"unsafe"

	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/edge/internal/represent"
)

// lru is a cache bounded by the total size of its values, evicting the least
// recently used. Get does not allocate, so the hot path can use it.
type lru[V comparable] struct {
	mu         sync.Mutex
	max, used  int64
	items      map[string]*lruNode[V]
	head, tail *lruNode[V] // head is the most recently used
	clock      uint64      // counts moves to the front
	hits, miss metrics.HotCounter

	// kept and dropped, when set, are told of every value the cache takes
	// in and lets go (evicted or replaced), under the cache's lock.
	// referenced, when set,
	// reports and clears whether a value was used by a way around get
	// since it was last asked (packs.go, packSlot): such a value at the
	// tail goes back to the front instead of out, once per pass.
	kept, dropped func(V)
	referenced    func(V) bool
}

type lruNode[V comparable] struct {
	key        string
	val        V
	size       int64
	stamp      uint64 // clock when last moved to the front
	prev, next *lruNode[V]
}

func newLRU[V comparable](maxBytes int64) *lru[V] {
	return &lru[V]{max: maxBytes, items: make(map[string]*lruNode[V])}
}

// get returns the value under key. The key may be a string converted from
// bytes at the call site: the map index does not allocate.
func (c *lru[V]) get(key string) (V, bool) {
	c.mu.Lock()
	n, ok := c.items[key]
	if ok {
		c.moveFront(n)
	}
	c.mu.Unlock()
	if !ok {
		c.miss.Inc()
		var zero V
		return zero, false
	}
	c.hits.Inc()
	return n.val, true
}

// find looks up a key held in bytes and counts a hit but not a miss, for a
// caller that looks before it knows whether the request is one the cache
// serves, and counts the miss itself (missed) once it does.
func (c *lru[V]) find(key []byte) (V, bool) {
	c.mu.Lock()
	n, ok := c.items[string(key)]
	if ok {
		c.moveFront(n)
	}
	c.mu.Unlock()
	if !ok {
		var zero V
		return zero, false
	}
	c.hits.Inc()
	return n.val, true
}

// missed counts a miss for a lookup made with find.
func (c *lru[V]) missed() { c.miss.Inc() }

// cost is what an entry of a value of size bytes takes: the value, its key,
// the list node and the map slot. The cache counts it, so that its bound
// is on memory.
func (c *lru[V]) cost(key string, size int64) int64 {
	return size + represent.AllocSize(len(key)) + represent.AllocSize(int64(unsafe.Sizeof(lruNode[V]{}))) + mapEntryCost
}

// add stores val, whose own size is size. A value larger than the whole
// cache is not kept: it would only evict everything else.
func (c *lru[V]) add(key string, val V, size int64) {
	size = c.cost(key, size)
	if size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.items[key]; ok {
		c.used += size - n.size
		old := n.val
		n.val, n.size = val, size
		c.moveFront(n)
		if c.dropped != nil && old != val {
			c.dropped(old)
		}
	} else {
		n := &lruNode[V]{key: key, val: val, size: size}
		c.items[key] = n
		c.used += size
		c.pushFront(n)
	}
	if c.kept != nil {
		c.kept(val)
	}
	c.evict()
}

func (c *lru[V]) evict() {
	chances := len(c.items)
	for c.used > c.max && c.tail != nil {
		old := c.tail
		if c.referenced != nil && chances > 0 && c.referenced(old.val) {
			chances--
			c.unlink(old)
			c.pushFront(old)
			continue
		}
		c.unlink(old)
		delete(c.items, old.key)
		c.used -= old.size
		if c.dropped != nil {
			c.dropped(old.val)
		}
	}
}

// peek returns the value under key without counting a hit or a miss or
// changing its recency: for a loader checking again under its own lock.
func (c *lru[V]) peek(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.items[key]; ok {
		return n.val, true
	}
	var zero V
	return zero, false
}

// resize records that the value under key grew or shrank to size, if the
// entry still holds that value (is says so): a value that has been
// replaced or evicted meanwhile is not put back.
func (c *lru[V]) resize(key string, size int64, is func(V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.items[key]
	if !ok || !is(n.val) {
		return
	}
	size = c.cost(key, size)
	c.used += size - n.size
	n.size = size
	c.evict()
}

func (c *lru[V]) stats() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.used
}

// moveFront marks n as just used. A node moved to the front within the last
// quarter of the cache's moves is left where it is: it is far from eviction
// anyway, and relinking touches three nodes' memory on every hit of a hot
// entry.
func (c *lru[V]) moveFront(n *lruNode[V]) {
	if c.head == n || c.clock-n.stamp < uint64(len(c.items)/4) {
		return
	}
	c.unlink(n)
	c.pushFront(n)
}

func (c *lru[V]) pushFront(n *lruNode[V]) {
	c.clock++
	n.stamp = c.clock
	n.prev, n.next = nil, c.head
	if c.head != nil {
		c.head.prev = n
	}
	c.head = n
	if c.tail == nil {
		c.tail = n
	}
}

func (c *lru[V]) unlink(n *lruNode[V]) {
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		c.head = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else {
		c.tail = n.prev
	}
	n.prev, n.next = nil, nil
}
