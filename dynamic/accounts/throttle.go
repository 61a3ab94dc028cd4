package accounts

import (
	"net/netip"
	"time"
)

// Sign-in throttling: failures are counted per account (by email key, so an
// address without an account is counted the same way and answers the same)
// and per client address, over a sliding window.
const (
	ThrottleWindow     = 15 * time.Minute
	MaxAccountFailures = 10
	MaxAddressFailures = 50
)

// ThrottleKeys are the keys a sign-in's failures are counted under.
func ThrottleKeys(emailKey string, addr netip.Addr) (account, address string) {
	addr = addr.Unmap()
	if addr.Is6() {
		// One subscriber gets a /64; counting single addresses would let
		// them walk through it.
		addr = netip.PrefixFrom(addr, 64).Masked().Addr()
	}
	return "account:" + emailKey, "addr:" + addr.String()
}
