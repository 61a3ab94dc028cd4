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

// TestLRUSetMaxWhileAdding: the bound moves while entries come in (the
// pack tier's Reserve, as a Bible's index is decoded), so Add must read it
// under the lock. The race detector fails this test otherwise.
func TestLRUSetMaxWhileAdding(t *testing.T) {
	per := New[int](0).cost("00", 10)
	c := New[int](10 * per)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 1000 {
			c.SetMax(int64(5+i%10) * per)
		}
	}()
	for i := range 1000 {
		c.Add(fmt.Sprint(i%100), i, 10)
	}
	<-done
	c.SetMax(3 * per)
	if n, b := c.Stats(); n > 3 || b > 3*per {
		t.Fatalf("after SetMax(3 entries): %d entries, %d bytes", n, b)
	}
}
