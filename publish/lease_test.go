package publish_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/publish"
)

// TestLease: a second writer is refused with the holder named and the way
// to break the lease; a lease broken and taken by another writer is
// neither released nor trusted by its first holder, whose switch is
// refused.
func TestLease(t *testing.T) {
	ctx := context.Background()
	s, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first, err := publish.AcquireLease(ctx, s, "build")
	if err != nil {
		t.Fatal(err)
	}
	_, err = publish.AcquireLease(ctx, s, "rollback")
	var he *publish.HeldError
	if !errors.As(err, &he) || he.Stale || !strings.Contains(err.Error(), "build by ") ||
		!strings.Contains(err.Error(), "publish lease --break "+first.Info().Token) {
		t.Fatalf("second writer: %v; want the holder named and how to break its lease", err)
	}
	if _, err := publish.BreakLease(ctx, s, "not-the-token"); err == nil {
		t.Error("BreakLease with another token broke the lease")
	}
	if _, err := publish.BreakLease(ctx, s, first.Info().Token); err != nil {
		t.Fatal(err)
	}
	second, err := publish.AcquireLease(ctx, s, "build")
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Guard(s).SetCurrent(ctx, "b1"); err == nil || !strings.Contains(err.Error(), "lease was broken") {
		t.Errorf("switch under a broken lease: %v", err)
	}
	if _, err := s.Current(ctx); !publish.IsNotExist(err) {
		t.Errorf("the broken writer switched (%v)", err)
	}
	if err := first.Release(ctx); err == nil {
		t.Error("the broken writer released the new holder's lease")
	}
	if err := second.Guard(s).SetCurrent(ctx, "b2"); err != nil {
		t.Fatal(err)
	}
	if err := second.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestStaleLease: a lease left by a process of this host that no longer
// runs is called stale.
func TestStaleLease(t *testing.T) {
	ctx := context.Background()
	s, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	// Pids wrap far below this on Linux (pid_max is at most 2^22).
	data, _ := json.Marshal(publish.LeaseInfo{Op: "build", User: "u", Host: host, PID: 1 << 30, Since: time.Now(), Token: "t0"})
	if err := s.PutIfAbsent(ctx, publish.LeaseKey, data); err != nil {
		t.Fatal(err)
	}
	_, err = publish.AcquireLease(ctx, s, "build")
	var he *publish.HeldError
	if !errors.As(err, &he) || !he.Stale || !strings.Contains(err.Error(), "no longer running on this host") {
		t.Fatalf("lease of a dead process: %v; want it called stale", err)
	}
}
