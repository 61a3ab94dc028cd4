package edge

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// packView is a decoded pack with its entries ready to serve: the whole
// pack, or (partial != nil) only its header, with the entries fetched so
// far by ranged reads.
type packView struct {
	// A hit reads used and the index: they come first, in one line.

	// used is set by requests that found the view in a packSlot, which
	// the cache's recency does not see; the cache gives such a view a
	// second chance before evicting it (referenced).
	used  atomic.Bool
	index entryIndex // every entry; empty when partial

	pack    *publish.Pack
	size    int64
	partial *partialPack

	slotsMu sync.Mutex
	slots   []*packSlot // the slots holding this view
	cached  bool        // in the pack cache: only then may a slot take it

	// 192 bytes in all, an allocation size class of whole cache lines, so
	// that the view starts a line and its first line is the hit's one.
	_ [48]byte
}

// packSlot keeps a whole pack in memory for the requests of one chapter,
// so that they skip the pack cache's map lookup and lock. It holds only
// what the cache holds: a view is put in a slot only while cached (a pack
// too large for the cache never is), and the cache empties the view's
// slots when it evicts it (packView.drop), so the cache's bound stays the
// bound on memory.
type packSlot = atomic.Pointer[packView]

// touch marks v used, writing only when it was not: a hot pack's line
// stays shared between cores.
func (v *packView) touch() {
	if !v.used.Load() {
		v.used.Store(true)
	}
}

// attach puts v in slot, if v is in the cache.
func (v *packView) attach(slot *packSlot) {
	v.slotsMu.Lock()
	defer v.slotsMu.Unlock()
	if !v.cached || slot.Load() == v {
		return
	}
	slot.Store(v)
	v.slots = append(v.slots, slot)
}

// keep is the cache taking v in.
func (v *packView) keep() {
	v.slotsMu.Lock()
	v.cached = true
	v.slotsMu.Unlock()
}

// drop is the cache letting v go: every slot holding v lets it go.
func (v *packView) drop() {
	v.slotsMu.Lock()
	defer v.slotsMu.Unlock()
	v.cached = false
	for _, s := range v.slots {
		s.CompareAndSwap(v, nil)
	}
	v.slots = nil
}

func newPackView(data []byte, ref publish.PackRef) (*packView, error) {
	p, err := publish.DecodePack(data)
	if err != nil {
		return nil, fmt.Errorf("decode pack %s: %w", ref.Key, err)
	}
	// The object's buffer holds every body; the decoded header and the
	// resources are the rest.
	return packViewOf(p, represent.AllocSize(cap(data))+headerCost(p), ref), nil
}

// packViewOf prepares the entries of a decoded pack of size bytes.
func packViewOf(p *publish.Pack, size int64, ref publish.PackRef) *packView {
	v := &packView{pack: p, index: newEntryIndex(p, ref.Modified), size: size}
	// Bodies are slices of data, already counted; the names are the
	// entries' own strings; the rest is the index's two slices.
	x := &v.index
	v.size += represent.AllocSize(int64(len(x.res))*int64(unsafe.Sizeof(represent.Resource{}))) +
		represent.AllocSize(int64(len(x.names.slots))*int64(unsafe.Sizeof(nameSlot{})))
	return v
}

// What the caches count is what their entries cost on the heap, so that
// their bounds bound the edge's memory: every allocation rounded up to its
// size class, the maps' slots, the decoded pack header. TestCacheAccounting
// and TestPackCacheAccounting hold the figures within 10 % of the heap's
// growth.

// mapEntryCost is a map slot of a string key and a pointer value, with the
// spare room a map keeps.
const mapEntryCost = 48

// headerCost is what a decoded pack header takes besides the bodies: the
// entries (a slice grown while decoding), each entry's strings and
// representations, and the by-name index.
func headerCost(p *publish.Pack) int64 {
	n := represent.AllocSize(int64(cap(p.Entries)) * int64(unsafe.Sizeof(publish.Entry{})))
	for i := range p.Entries {
		e := &p.Entries[i]
		n += represent.AllocSize(len(e.Name)) + represent.AllocSize(len(e.Type)) + mapEntryCost +
			represent.AllocSize(int64(cap(e.Reps))*int64(unsafe.Sizeof(publish.Rep{})))
		for _, r := range e.Reps {
			n += represent.AllocSize(len(r.Encoding)) + represent.AllocSize(len(r.ETag))
		}
	}
	return n
}

// packs holds packs in tiers: decoded in a bounded memory LRU, whole on a
// bounded local disk (optional), and in the store. A miss loads once
// however many requests want the pack at the same moment. Large packs not
// cached are read by ranges: the header, then only the entries asked for
// (see storecache.go).
type packs struct {
	store    publish.Store // observed: its errors feed readiness and metrics
	cache    *lru[*packView]
	disk     *diskCache // nil when off
	wholeMax int64      // packs up to this size are fetched whole; 0: always whole
	tiers    tierCounters

	mu     sync.Mutex
	flight flights[*packView]
}

func newPacks(store publish.Store, maxBytes int64) *packs {
	c := newLRU[*packView](maxBytes)
	c.kept, c.dropped = (*packView).keep, (*packView).drop
	c.referenced = func(v *packView) bool { return v.used.Swap(false) }
	return &packs{store: store, cache: c, flight: make(flights[*packView])}
}

// storeLoadTimeout bounds one load from the store (a pack, a header or an
// entry). A load is shared by every request waiting for it, so it is not
// tied to any one request's context.
const storeLoadTimeout = 30 * time.Second

// get returns the whole pack.
func (p *packs) get(ctx context.Context, ref publish.PackRef) (*packView, error) {
	if v, ok := p.cache.get(ref.Key); ok && v.partial == nil {
		p.tiers.memory.Inc()
		return v, nil
	}
	return p.load(ctx, ref, ref.Key, p.loadWhole)
}

// load runs fn for ref once for all callers asking under the same flight
// key at the same time, and caches a successful result in memory.
func (p *packs) load(ctx context.Context, ref publish.PackRef, flight string,
	fn func(context.Context, publish.PackRef) (*packView, error)) (*packView, error) {
	p.mu.Lock()
	if v, ok := p.cache.peek(ref.Key); ok && (v.partial == nil || flight != ref.Key) {
		// Loaded by someone else since the caller looked.
		p.mu.Unlock()
		return v, nil
	}
	c, lead := p.flight.join(flight)
	p.mu.Unlock()
	if !lead {
		return c.wait(ctx)
	}

	lctx, cancel := context.WithTimeout(context.Background(), storeLoadTimeout)
	c.val, c.err = fn(lctx, ref)
	cancel()
	if c.err == nil {
		p.cache.add(ref.Key, c.val, c.val.size)
	}
	p.mu.Lock()
	delete(p.flight, flight)
	p.mu.Unlock()
	c.land()
	return c.val, c.err
}

// loadWhole reads a whole pack from the disk cache, else from the store
// (and then keeps it on disk).
func (p *packs) loadWhole(ctx context.Context, ref publish.PackRef) (*packView, error) {
	if data, ok := p.disk.get(ref.Key); ok {
		if ref.Size <= 0 || int64(len(data)) == ref.Size {
			if v, err := newPackView(data, ref); err == nil {
				p.tiers.disk.Inc()
				return v, nil
			}
		}
		// Damaged on disk: forget it and fetch it again.
		p.disk.remove(ref.Key)
	}
	data, err := p.store.Get(ctx, ref.Key)
	if err != nil {
		return nil, fmt.Errorf("load pack %s: %w", ref.Key, err)
	}
	p.tiers.store.Inc()
	v, err := newPackView(data, ref)
	if err != nil {
		return nil, err
	}
	// A full or read-only disk costs warmth, not answers: the error is
	// counted in the disk cache's metrics.
	p.disk.put(ref.Key, data)
	return v, nil
}
