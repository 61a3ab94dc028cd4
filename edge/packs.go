package edge

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/bibleplatform/platform/publish"
)

// packView is a decoded pack with its entries ready to serve: the whole
// pack, or (partial != nil) only its header, with the entries fetched so
// far by ranged reads.
type packView struct {
	pack    *publish.Pack
	res     map[string]*resource // every entry; unused when partial
	size    int64
	partial *partialPack
}

func newPackView(data []byte, ref publish.PackRef) (*packView, error) {
	p, err := publish.DecodePack(data)
	if err != nil {
		return nil, fmt.Errorf("decode pack %s: %w", ref.Key, err)
	}
	return packViewOf(p, int64(len(data)), ref), nil
}

// packViewOf prepares the entries of a decoded pack of size bytes.
func packViewOf(p *publish.Pack, size int64, ref publish.PackRef) *packView {
	v := &packView{pack: p, res: make(map[string]*resource, len(p.Entries)), size: size}
	in := make(interner)
	for i := range p.Entries {
		e := &p.Entries[i]
		r := newResource(p, e, ref.Modified, in)
		v.res[e.Name] = r
		// Bodies are slices of data, already counted.
		v.size += int64(unsafe.Sizeof(*r)) + int64(2*len(e.Name)) + 64
		for _, x := range r.reps {
			v.size += int64(2 * len(x.etag))
		}
	}
	return v
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
	flight map[string]*packCall
}

type packCall struct {
	done chan struct{}
	v    *packView
	err  error
}

func newPacks(store publish.Store, maxBytes int64) *packs {
	return &packs{store: store, cache: newLRU[*packView](maxBytes), flight: make(map[string]*packCall)}
}

// storeLoadTimeout bounds one load from the store (a pack, a header or an
// entry). A load is shared by every request waiting for it, so it is not
// tied to any one request's context.
const storeLoadTimeout = 30 * time.Second

// get returns the whole pack.
func (p *packs) get(ctx context.Context, ref publish.PackRef) (*packView, error) {
	if v, ok := p.cache.get(ref.Key); ok && v.partial == nil {
		p.tiers.memory.inc()
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
	if c, ok := p.flight[flight]; ok {
		p.mu.Unlock()
		select {
		case <-c.done:
			return c.v, c.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c := &packCall{done: make(chan struct{})}
	p.flight[flight] = c
	p.mu.Unlock()

	lctx, cancel := context.WithTimeout(context.Background(), storeLoadTimeout)
	c.v, c.err = fn(lctx, ref)
	cancel()
	if c.err == nil {
		p.cache.add(ref.Key, c.v, c.v.size)
	}
	p.mu.Lock()
	delete(p.flight, flight)
	p.mu.Unlock()
	close(c.done)
	return c.v, c.err
}

// loadWhole reads a whole pack from the disk cache, else from the store
// (and then keeps it on disk).
func (p *packs) loadWhole(ctx context.Context, ref publish.PackRef) (*packView, error) {
	if data, ok := p.disk.get(ref.Key); ok {
		if ref.Size <= 0 || int64(len(data)) == ref.Size {
			if v, err := newPackView(data, ref); err == nil {
				p.tiers.disk.inc()
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
	p.tiers.store.inc()
	v, err := newPackView(data, ref)
	if err != nil {
		return nil, err
	}
	// A full or read-only disk costs warmth, not answers: the error is
	// counted in the disk cache's metrics.
	p.disk.put(ref.Key, data)
	return v, nil
}
