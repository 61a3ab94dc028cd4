package dynamic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/publish"
)

// License is a published licence.
type License = publish.License

// Content reads what dynamic needs from the published content (Bible
// indexes to check passage ids, licences) and keeps it in memory per build.
// It looks at the store's current pointer at most every Refresh, so a new
// build is seen within that time.
type Content struct {
	Store   publish.Store
	Refresh time.Duration

	mu       sync.Mutex
	checked  time.Time
	build    string
	manifest *publish.Manifest
	indexes  map[int32]*bible.Index
	licenses []License
	loaded   bool // licences loaded for build
}

// NewContent reads from store.
func NewContent(store publish.Store) *Content {
	return &Content{Store: store, Refresh: 2 * time.Second}
}

// current returns the manifest of the current build, reloading it when the
// pointer moved. Call with c.mu held.
func (c *Content) current(ctx context.Context) (*publish.Manifest, error) {
	if c.manifest != nil && time.Since(c.checked) < c.Refresh {
		return c.manifest, nil
	}
	id, err := c.Store.Current(ctx)
	if publish.IsNotExist(err) {
		// Nothing published yet: no Bibles, no licences.
		id, err = "", nil
	}
	if err != nil {
		if c.manifest != nil {
			return c.manifest, nil // keep serving the last build we saw
		}
		return nil, fmt.Errorf("content: current build: %w", err)
	}
	c.checked = time.Now()
	if id == c.build && c.manifest != nil {
		return c.manifest, nil
	}
	m := &publish.Manifest{}
	if id != "" {
		if m, err = publish.LoadManifest(ctx, c.Store, id); err != nil {
			return nil, fmt.Errorf("content: %w", err)
		}
	}
	c.build, c.manifest = id, m
	c.indexes = make(map[int32]*bible.Index)
	c.licenses, c.loaded = nil, false
	return m, nil
}

// Build returns the id of the current build.
func (c *Content) Build(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.current(ctx); err != nil {
		return "", err
	}
	return c.build, nil
}

// Index returns a Bible's index; ErrNotFound for a Bible the build lacks.
func (c *Content) Index(ctx context.Context, id int32) (*bible.Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	if x, ok := c.indexes[id]; ok {
		return x, nil
	}
	e := m.Bible(id)
	if e == nil {
		return nil, fmt.Errorf("bible %d: %w", id, ErrNotFound)
	}
	p, err := publish.LoadPack(ctx, c.Store, e.Pack)
	if err != nil {
		return nil, fmt.Errorf("content: bible %d: %w", id, err)
	}
	var x bible.Index
	if err := decodeEntry(p, publish.NameIndex, &x); err != nil {
		return nil, fmt.Errorf("content: bible %d: %w", id, err)
	}
	c.indexes[id] = &x
	return &x, nil
}

// Licenses returns the published licences, sorted by id as the build wrote
// them. A build without a site pack has none.
func (c *Content) Licenses(ctx context.Context) ([]License, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	if c.loaded {
		return c.licenses, nil
	}
	var ls []License
	if m.Site != nil {
		p, err := publish.LoadPack(ctx, c.Store, *m.Site)
		if err != nil {
			return nil, fmt.Errorf("content: site pack: %w", err)
		}
		if err := decodeEntry(p, publish.NameLicenses, &ls); err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("content: %w", err)
		}
	}
	c.licenses, c.loaded = ls, true
	return ls, nil
}

func decodeEntry(p *publish.Pack, name string, v any) error {
	e := p.Entry(name)
	if e == nil || len(e.Reps) == 0 {
		return fmt.Errorf("pack entry %q: %w", name, ErrNotFound)
	}
	// Reps[0] is identity (publish.Entry).
	if err := json.Unmarshal(p.Body(&e.Reps[0]), v); err != nil {
		return fmt.Errorf("pack entry %q: %w", name, err)
	}
	return nil
}
