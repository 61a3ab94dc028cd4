package edge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"
	"unsafe"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/publish"
)

// site is one published build as the edge serves it: the manifest plus
// maps for the lookups a request needs. Requests load the pointer once and
// keep using that build to the end, so a build swap never mixes two builds
// in one response.
type site struct {
	build    string
	manifest *publish.Manifest
	bibles   map[int32]*bibleView
}

type bibleView struct {
	id    int32
	entry *publish.BibleEntry
	books map[string]*bookView

	mu    sync.Mutex
	index *bible.Index // decoded on first need (range composition)
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

// packView is a decoded pack with its entries ready to serve.
type packView struct {
	pack *publish.Pack
	res  map[string]*resource
	size int64
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

// packs is the bounded cache of decoded packs, loading misses from the
// store once however many requests want them at the same moment.
type packs struct {
	store  publish.Store
	cache  *lru[*packView]
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

func (p *packs) get(ctx context.Context, ref publish.PackRef) (*packView, error) {
	if v, ok := p.cache.get(ref.Key); ok {
		return v, nil
	}
	p.mu.Lock()
	if c, ok := p.flight[ref.Key]; ok {
		p.mu.Unlock()
		select {
		case <-c.done:
			return c.v, c.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c := &packCall{done: make(chan struct{})}
	p.flight[ref.Key] = c
	p.mu.Unlock()

	// The load is not tied to one request's context: others wait on it.
	lctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	data, err := p.store.Get(lctx, ref.Key)
	cancel()
	if err == nil {
		c.v, err = newPackView(data, ref)
	} else {
		err = fmt.Errorf("load pack %s: %w", ref.Key, err)
	}
	c.err = err
	if err == nil {
		p.cache.add(ref.Key, c.v, c.v.size)
	}
	p.mu.Lock()
	delete(p.flight, ref.Key)
	p.mu.Unlock()
	close(c.done)
	return c.v, c.err
}

// bibleIndex returns the Bible's decoded index, from its pack.
func (s *Server) bibleIndex(ctx context.Context, bv *bibleView) (*bible.Index, error) {
	bv.mu.Lock()
	defer bv.mu.Unlock()
	if bv.index != nil {
		return bv.index, nil
	}
	pv, err := s.packs.get(ctx, bv.entry.Pack)
	if err != nil {
		return nil, err
	}
	b, ok := pv.raw(publish.NameIndex)
	if !ok {
		return nil, fmt.Errorf("bible %d: pack has no index", bv.id)
	}
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
}

// Check loads the current build if it is not the one being served.
func (w *BuildWatcher) Check(ctx context.Context) error {
	id, err := w.Store.Current(ctx)
	if err != nil {
		return fmt.Errorf("read current build: %w", err)
	}
	if cur := w.Server.site.Load(); cur != nil && cur.build == id {
		return nil
	}
	m, err := publish.LoadManifest(ctx, w.Store, id)
	if err != nil {
		return err
	}
	w.Server.SetBuild(id, m)
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
