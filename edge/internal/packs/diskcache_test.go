package packs

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestDiskCacheEvictsLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	d, err := openDiskCache(dir, 250)
	if err != nil {
		t.Fatal(err)
	}
	put := func(key string, n int) {
		t.Helper()
		if err := d.put(key, bytes.Repeat([]byte(key[len(key)-1:]), n)); err != nil {
			t.Fatal(err)
		}
	}
	put("packs/a", 100)
	put("packs/b", 100)
	if _, ok := d.get("packs/a"); !ok { // a is now the most recent
		t.Fatal("packs/a missing right after put")
	}
	put("packs/c", 100) // over 250: b, the least recent, goes
	put("packs/huge", 251)

	var got []string
	for _, k := range []string{"packs/a", "packs/b", "packs/c", "packs/huge"} {
		if b, ok := d.get(k); ok {
			if len(b) != 100 {
				t.Errorf("%s: %d bytes, want 100", k, len(b))
			}
			got = append(got, k)
		}
	}
	if want := []string{"packs/a", "packs/c"}; !slices.Equal(got, want) {
		t.Errorf("cached %v, want %v", got, want)
	}
	files, used := d.stats()
	if files != 2 || used != 200 {
		t.Errorf("stats = %d files, %d bytes; want 2, 200", files, used)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("%d files on disk, want 2 (evicted files are removed)", len(ents))
	}
}

// A restart takes in what the last run left, oldest first, removes the
// temporary file of a write cut short, and still honours the bound.
func TestDiskCacheReopen(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i, name := range []string{"packs+old.pack", "packs+mid.pack", "packs+new.pack"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
		mod := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(p, mod, mod)
	}
	os.WriteFile(filepath.Join(dir, diskTemp+"123"), []byte("half"), 0o644)
	os.WriteFile(filepath.Join(dir, "README"), []byte("not ours"), 0o644)

	d, err := openDiskCache(dir, 200)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key  string
		want bool
	}{
		{"packs/old", false}, // evicted on open: the oldest
		{"packs/mid", true},
		{"packs/new", true},
	}
	for _, tc := range tests {
		if _, got := d.get(tc.key); got != tc.want {
			t.Errorf("get(%s) cached = %v, want %v", tc.key, got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, diskTemp+"123")); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "README")); err != nil {
		t.Errorf("a file that is not the cache's was touched: %v", err)
	}
}

// A file that vanished under the cache is a miss, not an error.
func TestDiskCacheLostFile(t *testing.T) {
	dir := t.TempDir()
	d, err := openDiskCache(dir, 1000)
	if err != nil {
		t.Fatal(err)
	}
	d.put("packs/x", []byte("data"))
	os.Remove(filepath.Join(dir, fileName("packs/x")))
	if _, ok := d.get("packs/x"); ok {
		t.Fatal("get of a removed file reported a hit")
	}
	if d.has("packs/x") {
		t.Error("a removed file is still listed")
	}
}

func TestDiskCacheRange(t *testing.T) {
	dir := t.TempDir()
	d, err := openDiskCache(dir, 1000)
	if err != nil {
		t.Fatal(err)
	}
	d.put("packs/x", []byte("0123456789"))
	tests := []struct {
		name    string
		off, n  int64
		want    string
		ok, has bool // has: still cached after
	}{
		{"inside", 2, 3, "234", true, true},
		{"to the end", 7, 3, "789", true, true},
		// Shorter than asked: damaged, dropped, read from the store.
		{"past the end", 8, 5, "", false, false},
		{"gone", 0, 1, "", false, false},
	}
	for _, tc := range tests {
		got, ok := d.getRange("packs/x", tc.off, tc.n)
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("%s: %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
		if h := d.has("packs/x"); h != tc.has {
			t.Errorf("%s: cached %v after, want %v", tc.name, h, tc.has)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, fileName("packs/x"))); !os.IsNotExist(err) {
		t.Errorf("the damaged file is still on disk: %v", err)
	}
}
