package logbuf

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is an io.Writer that counts its Writes.
type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Lines from many writers all arrive whole, in far fewer writes than
// lines, and nothing is left behind after Close.
func TestWholeLinesFewerWrites(t *testing.T) {
	var out syncBuffer
	w := New(&out, 4096, time.Hour)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				fmt.Fprintf(w, "writer %d line %d %s\n", g, i, strings.Repeat("x", i%50))
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 8*500 {
		t.Fatalf("%d lines, want %d", len(lines), 8*500)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		var g, i int
		var x string
		if n, _ := fmt.Sscanf(l, "writer %d line %d %s", &g, &i, &x); n < 2 || (i%50 != 0 && len(x) != i%50) {
			t.Fatalf("damaged line %q", l)
		}
		seen[l] = true
	}
	if len(seen) != 8*500 {
		t.Fatalf("%d distinct lines, want %d", len(seen), 8*500)
	}
	if out.writes >= 100 {
		t.Fatalf("%d writes for %d lines", out.writes, len(lines))
	}
}

// What gathers is written out within the interval without a full buffer.
func TestInterval(t *testing.T) {
	var out syncBuffer
	w := New(&out, 1<<20, 10*time.Millisecond)
	defer w.Close()
	w.Write([]byte("one line\n"))
	deadline := time.Now().Add(5 * time.Second)
	for out.String() != "one line\n" {
		if time.Now().After(deadline) {
			t.Fatalf("not written after 5 s: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A Write that gathers nothing new allocates nothing (the edge's hot path
// stays allocation-free with the access log on).
func TestWriteAllocs(t *testing.T) {
	w := New(&syncBuffer{}, 1<<16, time.Hour)
	defer w.Close()
	line := []byte(strings.Repeat("y", 200) + "\n")
	if n := testing.AllocsPerRun(1000, func() { w.Write(line) }); n != 0 {
		t.Fatalf("%v allocations per Write", n)
	}
}
