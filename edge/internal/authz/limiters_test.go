package authz

import (
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
)

// TestLimitersForgetDeletedApps: an app gone from the snapshot loses its
// limiter; one still listed keeps what it has used.
func TestLimitersForgetDeletedApps(t *testing.T) {
	l := &limiters{byApp: map[string]*limiter{}, def: access.Rate{PerSecond: 1, Burst: 1}, share: 1, now: time.Now}
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

// TestLimiterRateChangeKeepsRequestsUsed: a new snapshot's allowance
// takes over what an app has used as a number of requests, whatever the
// old and new intervals are. An app raised from 5/s to 1000/s after a few
// requests has a nearly whole new allowance, not a debt of 200 ms a
// request read at 1 ms a request (which refused it at once); an app
// lowered has at most its whole new burst used.
func TestLimiterRateChangeKeepsRequestsUsed(t *testing.T) {
	const t0 = int64(1_700_000_000) * int64(time.Second)
	slow := access.Rate{PerSecond: 5, Burst: 10}
	fast := access.Rate{PerSecond: 1000, Burst: 1000}
	for _, c := range []struct {
		name          string
		from, to      access.Rate
		used          int   // requests taken at t0 under from
		at            int64 // when the next request comes, ns after t0
		allowed       bool
		wantRemaining int64 // after the next request, when allowed
	}{
		{"raised after 5", slow, fast, 5, 0, true, 1000 - 6},
		{"raised with the burst spent", slow, fast, 10, 0, true, 1000 - 11},
		{"raised, 50 ms on", slow, fast, 5, 50 * int64(time.Millisecond), true, 1000 - 1},
		{"lowered after 900", fast, slow, 900, 0, false, 0},
		{"lowered, one interval on", fast, slow, 900, 200 * int64(time.Millisecond), true, 0},
		{"unchanged", slow, slow, 10, 0, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newLimiter(c.from)
			for i := range c.used {
				if !l.take(t0).allowed {
					t.Fatalf("request %d of %d refused under %+v", i+1, c.used, c.from)
				}
			}
			l.setRate(c.to, t0)
			d := l.take(t0 + c.at)
			if d.allowed != c.allowed || (c.allowed && d.remaining != c.wantRemaining) {
				t.Errorf("next request: allowed %v, remaining %d; want allowed %v, remaining %d",
					d.allowed, d.remaining, c.allowed, c.wantRemaining)
			}
		})
	}
}

// TestLimitersSnapshotRaisesAllowance: through compile, as a refresh from
// dynamic does it: an app's key used under the allowance of an older
// snapshot keeps its requests' worth of use, not their time, when the next
// snapshot raises the allowance.
func TestLimitersSnapshotRaisesAllowance(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := &limiters{byApp: map[string]*limiter{}, def: access.Rate{PerSecond: 1, Burst: 1}, share: 1,
		now: func() time.Time { return now }}
	snap := func(v int64, r access.Rate) *access.Snapshot {
		return &access.Snapshot{Version: v, Apps: []access.App{{ID: "a", RateLimit: r}}}
	}
	t1, err := l.compile(snap(1, access.Rate{PerSecond: 5, Burst: 10}))
	if err != nil {
		t.Fatal(err)
	}
	for range 6 {
		t1.byID["a"].lim.take(now.UnixNano())
	}
	t2, err := l.compile(snap(2, access.Rate{PerSecond: 1000, Burst: 1000}))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 900 {
		if d := t2.byID["a"].lim.take(now.UnixNano()); !d.allowed {
			t.Fatalf("request %d after the raise refused (retry after %d s); 6 were made before it", i+1, d.retry)
		}
	}
}

// TestWriteRate: the three fields an answer reports follow the allowance
// a request was judged by, a changed one included.
func TestWriteRate(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC).UnixNano()
	l := newLimiter(access.Rate{PerSecond: 5, Burst: 10})
	for _, tc := range []struct {
		name                    string
		rate                    *access.Rate // set before the request, when not nil
		limit, remaining, reset string
	}{
		{"first", nil, "10", "9", "1"},
		{"second", nil, "10", "8", "1"},
		{"lowered", &access.Rate{PerSecond: 5, Burst: 3}, "3", "0", "1"},
		{"raised", &access.Rate{PerSecond: 1000, Burst: 1500}, "1500", "1496", "1"},
	} {
		if tc.rate != nil {
			l.setRate(*tc.rate, now)
		}
		adm := Admission{rate: l.take(now), taken: true}
		var h fasthttp.ResponseHeader
		adm.WriteRate(&h)
		for _, f := range [][2]string{{"X-RateLimit-Limit", tc.limit}, {"X-RateLimit-Remaining", tc.remaining}, {"X-RateLimit-Reset", tc.reset}} {
			if got := string(h.Peek(f[0])); got != f[1] {
				t.Errorf("%s: %s %q, want %q", tc.name, f[0], got, f[1])
			}
		}
	}
}
