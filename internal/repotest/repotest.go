// Package repotest finds the repository and the shared data beside it, for
// tests and benchmarks.
package repotest

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the repository root: the folder holding go.mod above the
// test's working directory.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// Shared returns ../shared/<elem…> beside the repository, failing the test
// when it is missing: CI always has it.
func Shared(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{filepath.Dir(Root(tb)), "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("shared data missing: %v", err)
	}
	return p
}
