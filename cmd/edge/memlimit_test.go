package main

import (
	"io"
	"log/slog"
	"runtime/debug"
	"testing"
)

// TestSetMemoryLimit: the runtime's soft limit is the caches' bounds plus
// headroom (command.SetMemoryLimit's test covers GOMEMLIMIT winning).
func TestSetMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	t.Setenv("GOMEMLIMIT", "")
	setMemoryLimit(1<<30, log)
	if got := debug.SetMemoryLimit(-1); got != 1<<30+memoryHeadroom {
		t.Errorf("limit %d; want %d", got, 1<<30+memoryHeadroom)
	}
}
