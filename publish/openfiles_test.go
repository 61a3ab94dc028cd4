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

	"github.com/bibleplatform/platform/internal/atomicfile"
)

// openTestDir is a directory store keeping at most max files open, holding
// packs/0…packs/n-1, each of 4,096 bytes filled with its number.
func openTestDir(t testing.TB, max, n int) (*Dir, [][]byte) {
	t.Helper()
	d, err := openDir(t.TempDir(), atomicfile.OS)
	if err != nil {
		t.Fatal(err)
	}
	d.files = newOpenFiles(max)
	t.Cleanup(func() { d.Close() })
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = bytes.Repeat([]byte{byte(i)}, 4096)
		if err := d.Put(context.Background(), packKey(i), bodies[i]); err != nil {
			t.Fatal(err)
		}
	}
	return d, bodies
}

func packKey(i int) string { return fmt.Sprintf("packs/%d", i) }

func TestOpenFiles(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		max      int
		reads    []int // pack numbers read in order
		wantKept int
	}{
		{"hit", 4, []int{0, 0, 0}, 1},
		{"several", 4, []int{0, 1, 2, 1, 0}, 3},
		{"eviction", 2, []int{0, 1, 2, 3, 0}, 2},
		{"off", 0, []int{0, 1}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, bodies := openTestDir(t, c.max, 4)
			for _, i := range c.reads {
				got := make([]byte, 100)
				if err := d.ReadRange(ctx, packKey(i), 1000, got); err != nil || !bytes.Equal(got, bodies[i][1000:1100]) {
					t.Fatalf("ReadRange(%s) = %v, %v; want its bytes", packKey(i), got[:4], err)
				}
			}
			if got := d.files.len(); got != c.wantKept {
				t.Errorf("files kept = %d; want %d", got, c.wantKept)
			}
		})
	}
}

func TestOpenFilesEvictsLeastRecent(t *testing.T) {
	ctx := context.Background()
	d, _ := openTestDir(t, 2, 3)
	b := make([]byte, 1)
	for _, i := range []int{0, 1, 0, 2} { // 1 is the least recent when 2 comes
		if err := d.ReadRange(ctx, packKey(i), 0, b); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []bool{true, false, true} {
		e := d.files.get(packKey(i))
		if got := e != nil; got != want {
			t.Errorf("%s kept = %v; want %v", packKey(i), got, want)
		}
		if e != nil {
			e.release()
		}
	}
}

// TestOpenFilesErrors: the errors of ranged reads are those of a file
// opened for the one read, whether or not the file is kept.
func TestOpenFilesErrors(t *testing.T) {
	ctx := context.Background()
	d, _ := openTestDir(t, 4, 1)
	for _, warm := range []bool{false, true} {
		if warm {
			if err := d.ReadRange(ctx, packKey(0), 0, make([]byte, 1)); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			name string
			key  string
			off  int64
			n    int
			want func(error) bool
		}{
			{"past the end", packKey(0), 4000, 200, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
			{"at the end", packKey(0), 4096, 1, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
			{"negative", packKey(0), -1, 1, func(err error) bool { return err != nil && !errors.Is(err, io.ErrUnexpectedEOF) }},
			{"missing", "packs/none", 0, 1, func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
			{"bad key", "packs/../x", 0, 1, func(err error) bool { return errors.Is(err, ErrBadKey) }},
			{"empty range", packKey(0), 4096, 0, func(err error) bool { return err == nil }},
		} {
			err := d.ReadRange(ctx, c.key, c.off, make([]byte, c.n))
			if !c.want(err) {
				t.Errorf("warm %v, %s: ReadRange(%q, %d, %d) = %v", warm, c.name, c.key, c.off, c.n, err)
			}
		}
	}
	if got := d.files.len(); got != 1 {
		t.Errorf("files kept = %d; want 1 (a failed open keeps nothing)", got)
	}
}

// TestOpenFilesReplacedAndRemoved: a pack replaced or removed through the
// store is read anew; other keys are never kept.
func TestOpenFilesReplacedAndRemoved(t *testing.T) {
	ctx := context.Background()
	d, _ := openTestDir(t, 4, 1)
	b := make([]byte, 3)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(d.ReadRange(ctx, packKey(0), 0, b))
	must(d.Put(ctx, packKey(0), []byte("new")))
	must(d.ReadRange(ctx, packKey(0), 0, b))
	if string(b) != "new" {
		t.Errorf("after Put: %q; want new", b)
	}
	must(d.Delete(ctx, packKey(0)))
	if err := d.ReadRange(ctx, packKey(0), 0, b); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Delete: %v; want fs.ErrNotExist", err)
	}
	must(d.Put(ctx, "builds/x.json", []byte("one")))
	must(d.ReadRange(ctx, "builds/x.json", 0, b))
	if got := d.files.len(); got != 0 {
		t.Errorf("files kept = %d; want 0", got)
	}
}

func TestOpenFilesClosedStore(t *testing.T) {
	ctx := context.Background()
	d, bodies := openTestDir(t, 4, 2)
	b := make([]byte, 10)
	if err := d.ReadRange(ctx, packKey(0), 0, b); err != nil {
		t.Fatal(err)
	}
	e := d.files.get(packKey(0)) // a read in progress across Close
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.ReadAt(b, 10); err != nil {
		t.Errorf("read in progress across Close: %v", err)
	}
	e.release()
	if _, err := e.f.ReadAt(b, 10); !errors.Is(err, os.ErrClosed) {
		t.Errorf("after the last release: %v; want the file closed", err)
	}
	for i := range 2 {
		if err := d.ReadRange(ctx, packKey(i), 20, b); err != nil || !bytes.Equal(b, bodies[i][20:30]) {
			t.Errorf("ReadRange after Close = %v, %v", b, err)
		}
	}
	if got := d.files.len(); got != 0 {
		t.Errorf("files kept after Close = %d; want 0", got)
	}
}

// TestOpenFilesConcurrent: readers of more packs than are kept, so files
// are evicted under reads in progress; each read must get its pack's bytes
// (a file closed under a read would fail it). Run with -race.
func TestOpenFilesConcurrent(t *testing.T) {
	ctx := context.Background()
	const packs, readers, reads = 12, 8, 400
	d, bodies := openTestDir(t, 3, packs)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := make([]byte, 512)
			for n := range reads {
				i := (n*7 + r*5) % packs
				off := int64((n * 131) % 3500)
				if err := d.ReadRange(ctx, packKey(i), off, b); err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(b, bodies[i][off:off+512]) {
					t.Errorf("%s at %d: bytes of another pack", packKey(i), off)
					return
				}
				if r == 0 && n == reads/2 {
					d.files.drop(packKey(i))
				}
			}
		}()
	}
	wg.Wait()
	if got := d.files.len(); got > 3 {
		t.Errorf("files kept = %d; want at most 3", got)
	}
	d.Close()
	if got := d.files.len(); got != 0 {
		t.Errorf("files kept after Close = %d; want 0", got)
	}
}

// BenchmarkReadRange: a 1.5 KiB ranged read of a pack in the page cache,
// with its file kept open and opened for each read.
func BenchmarkReadRange(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		max  int
	}{{"kept", DefaultOpenFiles}, {"opened", 0}} {
		b.Run(c.name, func(b *testing.B) {
			d, _ := openTestDir(b, c.max, 1)
			buf := make([]byte, 1536)
			b.ReportAllocs()
			for b.Loop() {
				if err := d.ReadRange(ctx, packKey(0), 2000, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
