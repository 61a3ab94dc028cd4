// Package storetest is the conformance suite every publish.Store backend
// runs, so that the directory store and S3 behave the same to the build and
// the edge.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"testing"

	"github.com/bibleplatform/platform/publish"
)

// Run exercises a store. newStore must return an empty store each call.
func Run(t *testing.T, newStore func(t *testing.T) publish.Store) {
	ctx := context.Background()
	t.Run("PutGet", func(t *testing.T) {
		s := newStore(t)
		want := []byte("hello, world")
		if err := s.Put(ctx, "a/b/c.pack", want); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "a/b/c.pack")
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Get = %q, %v; want %q", got, err, want)
		}
		n, err := s.Stat(ctx, "a/b/c.pack")
		if err != nil || n != int64(len(want)) {
			t.Fatalf("Stat = %d, %v; want %d", n, err, len(want))
		}
	})
	t.Run("Overwrite", func(t *testing.T) {
		s := newStore(t)
		must(t, s.Put(ctx, "k", []byte("one")))
		must(t, s.Put(ctx, "k", []byte("two")))
		got, err := s.Get(ctx, "k")
		if err != nil || string(got) != "two" {
			t.Fatalf("Get = %q, %v; want two", got, err)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		s := newStore(t)
		must(t, s.Put(ctx, "empty", nil))
		got, err := s.Get(ctx, "empty")
		if err != nil || len(got) != 0 {
			t.Fatalf("Get = %q, %v; want empty", got, err)
		}
	})
	t.Run("NotExist", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Get(ctx, "missing"); !publish.IsNotExist(err) {
			t.Errorf("Get missing: %v; want fs.ErrNotExist", err)
		}
		if _, err := s.Stat(ctx, "missing"); !publish.IsNotExist(err) {
			t.Errorf("Stat missing: %v; want fs.ErrNotExist", err)
		}
		if _, err := s.GetRange(ctx, "missing", 0, 1); !publish.IsNotExist(err) {
			t.Errorf("GetRange missing: %v; want fs.ErrNotExist", err)
		}
		if err := s.Delete(ctx, "missing"); err != nil {
			t.Errorf("Delete missing: %v; want nil", err)
		}
		if _, err := s.Current(ctx); !publish.IsNotExist(err) {
			t.Errorf("Current on a new store: %v; want fs.ErrNotExist", err)
		}
	})
	t.Run("GetRange", func(t *testing.T) {
		s := newStore(t)
		must(t, s.Put(ctx, "r", []byte("0123456789")))
		for _, c := range []struct {
			off, n int64
			want   string
		}{{0, 10, "0123456789"}, {3, 4, "3456"}, {9, 1, "9"}, {5, 0, ""}} {
			got, err := s.GetRange(ctx, "r", c.off, c.n)
			if err != nil || string(got) != c.want {
				t.Errorf("GetRange(%d, %d) = %q, %v; want %q", c.off, c.n, got, err, c.want)
			}
		}
		if _, err := s.GetRange(ctx, "r", 8, 5); err == nil {
			t.Errorf("GetRange past the end: no error")
		}
	})
	t.Run("ReadRange", func(t *testing.T) {
		// Through publish.ReadRange: in place from a RangeReader, else by
		// GetRange; the same bytes and errors either way.
		s := newStore(t)
		must(t, s.Put(ctx, "r", []byte("0123456789")))
		for _, c := range []struct {
			off  int64
			n    int
			want string
		}{{0, 10, "0123456789"}, {3, 4, "3456"}, {9, 1, "9"}, {5, 0, ""}} {
			b := bytes.Repeat([]byte{'x'}, c.n)
			if err := publish.ReadRange(ctx, s, "r", c.off, b); err != nil || string(b) != c.want {
				t.Errorf("ReadRange(%d, %d) = %q, %v; want %q", c.off, c.n, b, err, c.want)
			}
		}
		if err := publish.ReadRange(ctx, s, "r", 8, make([]byte, 5)); err == nil {
			t.Errorf("ReadRange past the end: no error")
		}
		if err := publish.ReadRange(ctx, s, "missing", 0, make([]byte, 1)); !publish.IsNotExist(err) {
			t.Errorf("ReadRange missing: %v; want fs.ErrNotExist", err)
		}
	})
	t.Run("AppendGet", func(t *testing.T) {
		// Through publish.AppendGet: in place from an Appender when the
		// object fits in dst's spare capacity, else grown.
		s := newStore(t)
		must(t, s.Put(ctx, "a", []byte("0123456789")))
		roomy := append(make([]byte, 0, 64), "head:"...)
		got, err := publish.AppendGet(ctx, s, "a", roomy)
		if err != nil || string(got) != "head:0123456789" {
			t.Fatalf("AppendGet = %q, %v; want head:0123456789", got, err)
		}
		if _, ok := s.(publish.Appender); ok && &got[0] != &roomy[:1][0] {
			t.Errorf("an Appender did not read into the spare capacity")
		}
		tight := append(make([]byte, 0, 6), "head:"...)
		if got, err := publish.AppendGet(ctx, s, "a", tight); err != nil || string(got) != "head:0123456789" {
			t.Errorf("AppendGet past the capacity = %q, %v; want head:0123456789", got, err)
		}
		if string(tight) != "head:" {
			t.Errorf("AppendGet changed dst's bytes: %q", tight)
		}
		if _, err := publish.AppendGet(ctx, s, "missing", nil); !publish.IsNotExist(err) {
			t.Errorf("AppendGet missing: %v; want fs.ErrNotExist", err)
		}
	})
	t.Run("ListDelete", func(t *testing.T) {
		s := newStore(t)
		for _, k := range []string{"p/b", "p/a", "q/c", "p/sub/d"} {
			must(t, s.Put(ctx, k, []byte(k)))
		}
		got, err := s.List(ctx, "p/")
		if err != nil || fmt.Sprint(got) != "[p/a p/b p/sub/d]" {
			t.Fatalf("List(p/) = %v, %v", got, err)
		}
		must(t, s.Delete(ctx, "p/a"))
		got, err = s.List(ctx, "")
		if err != nil || fmt.Sprint(got) != "[p/b p/sub/d q/c]" {
			t.Fatalf("List() after delete = %v, %v", got, err)
		}
	})
	t.Run("BadKeys", func(t *testing.T) {
		s := newStore(t)
		for _, k := range []string{"", "/abs", "a/../b", "a//b", "trail/", "sp ace", "..", "a/./b"} {
			if err := s.Put(ctx, k, []byte("x")); err == nil {
				t.Errorf("Put(%q) accepted a bad key", k)
			}
		}
	})
	t.Run("Current", func(t *testing.T) {
		s := newStore(t)
		must(t, s.SetCurrent(ctx, "b1"))
		must(t, s.SetCurrent(ctx, "b2"))
		got, err := s.Current(ctx)
		if err != nil || got != "b2" {
			t.Fatalf("Current = %q, %v; want b2", got, err)
		}
	})
	t.Run("ConcurrentReadersSeeWholeObjects", func(t *testing.T) {
		s := newStore(t)
		a, b := bytes.Repeat([]byte("a"), 1<<16), bytes.Repeat([]byte("b"), 1<<16)
		must(t, s.Put(ctx, "x", a))
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				v := a
				if i%2 == 0 {
					v = b
				}
				if err := s.Put(ctx, "x", v); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		for i := 0; i < 50; i++ {
			got, err := s.Get(ctx, "x")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
				t.Fatalf("read a torn object of %d bytes", len(got))
			}
		}
		wg.Wait()
	})
	t.Run("PutIfAbsent", func(t *testing.T) {
		s := newStore(t)
		c, ok := s.(publish.Conditional)
		if !ok {
			t.Fatalf("%T cannot put an object only if absent, so it cannot hold a writer's lease", s)
		}
		must(t, c.PutIfAbsent(ctx, "once", []byte("first")))
		if err := c.PutIfAbsent(ctx, "once", []byte("second")); !errors.Is(err, fs.ErrExist) {
			t.Errorf("second PutIfAbsent: %v; want fs.ErrExist", err)
		}
		if got, err := s.Get(ctx, "once"); err != nil || string(got) != "first" {
			t.Errorf("Get = %q, %v; want first", got, err)
		}
	})
	t.Run("OneLeaseHolder", func(t *testing.T) {
		s := newStore(t)
		const writers = 8
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			won  []*publish.Lease
			held int
		)
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l, err := publish.AcquireLease(ctx, s, "build")
				mu.Lock()
				defer mu.Unlock()
				var he *publish.HeldError
				switch {
				case err == nil:
					won = append(won, l)
				case errors.As(err, &he):
					held++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if len(won) != 1 || held != writers-1 {
			t.Fatalf("%d writers took the lease, %d were refused; want 1 and %d", len(won), held, writers-1)
		}
		must(t, won[0].Release(ctx))
		l, err := publish.AcquireLease(ctx, s, "rollback")
		if err != nil {
			t.Fatalf("lease after release: %v", err)
		}
		must(t, l.Release(ctx))
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
