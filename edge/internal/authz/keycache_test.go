package authz

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bibleplatform/platform/access"
)

func keyTable(t testing.TB, version int64, keys map[string]string) *Table {
	t.Helper()
	snap := &access.Snapshot{Version: version}
	for app, key := range keys {
		snap.Apps = append(snap.Apps, access.App{ID: app, Name: app, Status: access.StatusLive,
			KeyHashes: []string{access.HashKeyHex(key)}})
	}
	l := &limiters{byApp: map[string]*limiter{}, def: access.Rate{PerSecond: 10, Burst: 20}, now: time.Now}
	tab, err := l.compile(snap)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// A known key is found by its hash the first time and from the cache
// after; an unknown key never takes a slot; a new table (a snapshot that
// revoked the key) knows nothing of the old one's cache.
func TestVerifiedKeys(t *testing.T) {
	tab := keyTable(t, 1, map[string]string{"app-a": "key-a", "app-b": "key-b"})
	for range 3 {
		if app := tab.Lookup([]byte("key-a")); app == nil || app.id != "app-a" {
			t.Fatalf("key-a: %v", app)
		}
	}
	if n := tab.verified.n.Load(); n != 1 {
		t.Fatalf("%d keys remembered after one key, want 1", n)
	}
	for i := range 100 {
		if app := tab.Lookup(fmt.Appendf(nil, "made-up-%d", i)); app != nil {
			t.Fatalf("made-up key found app %s", app.id)
		}
	}
	if n := tab.verified.n.Load(); n != 1 {
		t.Fatalf("%d keys remembered after unknown keys, want 1", n)
	}
	// A key that differs from a remembered one in its last byte only.
	if app := tab.Lookup([]byte("key-A")); app != nil {
		t.Fatalf("key-A found app %s", app.id)
	}

	revoked := keyTable(t, 2, map[string]string{"app-b": "key-b"})
	if app := revoked.Lookup([]byte("key-a")); app != nil {
		t.Fatalf("revoked key-a still found app %s", app.id)
	}
	if app := revoked.Lookup([]byte("key-b")); app == nil || app.id != "app-b" {
		t.Fatalf("key-b: %v", app)
	}
}

// Past the bound a key still verifies, by its hash, and is not remembered.
func TestVerifiedKeysBound(t *testing.T) {
	tab := keyTable(t, 1, map[string]string{"app-a": "key-a"})
	tab.verified.n.Store(maxVerifiedKeys)
	if app := tab.Lookup([]byte("key-a")); app == nil {
		t.Fatal("key-a not found at the bound")
	}
	if m := tab.verified.shard([]byte("key-a")).m.Load(); m != nil {
		t.Fatalf("key remembered past the bound: %v", *m)
	}
}

// Many goroutines looking up many keys at once agree with the table
// (go test -race checks the copy-on-write shards).
func TestVerifiedKeysConcurrent(t *testing.T) {
	keys := map[string]string{}
	for i := range 200 {
		keys[fmt.Sprintf("app-%d", i)] = fmt.Sprintf("key-%d", i)
	}
	tab := keyTable(t, 1, keys)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				j := (i + g*25) % 200
				app := tab.Lookup(fmt.Appendf(nil, "key-%d", j))
				if want := fmt.Sprintf("app-%d", j); app == nil || app.id != want {
					t.Errorf("key-%d: %v, want %s", j, app, want)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := tab.verified.n.Load(); n != 200 {
		t.Fatalf("%d keys remembered, want 200", n)
	}
}
