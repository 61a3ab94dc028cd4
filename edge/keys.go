package edge

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/bibleplatform/platform/access"
)

// appEntry is one app as the hot path needs it: looked up by the SHA-256 of
// its key, with its licences in a set and its limiter.
type appEntry struct {
	id       string
	name     string
	status   string
	archived bool
	bibles   map[int32]struct{}
	lim      *limiter
}

// accessTable is a compiled access snapshot. It is immutable once built;
// a refresh builds a new one and swaps the pointer.
type accessTable struct {
	version   int64
	generated time.Time
	byKey     map[[sha256.Size]byte]*appEntry
	byID      map[string]*appEntry
	open      map[int32]struct{}
	verified  verifiedKeys // keys found in byKey so far (keycache.go)
}

func (t *accessTable) licensed(a *appEntry, bibleID int32) bool {
	if _, ok := t.open[bibleID]; ok {
		return true
	}
	_, ok := a.bibles[bibleID]
	return ok
}

func (t *accessTable) isOpen(bibleID int32) bool {
	_, ok := t.open[bibleID]
	return ok
}

// limiters keeps each app's limiter across snapshots, so that a refresh
// (every few seconds) does not hand every app a fresh allowance.
type limiters struct {
	mu    sync.Mutex
	byApp map[string]*limiter
	def   access.Rate
	share int // edges sharing each app's allowance
}

// rateFor is the allowance this edge enforces for an app: the app's own or
// the default, divided by the number of edges (docs/edge.md).
func (l *limiters) rateFor(r access.Rate) access.Rate {
	if r.PerSecond <= 0 {
		r.PerSecond = l.def.PerSecond
	}
	if r.Burst <= 0 {
		r.Burst = l.def.Burst
	}
	n := max(l.share, 1)
	r.PerSecond /= float64(n)
	r.Burst = max(1, (r.Burst+n-1)/n)
	return r
}

func (l *limiters) get(app string, r access.Rate) *limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.byApp[app]
	if !ok {
		lim = new(limiter)
		l.byApp[app] = lim
	}
	lim.setRate(l.rateFor(r))
	return lim
}

// forget drops the limiters of apps a snapshot no longer lists (deleted
// apps), so that the map does not grow with every app ever seen. An app
// that comes back starts with a whole allowance.
func (l *limiters) forget(live map[string]*appEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id := range l.byApp {
		if _, ok := live[id]; !ok {
			delete(l.byApp, id)
		}
	}
}

// compile turns a validated snapshot into the lookup tables, and forgets
// the limiters of apps it no longer lists.
func (l *limiters) compile(s *access.Snapshot) (*accessTable, error) {
	t := &accessTable{
		version:   s.Version,
		generated: s.Generated,
		byKey:     make(map[[sha256.Size]byte]*appEntry),
		byID:      make(map[string]*appEntry, len(s.Apps)),
		open:      make(map[int32]struct{}, len(s.OpenBibles)),
	}
	for _, id := range s.OpenBibles {
		t.open[id] = struct{}{}
	}
	for _, a := range s.Apps {
		e := &appEntry{
			id: a.ID, name: a.Name, status: a.Status,
			archived: a.Status == access.StatusArchived,
			bibles:   make(map[int32]struct{}, len(a.Bibles)),
			lim:      l.get(a.ID, a.RateLimit),
		}
		for _, b := range a.Bibles {
			e.bibles[b] = struct{}{}
		}
		for _, k := range a.KeyHashes {
			h, err := access.ParseHash(k)
			if err != nil {
				return nil, fmt.Errorf("app %s: %w", a.ID, err)
			}
			t.byKey[h] = e
		}
		t.byID[a.ID] = e
	}
	l.forget(t.byID)
	return t, nil
}

// formatInt writes n into buf without allocating; the header setters copy.
func formatInt(buf *[20]byte, n int64) []byte { return strconv.AppendInt(buf[:0], n, 10) }
