package edge

import (
	"fmt"
	"testing"
)

func TestLRUBoundAndRecency(t *testing.T) {
	per := newLRU[int](0).cost("00", 10) // what an entry of 10 bytes costs
	c := newLRU[int](10 * per)
	for i := range 10 {
		c.add(fmt.Sprint(i), i, 10)
	}
	// Keep 0 alive while the rest of the cache turns over.
	for i := 10; i < 40; i++ {
		if _, ok := c.get("0"); !ok {
			t.Fatalf("entry 0 evicted after %d adds despite constant use", i-10)
		}
		c.add(fmt.Sprint(i), i, 10)
		if _, b := c.stats(); b > 10*per {
			t.Fatalf("holds %d bytes, bound %d", b, 10*per)
		}
	}
	if _, ok := c.get("10"); ok {
		t.Error("an old unused entry survived")
	}
	if n, _ := c.stats(); n != 10 {
		t.Errorf("%d entries, want 10", n)
	}
	c.add("big", 0, 10*per)
	if _, ok := c.get("big"); ok {
		t.Error("an entry larger than the cache was kept")
	}
}
