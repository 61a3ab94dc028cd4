package packs

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// smallDiskCache opens a cache of 250 bytes in dir, and a put of n bytes
// of key's last letter into it.
func smallDiskCache(t *testing.T, dir string) (*diskCache, func(key string, n int)) {
	t.Helper()
	d, err := openDiskCache(dir, 250)
	if err != nil {
		t.Fatal(err)
	}
	return d, func(key string, n int) {
		t.Helper()
		if err := d.put(key, bytes.Repeat([]byte(key[len(key)-1:]), n)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiskCacheEvictsLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	d, put := smallDiskCache(t, dir)
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
		got := make([]byte, tc.n)
		ok := d.readRange("packs/x", tc.off, got)
		if !ok {
			got = nil
		}
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

// inode is the file's inode number.
func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// A full cache writes a new pack over the file of the pack it evicts,
// unless that file is being read: then the file is unlinked, and the
// reader keeps the bytes it opened.
func TestDiskCacheWritesOverEvicted(t *testing.T) {
	dir := t.TempDir()
	d, put := smallDiskCache(t, dir)
	path := func(key string) string { return filepath.Join(dir, fileName(key)) }
	put("packs/a", 100)
	put("packs/b", 120)
	a := inode(t, path("packs/a"))
	put("packs/c", 90) // a, the least recent, goes; c is written over its file
	if got := inode(t, path("packs/c")); got != a {
		t.Errorf("packs/c has inode %d, want packs/a's %d", got, a)
	}
	if got, ok := d.get("packs/c"); !ok || !bytes.Equal(got, bytes.Repeat([]byte("c"), 90)) {
		t.Errorf("packs/c = %q, %v; want 90 c's", got, ok)
	}
	if d.has("packs/a") {
		t.Error("packs/a still cached")
	}

	// A read of b is under way, and b is the least recent.
	it, ok := d.use("packs/b")
	if !ok {
		t.Fatal("packs/b not cached")
	}
	f, err := os.Open(path("packs/b"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d.get("packs/c")
	b := inode(t, path("packs/b"))
	put("packs/d", 100)
	if got := inode(t, path("packs/d")); got == b {
		t.Error("packs/d was written over packs/b's file while it was being read")
	}
	got := make([]byte, 120)
	if _, err := f.ReadAt(got, 0); err != nil || !bytes.Equal(got, bytes.Repeat([]byte("b"), 120)) {
		t.Errorf("the reader of packs/b read %q, %v", got, err)
	}
	d.done(it)
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{fileName("packs/c"), fileName("packs/d")}; !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	if files, used := d.stats(); files != 2 || used != 190 {
		t.Errorf("stats = %d files, %d bytes; want 2, 190", files, used)
	}
}

// Readers and writers at once on a cache that evicts all the time: every
// read gives its pack's own bytes.
func TestDiskCacheConcurrentEviction(t *testing.T) {
	d, err := openDiskCache(t.TempDir(), 20*1000)
	if err != nil {
		t.Fatal(err)
	}
	data := func(k int) []byte {
		return bytes.Repeat([]byte{byte(k), byte(k >> 8), 0xa5}, 300+k%50)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewSource(int64(g)))
			for range 400 {
				k := rng.Intn(200)
				key := fmt.Sprintf("packs/%03d", k)
				want := data(k)
				if rng.Intn(2) == 0 {
					if got, ok := d.get(key); ok && !bytes.Equal(got, want) {
						t.Errorf("%s: %d bytes not its own", key, len(got))
					}
				} else if b := make([]byte, len(want)); d.readRange(key, 0, b) && !bytes.Equal(b, want) {
					t.Errorf("%s: a range not its own", key)
				}
				if err := d.put(key, want); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if _, used := d.stats(); used > 20*1000 {
		t.Errorf("%d bytes held, over the bound", used)
	}
}

// BenchmarkDiskCachePutFull puts 100 KB packs into a full disk cache of
// 2,000 of them, as a long-running edge's cache is: each put evicts one.
// What a put costs depends on the file system (docs/edge.md, "The disk
// cache's files"): run it on the disk the edge's cache lives on, with
// -benchtime of a few thousand.
func BenchmarkDiskCachePutFull(b *testing.B) {
	const size, held = 100 << 10, 2000
	d, err := openDiskCache(b.TempDir(), size*held)
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat([]byte("in the beginning "), size/17)
	for i := range held {
		if err := d.put(fmt.Sprintf("packs/fill-%d", i), data); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		if err := d.put(fmt.Sprintf("packs/new-%d", i), data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDiskCacheSlots: a file evicted while it is read keeps its slot until
// the read is done, so that the files put meanwhile take other slots and
// the read's end counts against nothing else; then the slot is reused.
// Looking a key up allocates nothing.
func TestDiskCacheSlots(t *testing.T) {
	d, err := openDiskCache(t.TempDir(), 300)
	if err != nil {
		t.Fatal(err)
	}
	put := func(key string) {
		t.Helper()
		if err := d.put(key, bytes.Repeat([]byte{'x'}, 100)); err != nil {
			t.Fatal(err)
		}
	}
	put("packs/a")
	put("packs/b")
	put("packs/c")
	r, ok := d.use("packs/a")
	if !ok {
		t.Fatal("packs/a not cached")
	}
	put("packs/d") // evicts b, the least recent now
	put("packs/e") // evicts c
	put("packs/f") // evicts a, which is being read
	if d.has("packs/a") {
		t.Fatal("packs/a still cached")
	}
	if !d.slots[r.slot].gone || d.slots[r.slot].readers != 1 {
		t.Fatalf("packs/a's slot %+v; want gone with one reader", d.slots[r.slot])
	}
	for _, k := range []string{"packs/d", "packs/e", "packs/f"} {
		if d.items[fileName(k)] == r.slot {
			t.Fatalf("%s took the slot of packs/a, which is still read", k)
		}
	}
	d.done(r)
	put("packs/g") // evicts d, takes a freed slot
	if got := len(d.slots); got != 4 {
		t.Errorf("%d slots for three files and one read; want 4", got)
	}
	var files []string
	for i := d.head; i >= 0; i = d.slots[i].next {
		if it := d.slots[i]; it.readers != 0 || it.gone {
			t.Errorf("slot %d %+v; want no reader", i, it)
		}
		files = append(files, d.slots[i].name)
	}
	if want := []string{fileName("packs/g"), fileName("packs/f"), fileName("packs/e")}; !slices.Equal(files, want) {
		t.Errorf("recency %v; want %v", files, want)
	}
	if n := testing.AllocsPerRun(100, func() { d.has("packs/e") }); n != 0 {
		t.Errorf("has allocates %.0f times; want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { r, _ := d.use("packs/e"); d.done(r) }); n != 0 {
		t.Errorf("use and done allocate %.0f times; want 0", n)
	}
}
