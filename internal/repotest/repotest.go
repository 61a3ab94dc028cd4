// Package repotest finds the repository and the shared data beside it, for
// tests, benchmarks and test harnesses.
package repotest

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FindRoot returns the repository root: the folder holding go.mod above
// the working directory (a package directory under go test).
func FindRoot() (string, error) {
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
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// FindShared returns ../shared/<elem…> beside the repository, if it exists.
func FindShared(elem ...string) (string, error) {
	root, err := FindRoot()
	if err != nil {
		return "", err
	}
	p := filepath.Join(append([]string{filepath.Dir(root), "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// Root is FindRoot for a test: it fails the test when there is no root.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := FindRoot()
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// Shared is FindShared for a test. Missing shared data fails the test
// rather than skipping it: CI always has it, and a skip would hide that the
// real data was never read.
func Shared(tb testing.TB, elem ...string) string {
	tb.Helper()
	p, err := FindShared(elem...)
	if err != nil {
		tb.Fatalf("shared data missing: %v", err)
	}
	return p
}

// ReadGzip returns the uncompressed content of a .gz file.
func ReadGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}
