package diskread

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/bibleplatform/platform/internal/repotest"
)

// write makes a file of n pseudo-random bytes, synced, so that its pages
// can be dropped from the page cache.
func write(t testing.TB, n int) (string, []byte) {
	t.Helper()
	data := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(n), 1))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	path := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path, data
}

// open makes a file as write does and opens it for ReadAt, closed when
// the test ends.
func open(t testing.TB, n int) (int, []byte) {
	t.Helper()
	path, data := write(t, n)
	fd, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd, data
}

func TestReadFile(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 4096, 100_000} {
		path, data := write(t, n)
		got, err := new(Files).ReadFile(path)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("ReadFile of %d bytes: %d bytes, %v", n, len(got), err)
		}
	}
	if _, err := new(Files).ReadFile(filepath.Join(t.TempDir(), "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of no file: %v; want fs.ErrNotExist", err)
	}
}

// asPath names files by their paths (Files.ReadFileAt).
func asPath(p string) (string, error) { return p, nil }

func TestReadFileAt(t *testing.T) {
	var f Files
	path, data := write(t, 10_000)
	b := make([]byte, 100)
	if n, err := f.ReadFileAt(path, asPath, b, 9_900); err != nil || n != 100 || !bytes.Equal(b, data[9_900:]) {
		t.Errorf("the last 100 bytes: %d, %v", n, err)
	}
	if n, err := f.ReadFileAt(path, asPath, b, 9_950); err != nil || n != 50 || !bytes.Equal(b[:n], data[9_950:]) {
		t.Errorf("past the end: %d, %v; want the 50 bytes there", n, err)
	}
	if _, err := f.ReadFileAt(filepath.Join(t.TempDir(), "none"), asPath, b, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no file: %v; want fs.ErrNotExist", err)
	}
}

// TestReadFileAtNames: a file is opened at the path its name gives, and
// a file kept open is then found by its name alone; a name with no path
// reads nothing.
func TestReadFileAtNames(t *testing.T) {
	path, data := write(t, 1_000)
	refused := errors.New("no such name")
	for _, keep := range []bool{false, true} {
		var f Files
		if keep {
			f.KeepOpen(2)
		}
		asked := 0
		pathOf := func(name string) (string, error) {
			asked++
			if name != "a" {
				return "", refused
			}
			return path, nil
		}
		b := make([]byte, 10)
		for i := range 3 {
			if n, err := f.ReadFileAt("a", pathOf, b, int64(10*i)); err != nil || n != 10 || !bytes.Equal(b, data[10*i:10*i+10]) {
				t.Fatalf("keep %v, read %d: %d, %v", keep, i, n, err)
			}
		}
		if want := map[bool]int{false: 3, true: 1}[keep]; asked != want {
			t.Errorf("keep %v: the path asked %d times in 3 reads; want %d", keep, asked, want)
		}
		if _, err := f.ReadFileAt("b", pathOf, b, 0); !errors.Is(err, refused) {
			t.Errorf("keep %v: a name with no path: %v; want its error", keep, err)
		}
	}
}

// TestReadAtCold reads a file dropped from the page cache: ReadAt must
// wait for the kernel's read in its sleeps and return the file's bytes.
func TestReadAtCold(t *testing.T) {
	fd, data := open(t, 300_000)
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Skipf("cannot drop the file's pages: %v", err)
	}
	// Asked without reading: a read refused by RWF_NOWAIT starts the
	// kernel's readahead, and a fast disk had the range in before ReadAt
	// asked (the test failed so, once).
	if n := repotest.CachedPages(t, fd, 300_000); n > 0 {
		t.Skipf("the page cache kept %d of the file's pages: its file system does not drop pages", n)
	}
	var f Files
	before := waits.Load()
	b := make([]byte, 50_000)
	n, err := f.ReadAt(fd, b, 200_000)
	if err != nil || n != len(b) || !bytes.Equal(b, data[200_000:250_000]) {
		t.Fatalf("ReadAt of a cold range: %d bytes, %v", n, err)
	}
	if waits.Load() == before {
		t.Errorf("ReadAt of a cold range never waited for the disk")
	}
	// At the end of the file: what is there, and no error.
	n, err = f.ReadAt(fd, b, 280_000)
	if err != nil || n != 20_000 || !bytes.Equal(b[:n], data[280_000:]) {
		t.Errorf("ReadAt over the end: %d bytes, %v; want 20000", n, err)
	}
}

// BenchmarkReadAt: a 1 KiB range of a file in the page cache, what most
// of an edge's store reads are.
func BenchmarkReadAt(b *testing.B) {
	fd, _ := open(b, 100_000)
	benchmarkReadAt(b, fd)
}

// BenchmarkReadAtRefused is BenchmarkReadAt on a file system that refuses
// RWF_NOWAIT (tmpfs).
func BenchmarkReadAtRefused(b *testing.B) {
	fd, _ := openRefusing(b, 100_000)
	benchmarkReadAt(b, fd)
}

func benchmarkReadAt(b *testing.B, fd int) {
	var f Files
	buf := make([]byte, 1024)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := f.ReadAt(fd, buf, int64(i%90)*1024); err != nil {
			b.Fatal(err)
		}
	}
}

// openRefusing opens a file of n pseudo-random bytes on tmpfs, whose
// reads refuse RWF_NOWAIT, removed when the test ends; the test is
// skipped where there is no such file system.
func openRefusing(t testing.TB, n int) (int, []byte) {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "diskread-")
	if err != nil {
		t.Skipf("no tmpfs at /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(n), 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if _, err := unix.Preadv2(fd, [][]byte{make([]byte, 1)}, 0, unix.RWF_NOWAIT); !errors.Is(err, unix.EOPNOTSUPP) {
		t.Skipf("/dev/shm does not refuse RWF_NOWAIT here (%v)", err)
	}
	return fd, data
}

// TestReadAtRefused reads a file system that refuses RWF_NOWAIT: every
// read returns the file's bytes, and only the first is refused.
func TestReadAtRefused(t *testing.T) {
	fd, data := openRefusing(t, 10_000)
	var f Files
	before := refusals.Load()
	b := make([]byte, 1_000)
	for i := range 10 {
		off := int64(i) * 1_000
		if n, err := f.ReadAt(fd, b, off); err != nil || n != len(b) || !bytes.Equal(b, data[off:off+1_000]) {
			t.Fatalf("read %d: %d bytes, %v", i, n, err)
		}
	}
	if got := refusals.Load() - before; got != 1 {
		t.Errorf("%d reads refused RWF_NOWAIT; want the first alone", got)
	}
	// Another directory's files are asked again.
	var other Files
	if _, err := other.ReadAt(fd, b, 0); err != nil || refusals.Load()-before != 2 {
		t.Errorf("another Files: %v, %d refused in all; want its own first refused", err, refusals.Load()-before)
	}
}

// TestKeepOpenForget: a file kept open is read through its descriptor
// until Forget; after it, the path is opened anew. Its file written over
// as another's (a disk cache reuses an evicted file so) would otherwise be
// read under the old path.
func TestKeepOpenForget(t *testing.T) {
	var f Files
	f.KeepOpen(2)
	dir := t.TempDir()
	a, moved := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, []byte("aaaa"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	read := func() string {
		t.Helper()
		if n, err := f.ReadFileAt(a, asPath, b, 0); err != nil || n != 4 {
			t.Fatalf("read %s: %d, %v", a, n, err)
		}
		return string(b)
	}
	read()
	// Moved away and written over in place, a new file under the path.
	if err := os.Rename(a, moved); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(moved, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteAt([]byte("bbbb"), 0); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := os.WriteFile(a, []byte("cccc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "bbbb" {
		t.Fatalf("kept open: %q; want the descriptor's file, bbbb", got)
	}
	f.Forget(a)
	if got := read(); got != "cccc" {
		t.Errorf("after Forget: %q; want the path's file, cccc", got)
	}
	f.Forget(filepath.Join(dir, "none")) // not kept: nothing to do
}
