package dynamic

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/wire/problem"
)

// accessFeed keeps the access snapshot the edges enforce, rebuilt whenever
// the database notifies a change (apps, keys, agreements: triggers bump a
// version and NOTIFY on commit) or the published build changes (licences
// decide which Bibles an agreement opens). Long-polling edges are woken at
// once, so a revoked key stops working everywhere within a round trip.
type accessFeed struct {
	db      AccessStore
	content Published
	log     *slog.Logger
	now     func() time.Time

	mu      sync.Mutex
	snap    []byte // JSON of the current snapshot
	version int64
	changed chan struct{} // closed and replaced on every new snapshot
	build   string        // content build the snapshot used

	// stop ends long polls when the server closes.
	stop <-chan struct{}

	kick     chan struct{}
	longPoll time.Duration
}

func newAccessFeed(db AccessStore, content Published, log *slog.Logger, now func() time.Time) *accessFeed {
	return &accessFeed{db: db, content: content, log: log, now: now,
		changed: make(chan struct{}), kick: make(chan struct{}, 1)}
}

// current returns the snapshot JSON, its version, and a channel closed when
// a newer one is ready.
func (f *accessFeed) current() ([]byte, int64, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snap, f.version, f.changed
}

// followedBuild is the content build the current snapshot used; "" before
// the first.
func (f *accessFeed) followedBuild() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.build
}

// rebuild reads the access data and publishes a new snapshot when its
// version moved.
func (f *accessFeed) rebuild(ctx context.Context) error {
	build, err := f.content.Build(ctx)
	if err != nil {
		return err
	}
	f.mu.Lock()
	oldBuild := f.build
	f.mu.Unlock()
	if oldBuild != "" && build != oldBuild {
		// New content may change which Bibles a licence covers: move the
		// version so that edges reload.
		if _, err := f.db.BumpAccessVersion(ctx); err != nil {
			return err
		}
	}
	d, err := f.db.AccessData(ctx)
	if err != nil {
		return err
	}
	lics, err := f.content.Licenses(ctx)
	if err != nil {
		return err
	}
	s := snapshot(d, lics, f.now())
	s.Build = build
	if err := s.Validate(); err != nil {
		return fmt.Errorf("access snapshot: %w", err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.build = build
	if d.Version <= f.version && f.snap != nil {
		return nil
	}
	f.snap, f.version = b, d.Version
	close(f.changed)
	f.changed = make(chan struct{})
	return nil
}

// snapshot assembles the edge's view: each app's Bibles are those of the
// licences its organization agreed to; open licences' Bibles are for all.
func snapshot(d *AccessData, lics []License, now time.Time) *access.Snapshot {
	byID := make(map[int]License, len(lics))
	s := &access.Snapshot{Version: d.Version, Generated: now.UTC(), Apps: []access.App{}}
	for _, l := range lics {
		byID[l.ID] = l
		if l.Open {
			s.OpenBibles = append(s.OpenBibles, l.BibleIDs...)
		}
	}
	s.OpenBibles = sortedUnique(s.OpenBibles)
	for _, a := range d.Apps {
		app := access.App{ID: a.ID, Name: a.Name, Status: a.Status, OrganizationID: a.OrganizationID,
			KeyHashes: a.KeyHashes, Bibles: []int32{},
			RateLimit: access.Rate{PerSecond: a.RatePerSecond, Burst: a.RateBurst}}
		if app.KeyHashes == nil {
			app.KeyHashes = []string{}
		}
		for _, id := range a.Licenses {
			app.Bibles = append(app.Bibles, byID[id].BibleIDs...)
		}
		app.Bibles = sortedUnique(app.Bibles)
		s.Apps = append(s.Apps, app)
	}
	return s
}

func sortedUnique(l []int32) []int32 {
	if l == nil {
		return []int32{}
	}
	slices.Sort(l)
	return slices.Compact(l)
}

// run keeps the snapshot current until ctx ends: it listens for database
// notifications, and also polls (every second) the version and the
// content build, which covers a lost LISTEN connection and new builds.
func (f *accessFeed) run(ctx context.Context, listening chan<- struct{}) {
	go func() {
		once := sync.Once{}
		for ctx.Err() == nil {
			err := f.db.ListenAccess(ctx, func() {
				once.Do(func() { close(listening) })
				f.poke() // catch changes made while not listening
			}, func(int64) { f.poke() })
			if ctx.Err() != nil {
				return
			}
			f.log.Warn("access: listen failed, retrying", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.kick:
		case <-tick.C:
			v, err := f.db.AccessVersion(ctx)
			_, cur, _ := f.current()
			b, berr := f.content.Build(ctx)
			f.mu.Lock()
			same := err == nil && berr == nil && v == cur && b == f.build
			f.mu.Unlock()
			if same {
				continue
			}
		}
		if err := f.rebuild(ctx); err != nil && ctx.Err() == nil {
			f.log.Error("access: rebuild snapshot", "err", err)
		}
	}
}

func (f *accessFeed) poke() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// serveAccess answers GET /internal/access[?version=N]: the snapshot at once
// when it is newer than N (or N is absent), else after the next change, or
// 304 Not Modified when nothing changed within f.longPoll.
func (f *accessFeed) serveAccess(ctx *fasthttp.RequestCtx) {
	have := int64(-1)
	if v := ctx.QueryArgs().Peek("version"); len(v) > 0 {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			validation(ctx, problem.NotInt("query", "version"))
			return
		}
		have = n
	}
	timer := time.NewTimer(f.longPoll)
	defer timer.Stop()
	for {
		snap, version, changed := f.current()
		if snap != nil && version > have {
			ctx.SetContentType("application/json")
			ctx.Response.Header.Set("Cache-Control", "no-store")
			ctx.Response.Header.Set("ETag", `"`+strconv.FormatInt(version, 10)+`"`)
			ctx.SetBody(snap)
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			ctx.SetStatusCode(http.StatusNotModified)
			ctx.Response.SkipBody = true
			return
		case <-f.stop:
			ctx.SetStatusCode(http.StatusServiceUnavailable)
			ctx.Response.SkipBody = true
			return
		}
	}
}
