package cache

import (
	"math/rand/v2"
	"testing"
)

// TestTableAgainstMap: a cache's table under adds and removes in any
// order finds the slots a map of the same hashes finds, whatever the clustering: the
// hashes here share few homes (most of their tags' bits are zero), so
// that removals shift long runs of slots back, across a part's end too.
func TestTableAgainstMap(t *testing.T) {
	for _, homes := range []uint64{1, 3, 64, 1 << 20} {
		r := rand.New(rand.NewPCG(homes, 7))
		var tb table[int]
		want := map[uint64]int32{}
		for step := range 20000 {
			// A hash: its tag's lower bits (its home in its part) one
			// of a few values, its upper byte (its part) and its lower
			// half random.
			tag := uint64(r.Uint64N(homes)) | uint64(r.Uint32N(256))<<24
			h := tag<<32 | uint64(r.Uint32())
			if i, ok := want[h]; ok && r.IntN(2) == 0 || len(want) > 3000 {
				for h, i = range want {
					break
				}
				if s := tb.remove(h); s.hash != h || s.node != i || s.val != int(i) {
					t.Fatalf("homes %d step %d: removing hash %x let go of %+v, want node %d", homes, step, h, s, i)
				}
				delete(want, h)
			} else if !ok {
				i := int32(step + 1)
				tb.add(slot[int]{hash: h, val: int(i), node: i})
				want[h] = i
			}
			n := 0
			for _, p := range tb.parts {
				if 2*p.n > len(p.slots) {
					t.Fatalf("homes %d step %d: a part more than half full: %d slots in use of %d", homes, step, p.n, len(p.slots))
				}
				n += p.n
			}
			if tb.n != len(want) || n != len(want) {
				t.Fatalf("homes %d step %d: %d slots in use (%d in the parts), want %d", homes, step, tb.n, n, len(want))
			}
			if step%97 == 0 {
				for h, i := range want {
					if s := tb.find(h); s == nil || s.node != i || s.val != int(i) {
						t.Fatalf("homes %d step %d: hash %x finds %+v, want node %d", homes, step, h, s, i)
					}
				}
				if _, ok := want[h^1<<31]; !ok && tb.find(h^1<<31) != nil {
					t.Fatalf("homes %d step %d: an absent hash found a node", homes, step)
				}
			}
		}
	}
}
