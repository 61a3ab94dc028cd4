package dynamic

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/publish"
)

// License is a published licence.
type License = publish.License

// Published is what dynamic reads from the published content: the id of
// the current build (the access snapshot names it), a Bible's index (to
// check and expand passage ids) and the licences. Content implements it
// over a store.
type Published interface {
	Build(ctx context.Context) (string, error)
	Index(ctx context.Context, bibleID int32) (*bible.Index, error)
	Licenses(ctx context.Context) ([]License, error)
	// Ready reads the store's current build now, whatever was read
	// last, and returns its id: an error says the store cannot be read
	// or has nothing published.
	Ready(ctx context.Context) (string, error)
}

// Content reads what dynamic needs from the published content and keeps
// it in memory per build. It follows the store's current build with
// publish.Follower, looking at the pointer at most every Refresh, so a new
// build is seen within that time; while the store cannot be read it keeps
// answering from the last build it saw.
type Content struct {
	Refresh time.Duration
	follow  publish.Follower

	mu       sync.Mutex // guards the per-build caches below, never held over a store read
	build    string
	indexes  map[int32]*bible.Index
	licenses []License
	loaded   bool // licences loaded for build
}

var _ Published = (*Content)(nil)

// NewContent reads from store.
func NewContent(store publish.Store) *Content {
	c := &Content{Refresh: 2 * time.Second}
	c.follow.Store = store
	return c
}

// current returns the current build; nothing published yet is an empty
// build with id "" (no Bibles, no licences).
func (c *Content) current(ctx context.Context) (*publish.Followed, error) {
	b, err := c.follow.Fresh(ctx, c.Refresh)
	if publish.IsNotExist(err) {
		return &publish.Followed{Manifest: &publish.Manifest{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	return b, nil
}

// caches switches the caches to build, emptying them when it changed.
// Call with c.mu held.
func (c *Content) caches(build string) {
	if c.build != build || c.indexes == nil {
		c.build = build
		c.indexes = make(map[int32]*bible.Index)
		c.licenses, c.loaded = nil, false
	}
}

// Ready checks the store now (a read of its current pointer, and of the
// manifest when the build moved), so a store that stopped answering is
// seen even while requests are served from the last build read.
func (c *Content) Ready(ctx context.Context) (string, error) {
	if _, err := c.follow.Store.Current(ctx); publish.IsNotExist(err) {
		return "", errors.New("nothing is published in the content store yet")
	}
	b, _, err := c.follow.Check(ctx)
	if err != nil {
		return "", fmt.Errorf("content store: %w", err)
	}
	return b.ID, nil
}

// Build returns the id of the current build.
func (c *Content) Build(ctx context.Context) (string, error) {
	b, err := c.current(ctx)
	if err != nil {
		return "", err
	}
	return b.ID, nil
}

// Index returns a Bible's index; ErrNotFound for a Bible the build lacks.
func (c *Content) Index(ctx context.Context, id int32) (*bible.Index, error) {
	b, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.caches(b.ID)
	x, ok := c.indexes[id]
	c.mu.Unlock()
	if ok {
		return x, nil
	}
	e := b.Manifest.Bible(id)
	if e == nil {
		return nil, fmt.Errorf("bible %d: %w", id, ErrNotFound)
	}
	p, err := publish.LoadPack(ctx, c.follow.Store, e.Pack)
	if err != nil {
		return nil, fmt.Errorf("content: bible %d: %w", id, err)
	}
	x = new(bible.Index)
	if err := p.Decode(publish.NameIndex, x); err != nil {
		return nil, fmt.Errorf("content: bible %d: %w", id, err)
	}
	c.mu.Lock()
	c.caches(b.ID)
	c.indexes[id] = x
	c.mu.Unlock()
	return x, nil
}

// Licenses returns the published licences, sorted by id as the build wrote
// them. A build without a site pack has none.
func (c *Content) Licenses(ctx context.Context) ([]License, error) {
	b, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.caches(b.ID)
	ls, ok := c.licenses, c.loaded
	c.mu.Unlock()
	if ok {
		return ls, nil
	}
	ls = nil
	if site := b.Manifest.Site; site != nil {
		p, err := publish.LoadPack(ctx, c.follow.Store, *site)
		if err != nil {
			return nil, fmt.Errorf("content: site pack: %w", err)
		}
		if err := p.Decode(publish.NameLicenses, &ls); err != nil && !errors.Is(err, publish.ErrNoEntry) {
			return nil, fmt.Errorf("content: %w", err)
		}
	}
	c.mu.Lock()
	c.caches(b.ID)
	c.licenses, c.loaded = ls, true
	c.mu.Unlock()
	return ls, nil
}
