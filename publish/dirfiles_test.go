package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"testing"
)

// openFds counts this process's open file descriptors.
func openFds(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(es)
}

func TestDirKeepOpen(t *testing.T) {
	ctx := context.Background()
	d, err := OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const packs, keep = 8, 3
	data := make([][]byte, packs)
	for i := range data {
		data[i] = bytes.Repeat([]byte{byte('a' + i)}, 4096+i)
		if err := d.Put(ctx, fmt.Sprintf("packs/p%d", i), data[i]); err != nil {
			t.Fatal(err)
		}
	}
	before := openFds(t)
	d.KeepOpen(keep)

	// Reads of every pack at once, more packs than the set keeps: each
	// read gets its own bytes while files are evicted under it.
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := make([]byte, 100)
			for n := range 500 {
				i := (g + n) % packs
				off := int64(n % 3000)
				if err := d.ReadRange(ctx, fmt.Sprintf("packs/p%d", i), off, b); err != nil {
					errs <- err
					return
				}
				if want := data[i][off : off+100]; !bytes.Equal(b, want) {
					errs <- fmt.Errorf("packs/p%d at %d: got %q, want %q", i, off, b[:4], want[:4])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := openFds(t) - before; got != keep {
		t.Errorf("%d files open after the reads; want the %d kept", got, keep)
	}

	// A key that is not a pack is read anew: it may be replaced.
	if err := d.Put(ctx, "builds/b", []byte("one")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 3)
	if err := d.ReadRange(ctx, "builds/b", 0, b); err != nil || string(b) != "one" {
		t.Fatalf("builds/b = %q, %v", b, err)
	}
	if err := d.Put(ctx, "builds/b", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if err := d.ReadRange(ctx, "builds/b", 0, b); err != nil || string(b) != "two" {
		t.Errorf("builds/b after it was replaced = %q, %v; want two", b, err)
	}

	// Errors as without the set.
	if err := d.ReadRange(ctx, "packs/p0", 4090, b[:1]); err != nil {
		t.Errorf("the last byte: %v", err)
	}
	if err := d.ReadRange(ctx, "packs/p0", 4095, b[:2]); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("past the end: %v; want io.ErrUnexpectedEOF", err)
	}
	if err := d.ReadRange(ctx, "packs/none", 0, b); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing pack: %v; want fs.ErrNotExist", err)
	}
}
