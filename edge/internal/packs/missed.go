package packs

import (
	"hash/maphash"
	"sync/atomic"
)

// missedSlots is how many packs' first misses are remembered at a time.
// A slot holds a hash of a pack key: 512 KiB for 64k packs, more than the
// memory tier holds at once, so that a pack missed again soon after is
// seen as such however much the memory tier churns.
const missedSlots = 1 << 16

// missed remembers packs that missed once (a doorkeeper, as in TinyLFU):
// a small pack's second miss fetches it whole and keeps it on disk, its
// first reads only the entry asked for. The memory tier cannot be where
// the first miss is remembered: under churn, or with a tier too small for
// any pack, the header read by the first miss is gone before the second.
// Slots are direct-mapped and overwritten: a pack whose slot was taken in
// between counts as missed once more, the safe side (one more ranged read).
type missed struct {
	seed  maphash.Seed
	slots [missedSlots]atomic.Uint64
}

func newMissed() *missed { return &missed{seed: maphash.MakeSeed()} }

// again records a miss of key and reports whether key had missed before.
func (m *missed) again(key string) bool {
	h := maphash.String(m.seed, key) | 1 // 0 is an empty slot
	s := &m.slots[h%missedSlots]
	if s.Load() == h {
		return true
	}
	s.Store(h)
	return false
}
