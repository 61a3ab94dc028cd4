package main

import (
	"io"
	"log/slog"
	"runtime/debug"
	"testing"
)

// TestSetMemoryLimit: the runtime's soft limit is the caches' bounds plus
// headroom, less the executable's size, which is resident beside what the
// runtime manages (command.SetMemoryLimit's test covers GOMEMLIMIT winning).
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
	if got, want := debug.SetMemoryLimit(-1), 1<<30+memoryHeadroom-exe; got != want {
		t.Errorf("limit %d; want %d", got, want)
	}
}
