package authz

import (
	"bytes"
	"hash/maphash"
	"net/netip"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/wire"
)

// idOnlyBuckets is how many limiters the id-only allowance is spread over.
const idOnlyBuckets = 4096

// addrLimiters is the id-only allowance. The public id is no secret (the
// app's page and every browser URL of the flow show it), so requests that
// carry nothing else must not spend the allowance of the app's keys, or
// anyone could put an app's real users into 429. They are counted per
// client address instead (an IPv6 client per /64, what one subscriber
// gets) in a fixed array of limiters chosen by a keyed hash: memory is
// bounded whatever addresses an attacker sprays, and two clients share a
// limiter only when their addresses collide. Keyed requests never come
// here.
type addrLimiters struct {
	seed maphash.Seed
	lims [idOnlyBuckets]limiter
}

func newAddrLimiters(r access.Rate) *addrLimiters {
	a := &addrLimiters{seed: maphash.MakeSeed()}
	for i := range a.lims {
		a.lims[i].setRate(r)
	}
	return a
}

func (a *addrLimiters) forAddr(ip netip.Addr) *limiter {
	ip = ip.Unmap()
	if ip.Is6() {
		ip = netip.PrefixFrom(ip, 64).Masked().Addr()
	}
	b := ip.As16()
	return &a.lims[maphash.Bytes(a.seed, b[:])%idOnlyBuckets]
}

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
		respond.Answer(ctx, respond.NotPermitted, "Unknown app.")
		return nil
	}
	if app.archived {
		respond.Answer(ctx, respond.NotPermitted, "The app is archived.")
		return nil
	}
	if !a.rateLimit(ctx, adm, a.idOnly.forAddr(a.clientAddr(ctx)),
		"Too many requests: requests that name the app only by its id are limited per client address; retry after the number of seconds in Retry-After.\n") {
		return nil
	}
	return app
}
