package authz

import (
	"bytes"
	"net/netip"
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// idOnlyClients is how many client addresses the id-only allowance
// remembers, in two generations of half as many each.
const idOnlyClients = 1 << 16

// addrLimiters is the id-only allowance. The public id is no secret (the
// app's page and every browser URL of the flow show it), so requests that
// carry nothing else must not spend the allowance of the app's keys, or
// anyone could put an app's real users into 429. They are counted per
// client address instead (an IPv6 client per /64, what one subscriber
// gets), each address with a limiter of its own: no client ever shares
// another's, so addresses an attacker sprays cannot put an honest client
// into 429. Memory is bounded by forgetting by age: addresses live in a
// current generation and the one before; when the current one is full it
// becomes the previous and the oldest addresses are forgotten. A
// forgotten client starts again with a full allowance, which errs towards
// letting a request through, never towards refusing it. Keyed requests
// never come here.
type addrLimiters struct {
	rate access.Rate
	mu   sync.Mutex
	cur  map[[16]byte]*limiter
	prev map[[16]byte]*limiter
}

func newAddrLimiters(r access.Rate) *addrLimiters {
	return &addrLimiters{rate: r, cur: map[[16]byte]*limiter{}}
}

func (a *addrLimiters) forAddr(ip netip.Addr) *limiter {
	ip = ip.Unmap()
	if ip.Is6() {
		ip = netip.PrefixFrom(ip, 64).Masked().Addr()
	}
	k := ip.As16()
	a.mu.Lock()
	defer a.mu.Unlock()
	if l := a.cur[k]; l != nil {
		return l
	}
	l := a.prev[k]
	if l == nil {
		l = newLimiter(a.rate)
	}
	if len(a.cur) >= idOnlyClients/2 {
		a.prev, a.cur = a.cur, make(map[[16]byte]*limiter, idOnlyClients/2)
	}
	a.cur[k] = l
	return l
}

// ClientAddr is the address a request came from, as the id-only
// allowance counts it (see clientAddr).
func (a *Authz) ClientAddr(ctx *fasthttp.RequestCtx) netip.Addr { return a.clientAddr(ctx) }

// clientAddr is the address a request came from: the peer, or for a
// trusted proxy the last address it appended to X-Forwarded-For.
func (a *Authz) clientAddr(ctx *fasthttp.RequestCtx) netip.Addr {
	peer, _ := netip.AddrFromSlice(ctx.RemoteIP())
	if !a.TrustedPeer(ctx) {
		return peer
	}
	xff := ctx.Request.Header.Peek(wire.HeaderForwardedFor)
	if i := bytes.LastIndexByte(xff, ','); i >= 0 {
		xff = xff[i+1:]
	}
	if ip, err := netip.ParseAddr(string(bytes.TrimSpace(xff))); err == nil {
		return ip
	}
	return peer
}

// authorizeByID authorizes a request that names its app only by its
// public id (the browser data-exchange routes): 412 for an unknown or
// archived app, then the client address's id-only allowance (429, with
// the same headers as a key's). The id is public, so the user's approval
// is what dynamic checks, and these requests never spend the allowance of
// the app's keys.
func (a *Authz) authorizeByID(ctx *fasthttp.RequestCtx, adm *Admission, t *Table, id []byte) *App {
	app := t.byID[string(id)]
	if app == nil {
		respond.Answer(ctx, problem.NotPermitted, problem.AppUnknown)
		return nil
	}
	if app.archived {
		respond.Answer(ctx, problem.NotPermitted, problem.AppArchived)
		return nil
	}
	if !a.rateLimit(ctx, adm, a.idOnly.forAddr(a.clientAddr(ctx)),
		problem.TooManyByID) {
		return nil
	}
	adm.app = app
	return app
}
