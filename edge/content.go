package edge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
)

// site is one published build as the edge serves it: the manifest plus
// maps for the lookups a request needs. Requests load the pointer once and
// keep using that build to the end, so a build swap never mixes two builds
// in one response.
type site struct {
	build    string
	manifest *publish.Manifest
	bibles   map[int32]*bibleView
	catalog  catalogSlot // the catalogues, built with the site (catalog.go)
	aids     aidsSlot    // each language's topics and suggestions (search_lang.go)
}

type bibleView struct {
	id    int32
	entry *publish.BibleEntry
	books map[string]*bookView

	mu    sync.Mutex
	index *bible.Index // decoded on first need (range composition)

	searchMu sync.Mutex // held while the search index loads
	search   atomic.Pointer[search.Index]
}

type bookView struct {
	entry    *publish.BookEntry
	chapters map[string]*publish.ChapterEntry
}

func newSite(build string, m *publish.Manifest) *site {
	s := &site{build: build, manifest: m, bibles: make(map[int32]*bibleView, len(m.Bibles))}
	for i := range m.Bibles {
		be := &m.Bibles[i]
		bv := &bibleView{id: be.ID, entry: be, books: make(map[string]*bookView, len(be.Books))}
		for j := range be.Books {
			ke := &be.Books[j]
			kv := &bookView{entry: ke, chapters: make(map[string]*publish.ChapterEntry, len(ke.Chapters))}
			for k := range ke.Chapters {
				kv.chapters[ke.Chapters[k].ID] = &ke.Chapters[k]
			}
			bv.books[string(ke.ID)] = kv
		}
		s.bibles[be.ID] = bv
	}
	return s
}

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
	v := &packView{pack: p, res: make(map[string]*resource, len(p.Entries)), size: int64(len(data))}
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
	return v, nil
}

// raw returns an internal entry's bytes (identity), e.g. "segments".
func (v *packView) raw(name string) ([]byte, bool) {
	e := v.pack.Entry(name)
	if e == nil || len(e.Reps) == 0 {
		return nil, false
	}
	return v.pack.Body(&e.Reps[0]), true
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

	// The load is not tied to one request's context: others wait on it.
	lctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
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

// bibleIndex returns the Bible's decoded index, from its pack.
func (s *Server) bibleIndex(ctx context.Context, bv *bibleView) (*bible.Index, error) {
	bv.mu.Lock()
	defer bv.mu.Unlock()
	if bv.index != nil {
		return bv.index, nil
	}
	// By entry, not by pack: the Bible's pack holds every book list too
	// and is large enough to be read by ranges.
	r, err := s.packs.entry(ctx, bv.entry.Pack, []byte(publish.NameIndex))
	if err != nil {
		return nil, err
	}
	if r == nil || r.avail&(1<<codingIdentity) == 0 {
		return nil, fmt.Errorf("bible %d: pack has no index", bv.id)
	}
	b := r.reps[codingIdentity].body
	var idx bible.Index
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("bible %d: decode index: %w", bv.id, err)
	}
	bv.index = &idx
	return bv.index, nil
}

// BuildWatcher follows the store's current pointer and swaps builds in.
type BuildWatcher struct {
	Store    publish.Store
	Server   *Server
	Interval time.Duration
	Log      *slog.Logger

	restoreTried bool // the saved build is read at most once per process
}

// Check loads the current build if it is not the one being served. Its
// requests tell the server whether the store answers (readiness).
//
// When the store cannot be read and nothing is served yet (an edge
// starting during an outage), the build saved in the disk cache is
// served instead, and the error is still returned: later checks switch
// to the store's current build once it answers.
func (w *BuildWatcher) Check(ctx context.Context) error {
	err := w.check(ctx)
	if err != nil && !publish.IsNotExist(err) && ctx.Err() == nil && !w.restoreTried {
		w.restoreTried = true
		if id, ok := w.Server.restoreBuild(); ok {
			w.Log.Warn("object store unreachable; serving the build saved in the disk cache until it answers", "build", id, "err", err)
		}
	}
	return err
}

func (w *BuildWatcher) check(ctx context.Context) error {
	store := observedStore{w.Store, &w.Server.health}
	id, err := store.Current(ctx)
	if err != nil {
		return fmt.Errorf("read current build: %w", err)
	}
	if cur := w.Server.site.Load(); cur != nil && cur.build == id {
		return nil
	}
	m, err := publish.LoadManifest(ctx, store, id)
	if err != nil {
		return err
	}
	w.Server.SetBuild(id, m)
	w.Server.saveBuild(id, m)
	w.Log.Info("serving build", "build", id, "bibles", len(m.Bibles))
	return nil
}

// Run checks every Interval until ctx ends.
func (w *BuildWatcher) Run(ctx context.Context) {
	t := time.NewTicker(w.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := w.Check(ctx); err != nil && !publish.IsNotExist(err) {
				w.Log.Warn("build check failed; serving the previous build", "err", err)
			}
		}
	}
}
