package authz

import (
	"net/netip"
	"testing"
	"time"

	"github.com/bibleplatform/platform/access"
)

func TestAddrLimitersBuckets(t *testing.T) {
	a := newAddrLimiters(access.Rate{PerSecond: 1, Burst: 20})
	// One IPv6 subscriber (a /64) is one client; a mapped IPv4 address is
	// its IPv4 address.
	if a.forAddr(netip.MustParseAddr("2001:db8::1")) != a.forAddr(netip.MustParseAddr("2001:db8::ffff:1")) {
		t.Error("two addresses of one /64 have different limiters")
	}
	if a.forAddr(netip.MustParseAddr("192.0.2.7")) != a.forAddr(netip.MustParseAddr("::ffff:192.0.2.7")) {
		t.Error("a mapped IPv4 address has another limiter than the address")
	}
	distinct := map[*limiter]bool{}
	for i := range 256 {
		distinct[a.forAddr(netip.AddrFrom4([4]byte{198, 51, 100, byte(i)}))] = true
	}
	if len(distinct) != 256 {
		t.Errorf("256 addresses share %d limiters", len(distinct))
	}
}

// TestAddrLimitersFair: 200 hostile addresses spending their allowance
// as fast as they can put no honest client into 429, however many honest
// clients there are; an address forgotten by age starts again with a full
// allowance.
func TestAddrLimitersFair(t *testing.T) {
	a := newAddrLimiters(access.Rate{PerSecond: 1, Burst: 5})
	now := time.Now().UnixNano()
	for h := range 200 {
		l := a.forAddr(netip.AddrFrom4([4]byte{203, 0, 113, byte(h)}))
		for range 1000 {
			l.take(now)
		}
	}
	refused := 0
	for c := range 10000 {
		ip := netip.AddrFrom4([4]byte{10, byte(c >> 16), byte(c >> 8), byte(c)})
		if !a.forAddr(ip).take(now).allowed {
			refused++
		}
	}
	if refused > 0 {
		t.Errorf("%d of 10000 honest clients refused after 200 hostile addresses", refused)
	}
	// A spray of more addresses than are remembered forgets the oldest,
	// which then start with a full allowance.
	for i := range idOnlyClients + 1 {
		a.forAddr(netip.AddrFrom4([4]byte{172, byte(i >> 16), byte(i >> 8), byte(i)}))
	}
	if n := len(a.cur) + len(a.prev); n > idOnlyClients {
		t.Errorf("%d addresses remembered, more than %d", n, idOnlyClients)
	}
	if !a.forAddr(netip.AddrFrom4([4]byte{203, 0, 113, 0})).take(now).allowed {
		t.Error("a forgotten address is still refused")
	}
}
