package authz

import (
	"testing"

	"github.com/bibleplatform/platform/access"
)

// TestLimitersForgetDeletedApps: an app gone from the snapshot loses its
// limiter; one still listed keeps what it has used.
func TestLimitersForgetDeletedApps(t *testing.T) {
	l := &limiters{byApp: map[string]*limiter{}, def: access.Rate{PerSecond: 1, Burst: 1}, share: 1}
	snap := func(ids ...string) *access.Snapshot {
		s := &access.Snapshot{Version: 1}
		for _, id := range ids {
			s.Apps = append(s.Apps, access.App{ID: id})
		}
		return s
	}
	t1, err := l.compile(snap("a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	kept := t1.byID["a"].lim
	if _, err := l.compile(snap("a")); err != nil {
		t.Fatal(err)
	}
	if len(l.byApp) != 1 || l.byApp["a"] != kept {
		t.Errorf("limiters after b and c were deleted: %v; want only a's, the same one", l.byApp)
	}
}
