package usfm

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// findRoot returns the repository root: the folder holding go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test directory")
		}
		dir = parent
	}
}

func repoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := findRoot()
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// findShared returns the shared data folder, ../shared next to the
// repository root.
func findShared() (string, error) {
	dir, err := findRoot()
	if err != nil {
		return "", err
	}
	shared := filepath.Join(filepath.Dir(dir), "shared")
	if _, err := os.Stat(shared); err != nil {
		return "", err
	}
	return shared, nil
}

// sharedDir returns the shared data folder; tests that need it skip when
// it is absent.
func sharedDir(tb testing.TB) string {
	tb.Helper()
	dir, err := findShared()
	if err != nil {
		tb.Skipf("shared data not found: %v", err)
	}
	return dir
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
