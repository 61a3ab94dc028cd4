package packs

import (
	"hash/maphash"
	"sync"
)

// doorkeeper remembers, approximately, which keys it was asked about
// within about its last n distinct keys: two generations of a bit set,
// one bit a key (by hash), the older dropped when the newer has taken n
// keys. It is TinyLFU's doorkeeper (Einziger, Friedman and Manes, 2017),
// aged by generations instead of a reset. A key may be taken for another
// whose bit it shares: about one in sixteen at n keys a generation.
type doorkeeper struct {
	mu    sync.Mutex
	seed  maphash.Seed
	gens  [2][]uint64 // gens[cur] is the newer
	cur   int
	added int // keys the newer generation has taken
	n     int
}

// newDoorkeeper remembers about n keys back (at least 1,024), in 2 × 32
// bits a key.
func newDoorkeeper(n int) *doorkeeper {
	n = max(n, 1<<10)
	words := 1
	for words*64 < 32*n {
		words *= 2
	}
	return &doorkeeper{seed: maphash.MakeSeed(), gens: [2][]uint64{make([]uint64, words), make([]uint64, words)}, n: n}
}

// seen reports whether key was seen within the window, and remembers it.
func (d *doorkeeper) seen(key string) bool {
	h := maphash.String(d.seed, key)
	d.mu.Lock()
	defer d.mu.Unlock()
	newer, older := d.gens[d.cur], d.gens[1-d.cur]
	w, bit := (h>>6)&uint64(len(newer)-1), uint64(1)<<(h&63)
	if newer[w]&bit != 0 {
		return true
	}
	newer[w] |= bit
	was := older[w]&bit != 0
	if d.added++; d.added >= d.n {
		clear(older)
		d.cur, d.added = 1-d.cur, 0
	}
	return was
}
