package searchapi

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/bibleplatform/platform/trending"
	"github.com/bibleplatform/platform/wire"
)

// TestReportInParts: a large batch goes to dynamic in parts of at most
// reportPart phrases, with the edge token; a part that fails is kept, with
// the parts after it, for the next report.
func TestReportInParts(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	failOn := 2
	dyn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(wire.HeaderEdgeToken) != "secret" || r.URL.Path != internalSearchQueries {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		var b trending.Batch
		if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		sizes = append(sizes, len(b.Queries))
		if len(sizes) == failOn {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer dyn.Close()
	tr := NewTrends(TrendsConfig{Log: slog.New(slog.DiscardHandler), DynamicURL: dyn.URL, EdgeToken: "secret", Timeout: 5 * time.Second})
	for i := range 2500 {
		tr.count("en", fmt.Sprint("phrase ", i), "app", netip.MustParseAddr("192.0.2.1"), 1)
	}
	if err := tr.Report(context.Background()); err == nil {
		t.Fatal("the failed part was not reported as an error")
	}
	if fmt.Sprint(sizes) != "[1000 1000]" {
		t.Errorf("parts sent %v, want [1000 1000] (the second failed)", sizes)
	}
	if err := tr.Report(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sizes) != "[1000 1000 1000 500]" {
		t.Errorf("parts sent %v, want the 1500 kept sent next time", sizes)
	}
	if b := tr.counter.Take(); b != nil {
		t.Errorf("%d phrases left after a good report", len(b.Queries))
	}
}

// A client's trending name is the keyed hash of its address (an IPv6
// client's /64): the same whether it was remembered or made anew, and
// whichever other clients share its slot meanwhile. A remembered one
// costs no allocation.
func TestTrendingClient(t *testing.T) {
	forget := func() {
		for i := range clientNames {
			clientNames[i].Store(nil)
		}
	}
	forget()
	name := func(s string) string { return trendingClient(netip.MustParseAddr(s)) }
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"192.0.2.1", "::ffff:192.0.2.1", true},
		{"192.0.2.1", "192.0.2.2", false},
		{"2001:db8::1", "2001:db8::2", true},
		{"2001:db8::1", "2001:db8:0:1::1", false},
	} {
		if got := name(tc.a) == name(tc.b); got != tc.same {
			t.Errorf("%s and %s: same name %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
	// Two addresses on one slot, asked in turn.
	slotOf := func(ip netip.Addr) uint64 {
		b := ip.As16()
		return maphash.Bytes(clientNameSeed, b[:]) % uint64(len(clientNames))
	}
	a := netip.MustParseAddr("10.0.0.1")
	b := a.Next()
	for slotOf(b) != slotOf(a) {
		b = b.Next()
	}
	forget()
	wantA, wantB := name(a.String()), name(b.String())
	for range 3 {
		if name(a.String()) != wantA || name(b.String()) != wantB {
			t.Fatalf("%s and %s on one slot: names changed", a, b)
		}
	}
	forget()
	if name(b.String()) != wantB || name(a.String()) != wantA {
		t.Errorf("names made anew differ from the remembered ones")
	}

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				ip := []netip.Addr{a, b}[(i+j)%2]
				if got, want := trendingClient(ip), map[netip.Addr]string{a: wantA, b: wantB}[ip]; got != want {
					t.Errorf("%s: %s, want %s", ip, got, want)
					return
				}
			}
		})
	}
	wg.Wait()

	if !raceEnabled {
		// The fewest of five: AllocsPerRun counts the whole process's.
		n := testing.AllocsPerRun(100, func() { trendingClient(a) })
		for range 4 {
			n = min(n, testing.AllocsPerRun(100, func() { trendingClient(a) }))
		}
		if n != 0 {
			t.Errorf("a remembered name: %v allocations, want 0", n)
		}
	}
}
