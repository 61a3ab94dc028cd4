// Package authz decides whether a request may be answered: the compiled
// access snapshot (apps by key hash and id, licences, open Bibles), the
// cache of verified keys, the apps' rate limits and the id-only allowance
// per client address, and the licence check of a Bible's text. Authorize is
// the one entry point of the key, status and rate checks; CheckLicence is
// the licence decision, taken once a route knows the Bible.
package authz

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/valyala/fasthttp"
)

// App is one app as the hot path needs it: looked up by the SHA-256 of
// its key, with its licences in a set and its limiter.
type App struct {
	id       string
	name     string
	status   string
	archived bool
	bibles   map[int32]struct{}
	lim      *limiter
}

// Table is a compiled access snapshot. It is immutable once built;
// a refresh builds a new one and swaps the pointer.
type Table struct {
	version   int64
	generated time.Time
	byKey     map[[sha256.Size]byte]*App
	byID      map[string]*App
	open      map[int32]struct{}
	verified  verifiedKeys // keys found in byKey so far (keycache.go)
}

// Licensed reports whether app a may read Bible bibleID's text: the Bible
// is open, or among the app's licences.
func (t *Table) Licensed(a *App, bibleID int32) bool {
	if _, ok := t.open[bibleID]; ok {
		return true
	}
	_, ok := a.bibles[bibleID]
	return ok
}

// IsOpen reports whether Bible bibleID's text is open to every app, and so
// may sit in shared caches.
func (t *Table) IsOpen(bibleID int32) bool {
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
	// now is the time a snapshot's allowances take effect at, on the
	// requests' clock.
	now func() time.Time
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
	if lim, ok := l.byApp[app]; ok {
		lim.setRate(l.rateFor(r), l.now().UnixNano())
		return lim
	}
	lim := newLimiter(l.rateFor(r))
	l.byApp[app] = lim
	return lim
}

// forget drops the limiters of apps a snapshot no longer lists (deleted
// apps), so that the map does not grow with every app ever seen. An app
// that comes back starts with a whole allowance.
func (l *limiters) forget(live map[string]*App) {
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
func (l *limiters) compile(s *access.Snapshot) (*Table, error) {
	t := &Table{
		version:   s.Version,
		generated: s.Generated,
		byKey:     make(map[[sha256.Size]byte]*App),
		byID:      make(map[string]*App, len(s.Apps)),
		open:      make(map[int32]struct{}, len(s.OpenBibles)),
	}
	for _, id := range s.OpenBibles {
		t.open[id] = struct{}{}
	}
	for _, a := range s.Apps {
		e := &App{
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

// ID is the app's public id.
func (a *App) ID() string { return a.id }

// Archived reports whether the app is archived (its requests are refused).
func (a *App) Archived() bool { return a.archived }

// Version is the version of the snapshot t was compiled from.
func (t *Table) Version() int64 { return t.version }

// CheckLicence answers 403 and reports false when app may not read
// Bible bibleID's text (spec, passage rule 3; the message names the Bible,
// Errors 403). A route calls it once the request's values are known to be
// valid (422 first, docs/edge.md's order of checks) and before anything of
// the text is looked up or served.
func (t *Table) CheckLicence(ctx *fasthttp.RequestCtx, app *App, bibleID int32) bool {
	if t.Licensed(app, bibleID) {
		return true
	}
	respond.NotLicensed(ctx, bibleID)
	return false
}
