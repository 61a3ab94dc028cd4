package cache

import (
	"fmt"
	"testing"
)

func TestLRUBoundAndRecency(t *testing.T) {
	per := New[int](0).cost(10) // what an entry of 10 bytes costs
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
	per := New[int](0).cost(10)
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

// TestLRUNodesReused: under churn the cache's nodes are the slots let go,
// so its chunks hold no more nodes than it ever held at once, and every
// value is found under its own key until it is dropped, exactly once.
func TestLRUNodesReused(t *testing.T) {
	const held = 1000
	per := New[int](0).cost(10)
	c := New[int](held * per)
	dropped := map[int]int{}
	c.Dropped = func(v int) { dropped[v]++ }
	for i := range 20 * held {
		c.Add(fmt.Sprintf("%04d", i%(5*held)), i, 10)
		if v, ok := c.Get(fmt.Sprintf("%04d", i%(5*held))); !ok || v != i {
			t.Fatalf("Get of the key of %d just added: %d %v", i, v, ok)
		}
	}
	if n, _ := c.Stats(); n != held {
		t.Fatalf("%d entries, want %d", n, held)
	}
	if got, want := len(c.chunks), (held+1+chunkLen-1)/chunkLen; got != want {
		t.Errorf("%d chunks for %d entries at most, want %d", got, held, want)
	}
	for v, n := range dropped {
		if n != 1 {
			t.Errorf("value %d dropped %d times", v, n)
		}
	}
	if got, want := len(dropped), 19*held; got != want {
		t.Errorf("%d values dropped, want %d", got, want)
	}
	for i := 19 * held; i < 20*held; i++ {
		if v, ok := c.Peek(fmt.Sprintf("%04d", i%(5*held))); !ok || v != i {
			t.Errorf("Peek of the key of %d: %d %v", i, v, ok)
		}
	}
	c.Clear()
	if n, b := c.Stats(); n != 0 || b != 0 || len(c.chunks) != 0 {
		t.Errorf("after Clear: %d entries, %d bytes, %d chunks", n, b, len(c.chunks))
	}
	c.Add("x", 1, 10)
	if v, ok := c.Get("x"); !ok || v != 1 {
		t.Errorf("after Clear, Get(x) = %d %v", v, ok)
	}
}

// TestLRUKeysThatCollide: keys whose hashes collide are never mistaken
// for each other. The later one added takes the map's slot, the earlier
// one is let go (Dropped is told), and what is counted follows.
func TestLRUKeysThatCollide(t *testing.T) {
	per := New[int](0).cost(10)
	c := New[int](100 * per)
	c.mask = 0 // every key hashes to 0
	var dropped []int
	c.Dropped = func(v int) { dropped = append(dropped, v) }
	c.Add("10", 10, 10)
	if v, ok := c.Get("10"); !ok || v != 10 {
		t.Fatalf("Get(10) = %d, %v", v, ok)
	}
	for _, k := range []string{"11", "12"} {
		if _, ok := c.Get(k); ok {
			t.Fatalf("Get(%s) found 10's node", k)
		}
		if _, ok := c.Find([]byte(k)); ok {
			t.Fatalf("Find(%s) found 10's node", k)
		}
		if _, ok := c.Peek(k); ok {
			t.Fatalf("Peek(%s) found 10's node", k)
		}
	}
	c.Resize("11", 50, func(int) bool { return true })
	if _, b := c.Stats(); b != per {
		t.Fatalf("Resize of another key changed what is counted: %d, want %d", b, per)
	}
	c.Add("11", 11, 10)
	if _, ok := c.Get("10"); ok {
		t.Fatal("10 still held after 11, of the same hash, was added")
	}
	if v, ok := c.Find([]byte("11")); !ok || v != 11 {
		t.Fatalf("Find(11) = %d, %v", v, ok)
	}
	if n, b := c.Stats(); n != 1 || b != per {
		t.Fatalf("Stats = %d entries, %d bytes; want 1, %d", n, b, per)
	}
	if len(dropped) != 1 || dropped[0] != 10 {
		t.Fatalf("dropped %v, want [10]", dropped)
	}
	// The nodes let go are reused, and the list stays whole.
	for i := range 50 {
		c.Add(fmt.Sprint(20+i), 20+i, 10)
	}
	if n, _ := c.Stats(); n != 1 || c.next > 3 {
		t.Fatalf("%d entries, %d nodes handed out; want 1 and at most 2", n, c.next-1)
	}
	if _, check := c.hashes("69"); c.head == 0 || c.head != c.tail || c.items.find(c.at(c.head).hash).check != check {
		t.Fatalf("list head %d tail %d, want the one node of 69", c.head, c.tail)
	}
}

// TestLRUHitMovesNothing: a hit marks its entry and leaves the list as it
// is (relinking touched two more nodes, as cold as the one found, on every
// hit of a large cache); the node then gets its second chance when it is
// the next to go, and one not used since goes in its place; the chance is
// one, not one a pass.
func TestLRUHitMovesNothing(t *testing.T) {
	per := New[int](0).cost(10)
	c := New[int](4 * per)
	for i := range 4 {
		c.Add(fmt.Sprint(i), i, 10)
	}
	links := func() (l [][2]int32) {
		for i := int32(1); i < c.next; i++ {
			l = append(l, [2]int32{c.at(i).prev, c.at(i).next})
		}
		return append(l, [2]int32{c.head, c.tail})
	}
	before := links()
	for _, k := range []string{"0", "1"} {
		if v, ok := c.Get(k); !ok || fmt.Sprint(v) != k {
			t.Fatalf("Get(%s) = %d, %v", k, v, ok)
		}
	}
	if _, ok := c.Find([]byte("0")); !ok {
		t.Fatal("Find(0) missed")
	}
	if after := links(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("hits relinked the list: %v, was %v", after, before)
	}
	// 0 and 1 were used, 2 was not: adding two more lets 2 and 3 go.
	c.Add("4", 4, 10)
	c.Add("5", 5, 10)
	for k, want := range map[string]bool{"0": true, "1": true, "2": false, "3": false, "4": true, "5": true} {
		if _, ok := c.Peek(k); ok != want {
			t.Errorf("after two adds, %s held: %v, want %v", k, ok, want)
		}
	}
	// A second chance is one: 0 and 1, not used since, go before 4 and 5.
	c.Add("6", 6, 10)
	c.Add("7", 7, 10)
	for k, want := range map[string]bool{"0": false, "1": false, "4": true, "5": true, "6": true, "7": true} {
		if _, ok := c.Peek(k); ok != want {
			t.Errorf("after two more adds, %s held: %v, want %v", k, ok, want)
		}
	}
}

// TestLRUReplacedGrows: a value added again under its key, larger, makes
// room as a new one does: the bound holds.
func TestLRUReplacedGrows(t *testing.T) {
	per := New[int](0).cost(10)
	c := New[int](3 * per)
	for _, k := range []string{"a", "b", "c"} {
		c.Add(k, 1, 10)
	}
	c.Add("c", 2, 10+per) // as much as two entries
	if n, b := c.Stats(); b > 3*per || n != 2 {
		t.Fatalf("after c grew: %d entries, %d bytes; want 2 within %d", n, b, 3*per)
	}
	if v, ok := c.Peek("c"); !ok || v != 2 {
		t.Fatalf("c = %d, %v; want its new value", v, ok)
	}
}
