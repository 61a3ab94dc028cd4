package main

import (
	"io"
	"log/slog"
	"runtime/debug"
	"testing"
)

// TestSetMemoryLimit: the runtime's soft limit is the caches' bounds plus
// headroom, and GOMEMLIMIT, when set, wins.
func TestSetMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	t.Setenv("GOMEMLIMIT", "")
	setMemoryLimit(1<<30, log)
	if got := debug.SetMemoryLimit(-1); got != 1<<30+memoryHeadroom {
		t.Errorf("limit %d; want %d", got, 1<<30+memoryHeadroom)
	}
	debug.SetMemoryLimit(old)
	t.Setenv("GOMEMLIMIT", "2GiB")
	setMemoryLimit(1<<30, log)
	if got := debug.SetMemoryLimit(-1); got != old {
		t.Errorf("limit %d with GOMEMLIMIT set; want it left at %d", got, old)
	}
}
