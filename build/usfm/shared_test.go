package usfm

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// sharedDir returns the shared data folder, ../shared next to the
// repository root (the folder holding go.mod). Tests that need it skip
// when it is absent.
func sharedDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("no go.mod above the test directory")
		}
		dir = parent
	}
	shared := filepath.Join(filepath.Dir(dir), "shared")
	if _, err := os.Stat(shared); err != nil {
		tb.Skipf("shared data not found: %v", err)
	}
	return shared
}

// readGz returns the uncompressed content of a .gz file.
func readGz(tb testing.TB, path string) []byte {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return b
}
