package main

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/publish"
)

// TestSetMemoryLimit: a build's soft limit is its budget for its workers
// and the previous build's manifest (command.SetMemoryLimit's test covers
// GOMEMLIMIT winning).
func TestSetMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	ctx := context.Background()
	st, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	manifest := make([]byte, 3<<20)
	if err := st.Put(ctx, publish.ManifestKey("b1"), manifest); err != nil {
		t.Fatal(err)
	}

	t.Setenv("GOMEMLIMIT", "")
	setMemoryLimit(ctx, st, "", 2)
	if got, want := debug.SetMemoryLimit(-1), build.MemoryBudget(2, 0); got != want {
		t.Errorf("first build: limit %d; want %d", got, want)
	}
	setMemoryLimit(ctx, st, "b1", 3)
	if got, want := debug.SetMemoryLimit(-1), build.MemoryBudget(3, 3<<20); got != want || want <= build.MemoryBudget(3, 0) {
		t.Errorf("after a build: limit %d; want %d, more than without its manifest", got, want)
	}
}
