package main

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/bibleplatform/platform/internal/repotest"
)

// resident is how many of path's pages the page cache holds.
func resident(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return repotest.CachedPages(t, int(f.Fd()), int(st.Size()))
}

// TestDrop: files read into the page cache, in a directory and below it,
// are out of it after drop, and still whole.
func TestDrop(t *testing.T) {
	dir := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err == nil && fs.Type == unix.TMPFS_MAGIC {
		t.Skip("the temporary directory is tmpfs, whose pages are the files")
	}
	data := make([]byte, 256<<10)
	for i := range data {
		data[i] = byte(i)
	}
	paths := []string{filepath.Join(dir, "a"), filepath.Join(dir, "sub", "b")}
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
		if resident(t, p) == 0 {
			t.Fatalf("%s: no page cached after it was written and read", p)
		}
	}
	n, err := drop(dir)
	if err != nil || n != len(paths) {
		t.Fatalf("drop: %d files, %v; want %d", n, err, len(paths))
	}
	for _, p := range paths {
		if r := resident(t, p); r != 0 {
			t.Errorf("%s: %d pages still cached", p, r)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != string(data) {
			t.Errorf("%s: changed by drop (%v)", p, err)
		}
	}
	if _, err := drop(filepath.Join(dir, "missing")); err == nil {
		t.Error("drop of a missing directory: no error")
	}
}
