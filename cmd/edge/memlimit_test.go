package main

import (
	"io"
	"log/slog"
	"runtime/debug"
	"testing"

	"github.com/bibleplatform/platform/edge"
)

// TestSetMemoryLimit: the runtime's soft limit is the bound less the
// executable's size, which is resident beside what the runtime manages
// (command.SetMemoryLimit's test covers GOMEMLIMIT winning).
func TestSetMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	t.Setenv("GOMEMLIMIT", "")
	exe := executableSize()
	if exe <= 0 {
		t.Fatalf("executable size %d; want the test binary's", exe)
	}
	setMemoryLimit(1<<30, log)
	if got, want := debug.SetMemoryLimit(-1), 1<<30-exe; got != want {
		t.Errorf("limit %d; want %d", got, want)
	}
}

// TestDefaultMemoryBound: the default caches' bounds, room for the pack
// tier's churn and headroom make 1,920 MiB, the bound bench-scale holds
// the process to.
func TestDefaultMemoryBound(t *testing.T) {
	got := memoryBound(edge.DefaultPackCacheBytes, edge.DefaultComposeCacheBytes+edge.DefaultSearchCacheBytes, edge.DefaultSearchIndexCacheBytes)
	if want := int64(1920 << 20); got != want {
		t.Errorf("default bound %d MiB; want %d MiB", got>>20, want>>20)
	}
	if got, want := memoryBound(3<<30, 0, 0), int64(4<<30+memoryHeadroom); got != want {
		t.Errorf("bound of a 3 GiB tier alone %d; want %d (a third of it again, and headroom)", got, want)
	}
}
