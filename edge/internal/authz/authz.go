package authz

import (
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
)

// Authz holds what authorising a request uses: the access table in force,
// the apps' limiters (kept across snapshots), the id-only allowance, the
// proxies whose forwarding headers are believed, and the clock.
type Authz struct {
	limiters *limiters
	idOnly   *addrLimiters
	trusted  []netip.Prefix
	now      func(*fasthttp.RequestCtx) time.Time

	table       atomic.Pointer[Table]
	seen        atomic.Int64 // unix ns when the source last confirmed the snapshot
	rateLimited atomic.Uint64
}

// Config is what New needs. Rates are already defaulted by the caller.
type Config struct {
	DefaultRate access.Rate // for apps without their own
	Edges       int         // edges sharing each app's allowance
	IDOnlyRate  access.Rate // per client address, for requests naming an app by id only
	// TrustedProxies are the peers whose X-Forwarded-* fields are believed.
	TrustedProxies []netip.Prefix
	// Now is the time a request is judged by (rate limits).
	Now func(*fasthttp.RequestCtx) time.Time
	// Clock reads the clock Now reads, outside a request: a new
	// snapshot's allowances take effect at its time. time.Now when nil.
	Clock func() time.Time
}

// New returns an Authz with no access table yet (Table is nil until Set).
func New(cfg Config) *Authz {
	clock := cfg.Clock
	if clock == nil {
		clock = time.Now
	}
	return &Authz{
		limiters: &limiters{byApp: make(map[string]*limiter), def: cfg.DefaultRate, share: cfg.Edges, now: clock},
		idOnly:   newAddrLimiters(cfg.IDOnlyRate),
		trusted:  cfg.TrustedProxies,
		now:      cfg.Now,
	}
}

// Set compiles snap and puts it in force; requests in flight finish on the
// table they started with.
func (a *Authz) Set(snap *access.Snapshot) error {
	t, err := a.limiters.compile(snap)
	if err != nil {
		return err
	}
	a.table.Store(t)
	a.Confirmed()
	return nil
}

// Clear drops the table in force, as before the first snapshot.
func (a *Authz) Clear() { a.table.Store(nil) }

// Confirmed notes that the access source confirmed the table in force.
func (a *Authz) Confirmed() { a.seen.Store(time.Now().UnixNano()) }

// Table is the access table in force; nil before the first snapshot.
func (a *Authz) Table() *Table { return a.table.Load() }

// ConfirmedAt is when the source last confirmed the table (zero: never).
func (a *Authz) ConfirmedAt() time.Time {
	if t := a.seen.Load(); t != 0 {
		return time.Unix(0, t)
	}
	return time.Time{}
}

// RateLimited is how many requests were refused with 429.
func (a *Authz) RateLimited() uint64 { return a.rateLimited.Load() }

// TrustedPeer reports whether the request's peer is a trusted proxy.
func (a *Authz) TrustedPeer(ctx *fasthttp.RequestCtx) bool {
	ip, ok := netip.AddrFromSlice(ctx.RemoteIP())
	if !ok {
		return false
	}
	ip = ip.Unmap()
	for _, p := range a.trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
