package publish

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Followed is one build as a Follower holds it.
type Followed struct {
	ID       string
	Manifest *Manifest
}

// Follower follows a store's current build: the edge checks it on a timer
// and swaps builds in, dynamic checks it when its copy is older than it
// allows. Both get the same outage behaviour: the last good build is kept
// while the store cannot be read, and readers of the current build never
// wait behind a check of a store that does not answer. The zero Follower
// is ready once Store is set.
type Follower struct {
	Store Store

	cur     atomic.Pointer[Followed]
	checked atomic.Int64 // when the last check ended, Unix ns
	lastErr atomic.Pointer[error]
	busy    atomic.Bool // a Fresh check is under way
	first   sync.Mutex  // makes callers wait only while there is no build yet
}

// Current returns the build last loaded, nil before the first.
func (f *Follower) Current() *Followed { return f.cur.Load() }

// Keep adopts a build read some other way (the edge's saved copy, or one
// set directly), so that Check loads nothing while the store still points
// at it.
func (f *Follower) Keep(id string, m *Manifest) { f.cur.Store(&Followed{ID: id, Manifest: m}) }

// Check reads the current pointer and loads the manifest when it moved.
// changed reports a new build, which is then Current. On error the
// previous build stays Current; an empty store is an error for which
// IsNotExist holds.
func (f *Follower) Check(ctx context.Context) (b *Followed, changed bool, err error) {
	defer func() {
		f.checked.Store(time.Now().UnixNano())
		f.lastErr.Store(&err)
	}()
	id, err := f.Store.Current(ctx)
	if err != nil {
		return f.cur.Load(), false, fmt.Errorf("read current build: %w", err)
	}
	if cur := f.cur.Load(); cur != nil && cur.ID == id {
		return cur, false, nil
	}
	m, err := loadManifest(ctx, f.Store, id)
	if err != nil {
		return f.cur.Load(), false, err
	}
	b = &Followed{ID: id, Manifest: m}
	f.cur.Store(b)
	return b, true, nil
}

// Fresh returns the current build, checking the store first when the last
// check is older than maxAge. One caller checks at a time; the others get
// the last good build at once. Only while no build has been loaded yet do
// callers wait for a check, and they then share its answer (the error
// included) until maxAge has passed.
func (f *Follower) Fresh(ctx context.Context, maxAge time.Duration) (*Followed, error) {
	if cur := f.cur.Load(); cur != nil {
		if f.stale(maxAge) && f.busy.CompareAndSwap(false, true) {
			defer f.busy.Store(false)
			if b, _, err := f.Check(ctx); err == nil {
				return b, nil
			}
		}
		return f.cur.Load(), nil // the last good build
	}
	f.first.Lock()
	defer f.first.Unlock()
	if cur := f.cur.Load(); cur != nil {
		return cur, nil
	}
	if !f.stale(maxAge) {
		if p := f.lastErr.Load(); p != nil && *p != nil {
			return nil, *p
		}
	}
	b, _, err := f.Check(ctx)
	if err != nil {
		return nil, err
	}
	return b, nil
}

func (f *Follower) stale(maxAge time.Duration) bool {
	return time.Since(time.Unix(0, f.checked.Load())) >= maxAge
}
