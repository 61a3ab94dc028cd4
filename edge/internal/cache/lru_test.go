package cache

import (
	"fmt"
	"testing"
)

func TestLRUBoundAndRecency(t *testing.T) {
	per := New[int](0).cost("00", 10) // what an entry of 10 bytes costs
	c := New[int](10 * per)
	for i := range 10 {
		c.Add(fmt.Sprint(i), i, 10)
	}
	// Keep 0 alive while the rest of the cache turns over.
	for i := 10; i < 40; i++ {
		if _, ok := c.Get("0"); !ok {
			t.Fatalf("entry 0 evicted after %d adds despite constant use", i-10)
		}
		c.Add(fmt.Sprint(i), i, 10)
		if _, b := c.Stats(); b > 10*per {
			t.Fatalf("holds %d bytes, bound %d", b, 10*per)
		}
	}
	if _, ok := c.Get("10"); ok {
		t.Error("an old unused entry survived")
	}
	if n, _ := c.Stats(); n != 10 {
		t.Errorf("%d entries, want 10", n)
	}
	c.Add("big", 0, 10*per)
	if _, ok := c.Get("big"); ok {
		t.Error("an entry larger than the cache was kept")
	}
}
