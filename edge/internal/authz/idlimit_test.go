package authz

import (
	"net/netip"
	"testing"

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
	if len(distinct) < 240 {
		t.Errorf("256 addresses share %d limiters", len(distinct))
	}
}
