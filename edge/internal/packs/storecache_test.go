package packs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// countingStore counts the reads that reach a real directory store.
type countingStore struct {
	publish.Store
	gets, ranges, bytes atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.Store.Get(ctx, key)
	s.gets.Add(1)
	s.bytes.Add(int64(len(b)))
	return b, err
}

func (s *countingStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	b, err := s.Store.GetRange(ctx, key, off, n)
	s.ranges.Add(1)
	s.bytes.Add(int64(len(b)))
	return b, err
}

// testPack publishes a pack of n entries, each with a body of size bytes
// that compresses (so it has br and gzip codings too) and one duplicate
// body (stored once, so its codings are not next to each other).
func testPack(t *testing.T, st publish.Store, n, size int) (publish.PackRef, *View) {
	t.Helper()
	rng := rand.New(rand.NewSource(int64(n*size + 1)))
	words := []string{"in", "the", "beginning", "was", "word", "and", "light", "darkness"}
	w := publish.NewPackWriter()
	var first []byte
	for i := range n {
		var b []byte
		for len(b) < size {
			b = append(b, words[rng.Intn(len(words))]...)
			b = append(b, ' ')
		}
		if i == 0 {
			first = b
		}
		w.Add(fmt.Sprintf("entry/%03d", i), "text/plain", b)
	}
	w.Add("zz-same-as-first", "text/plain", first)
	data := w.Bytes(publish.NewEncoder())
	ref := publish.PackRef{Key: w.Key(), Size: int64(len(data)), Modified: time.Unix(1700000000, 0)}
	if err := st.Put(context.Background(), ref.Key, data); err != nil {
		t.Fatal(err)
	}
	v, err := newPackView(data, ref)
	if err != nil {
		t.Fatal(err)
	}
	return ref, v
}

func sameResource(t *testing.T, name string, got, want *represent.Resource) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no resource", name)
	}
	for c := range represent.NumCodings {
		g, w := &got.Reps[c], &want.Reps[c]
		if got.Has(c) != want.Has(c) {
			t.Errorf("%s coding %d: present %v, want %v", name, c, got.Has(c), want.Has(c))
			continue
		}
		if string(g.ETag()) != string(w.ETag()) || string(g.Body()) != string(w.Body()) {
			t.Errorf("%s coding %d: etag %s (%d bytes), want %s (%d bytes)", name, c, g.ETag(), len(g.Body()), w.ETag(), len(w.Body()))
		}
		if got.Has(c) && (string(g.Head().LastModified()) != string(w.Head().LastModified()) || string(g.Head().ContentType()) != string(w.Head().ContentType())) {
			t.Errorf("%s coding %d: headers differ from the whole pack's", name, c)
		}
	}
}

func TestPackTiers(t *testing.T) {
	ctx := context.Background()
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Store: dir}
	big, bigView := testPack(t, st, 200, 4000)
	small, smallView := testPack(t, st, 5, 200)
	st.gets.Store(0)
	st.ranges.Store(0)
	st.bytes.Store(0)
	if big.Size <= DefaultWholeMax || small.Size > DefaultWholeMax {
		t.Fatalf("test packs of %d and %d bytes do not straddle %d", big.Size, small.Size, DefaultWholeMax)
	}
	disk := t.TempDir()
	p, err := New(Config{Store: st, MaxBytes: 1 << 30, DiskDir: disk, DiskBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name         string
		ref          publish.PackRef
		want         *View
		entry        string
		gets, ranges int64
		maxBytes     int64 // read from the store by this lookup
		memory       uint64
	}{
		// Large and not cached: header (one read: it is under the
		// probe), then the entry's codings (one read: contiguous).
		{"big cold", big, bigView, "entry/007", 0, 2, headerProbe + 8000, 0},
		{"big again", big, bigView, "entry/007", 0, 0, 0, 1},
		{"big other entry", big, bigView, "entry/150", 0, 1, 8000, 0},
		// Its bodies are entry/000's, stored once: read from there.
		{"big deduplicated", big, bigView, "zz-same-as-first", 0, 1, 8000, 0},
		{"big missing entry", big, bigView, "nope", 0, 0, 0, 0},
		// Small: fetched whole onto the disk on its first miss (one
		// read), its header and entries then read from there, each entry
		// in memory after its first read.
		{"small cold", small, smallView, "entry/003", 1, 0, small.Size, 0},
		{"small same entry", small, smallView, "entry/003", 0, 0, 0, 1},
		{"small other entry", small, smallView, "entry/001", 0, 0, 0, 0},
		{"small again", small, smallView, "entry/001", 0, 0, 0, 1},
	}
	for _, tc := range tests {
		g0, r0, b0 := st.gets.Load(), st.ranges.Load(), st.bytes.Load()
		m0 := p.tiers.memory.Load()
		got, err := p.Entry(ctx, nil, &tc.ref, []byte(tc.entry))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if gets, ranges := st.gets.Load()-g0, st.ranges.Load()-r0; gets != tc.gets || ranges != tc.ranges {
			t.Errorf("%s: %d gets and %d ranged reads, want %d and %d", tc.name, gets, ranges, tc.gets, tc.ranges)
		}
		if n := st.bytes.Load() - b0; n > tc.maxBytes {
			t.Errorf("%s: read %d bytes from the store, want at most %d", tc.name, n, tc.maxBytes)
		}
		if m := p.tiers.memory.Load() - m0; m != tc.memory {
			t.Errorf("%s: %d memory hits, want %d", tc.name, m, tc.memory)
		}
		want := tc.want.index.find([]byte(tc.entry))
		if want == nil {
			if got != nil {
				t.Errorf("%s: got a resource for a missing entry", tc.name)
			}
			continue
		}
		sameResource(t, tc.name, got, want)
	}

	// A second edge on the same disk cache starts warm for the packs
	// fetched whole: their header and entries are read from there.
	st2 := &countingStore{Store: dir}
	p2, err := New(Config{Store: st2, MaxBytes: 1 << 30, DiskDir: disk, DiskBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p2.Entry(ctx, nil, &small, []byte("entry/002"))
	if err != nil {
		t.Fatal(err)
	}
	sameResource(t, "small from disk", got, smallView.index.find([]byte("entry/002")))
	if n := st2.gets.Load() + st2.ranges.Load(); n != 0 || p2.tiers.disk.Load() != 2 {
		t.Errorf("restart: %d store reads and %d disk reads, want 0 and 2", n, p2.tiers.disk.Load())
	}

	// A memory tier that holds nothing: the pack is fetched whole onto
	// the disk once (the first entry read from the bytes fetched), and its
	// header and entry read from there after.
	st4 := &countingStore{Store: dir}
	p4, err := New(Config{Store: st4, MaxBytes: 1, DiskDir: t.TempDir(), DiskBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ gets, ranges, disk int64 }{{1, 0, 0}, {0, 0, 2}, {0, 0, 2}} {
		g0, r0, d0 := st4.gets.Load(), st4.ranges.Load(), int64(p4.tiers.disk.Load())
		if _, err := p4.Entry(ctx, nil, &small, []byte("entry/002")); err != nil {
			t.Fatal(err)
		}
		if g, r, d := st4.gets.Load()-g0, st4.ranges.Load()-r0, int64(p4.tiers.disk.Load())-d0; g != want.gets || r != want.ranges || d != want.disk {
			t.Errorf("no memory tier, read %d: %d gets, %d ranged reads, %d disk hits; want %d, %d, %d", i+1, g, r, d, want.gets, want.ranges, want.disk)
		}
	}

	// A directory store's reads are local: its packs are not copied onto
	// the disk cache, unless CopyLocal says so.
	for _, copyLocal := range []bool{false, true} {
		p5, err := New(Config{Store: dir, MaxBytes: 1 << 30, DiskDir: t.TempDir(), DiskBytes: 1 << 30, CopyLocal: copyLocal})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p5.Entry(ctx, nil, &small, []byte("entry/002"))
		if err != nil {
			t.Fatal(err)
		}
		sameResource(t, "directory store", got, smallView.index.find([]byte("entry/002")))
		if on := p5.disk.has(small.Key); on != copyLocal {
			t.Errorf("directory store, CopyLocal %v: pack on the disk cache %v", copyLocal, on)
		}
	}

	// WholeFirst: a small pack is fetched whole on its first miss.
	st3 := &countingStore{Store: dir}
	p3, err := New(Config{Store: st3, MaxBytes: 1 << 30, WholeFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p3.Entry(ctx, nil, &small, []byte("entry/002")); err != nil {
		t.Fatal(err)
	}
	if g, r := st3.gets.Load(), st3.ranges.Load(); g != 1 || r != 0 {
		t.Errorf("WholeFirst: %d gets and %d ranged reads, want 1 and 0", g, r)
	}
}

// Reading many entries of one pack by range fetches it whole in the
// background, after which it is served (and kept on disk) as a whole pack.
func TestPackPromotedAfterManyRanges(t *testing.T) {
	ctx := context.Background()
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Store: dir}
	big, bigView := testPack(t, st, 200, 4000)
	p, err := New(Config{Store: st, MaxBytes: 1 << 30, DiskDir: t.TempDir(), DiskBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	for i := range promoteAfter {
		if _, err := p.Entry(ctx, nil, &big, fmt.Appendf(nil, "entry/%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		v, ok := p.cache.Peek(big.Key)
		if ok && v.partial == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("pack not fetched whole after many ranged reads")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !p.disk.has(big.Key) {
		t.Error("promoted pack not kept on disk")
	}
	got, err := p.Entry(ctx, nil, &big, []byte("entry/199"))
	if err != nil {
		t.Fatal(err)
	}
	sameResource(t, "after promotion", got, bigView.index.find([]byte("entry/199")))
}

func TestStoreHealth(t *testing.T) {
	down := errors.New("dial tcp 127.0.0.1:9: connection refused")
	tests := []struct {
		name string
		errs []error
		want bool // down
	}{
		{"nothing yet", nil, false},
		{"answers", []error{nil}, false},
		{"missing object is an answer", []error{fs.ErrNotExist}, false},
		{"shutting down is no outage", []error{context.Canceled}, false},
		{"fails", []error{nil, down}, true},
		{"recovers", []error{down, down, nil}, false},
		{"wrapped failure", []error{fmt.Errorf("load pack x: %w", down)}, true},
		{"permission refused", []error{fmt.Errorf("get: %w", fs.ErrPermission)}, true},
	}
	for _, tc := range tests {
		var h health
		for _, err := range tc.errs {
			h.observe(opGet, err)
		}
		reason, got := h.outage()
		if got != tc.want {
			t.Errorf("%s: down = %v (%q), want %v", tc.name, got, reason, tc.want)
		}
		if got && reason == "" {
			t.Errorf("%s: down without a reason", tc.name)
		}
	}
}

// gatedStore holds every read until the test opens the gate.
type gatedStore struct {
	countingStore
	started chan struct{} // one send per read reaching the store
	gate    chan struct{}
}

func (s *gatedStore) Get(ctx context.Context, key string) ([]byte, error) {
	s.started <- struct{}{}
	<-s.gate
	return s.countingStore.Get(ctx, key)
}

func (s *gatedStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	s.started <- struct{}{}
	<-s.gate
	return s.countingStore.GetRange(ctx, key, off, n)
}

// Requests that want the same pack, or the same entry of a pack read by
// range, while it loads share the one load; a request that gives up
// waiting does not stop it for the others.
func TestLoadsShared(t *testing.T) {
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	small, smallView := testPack(t, dir, 5, 200)
	big, bigView := testPack(t, dir, 200, 4000)
	st := &gatedStore{countingStore: countingStore{Store: dir}, started: make(chan struct{}, 64), gate: make(chan struct{})}
	p, err := New(Config{Store: st, MaxBytes: 1 << 30, WholeFirst: true})
	if err != nil {
		t.Fatal(err)
	}

	// The big pack's header is read first, with the gate open.
	close(st.gate)
	if _, err := p.Entry(context.Background(), nil, &big, []byte("entry/000")); err != nil {
		t.Fatal(err)
	}
	for len(st.started) > 0 {
		<-st.started
	}
	st.gate = make(chan struct{})
	for _, tc := range []struct {
		name  string
		ref   *publish.PackRef
		entry string
		want  *represent.Resource
		reads func() int64
	}{
		{"whole pack", &small, "entry/001", smallView.index.find([]byte("entry/001")), st.gets.Load},
		{"entry by range", &big, "entry/150", bigView.index.find([]byte("entry/150")), st.ranges.Load},
	} {
		before := tc.reads()
		const waiters = 8
		results := make(chan *represent.Resource, waiters)
		for range waiters {
			go func() {
				r, err := p.Entry(context.Background(), nil, tc.ref, []byte(tc.entry))
				if err != nil {
					t.Error(err)
				}
				results <- r
			}()
		}
		<-st.started
		// The load is held: every request arriving now joins it. One that
		// gives up waiting gets its context's error.
		time.Sleep(100 * time.Millisecond)
		gone, cancel := context.WithCancel(context.Background())
		cancel()
		errc := make(chan error, 1)
		go func() {
			_, err := p.Entry(gone, nil, tc.ref, []byte(tc.entry))
			errc <- err
		}()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: a request that gave up got %v, want context.Canceled", tc.name, err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s: a request that gave up is still waiting", tc.name)
		}
		close(st.gate)
		for range waiters {
			sameResource(t, tc.name, <-results, tc.want)
		}
		if n := tc.reads() - before; n != 1 {
			t.Errorf("%s: %d store reads for %d requests at once, want 1", tc.name, n, waiters)
		}
		select {
		case <-st.started:
			t.Errorf("%s: a second read reached the store", tc.name)
		default:
		}
		st.gate = make(chan struct{})
	}
}

// Memory reserved outside the tier (decoded Bible indexes) shrinks the
// tier's room for packs at once, and comes back when given back.
func TestPackReserve(t *testing.T) {
	ctx := context.Background()
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := testPack(t, dir, 5, 200)
	p, err := New(Config{Store: dir, MaxBytes: 1 << 20, WholeFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Get(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if n, _ := p.cache.Stats(); n != 1 {
		t.Fatalf("%d packs held, want 1", n)
	}
	p.Reserve(1 << 20)
	if n, _ := p.cache.Stats(); n != 0 || p.Reserved() != 1<<20 {
		t.Errorf("all reserved: %d packs held, %d reserved; want 0 and %d", n, p.Reserved(), 1<<20)
	}
	p.Reserve(-1 << 20)
	if _, err := p.Get(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if n, _ := p.cache.Stats(); n != 1 || p.Reserved() != 0 {
		t.Errorf("given back: %d packs held, %d reserved; want 1 and 0", n, p.Reserved())
	}
}

// The headers' share of the memory tier is a ceiling, not a partition:
// what they do not hold is the entries', and as they take more the
// entries make room, the two together within the tier's bound.
func TestHeaderShareLeftToEntries(t *testing.T) {
	ctx := context.Background()
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const bound = 1 << 20
	p, err := New(Config{Store: dir, MaxBytes: bound})
	if err != nil {
		t.Fatal(err)
	}
	held := func(what string) (entries, headers int64) {
		t.Helper()
		_, entries = p.cache.Stats()
		_, headers = p.headers.Stats()
		if entries+headers > bound || headers > bound/headerShare {
			t.Fatalf("%s: entries %d and headers %d bytes, over the bound %d or the headers' share", what, entries, headers, bound)
		}
		return entries, headers
	}
	// More entries than the tier holds, of one pack: one header held.
	big, _ := testPack(t, dir, 200, 4000)
	for i := range 200 {
		if _, err := p.Entry(ctx, nil, &big, fmt.Appendf(nil, "entry/%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	entries, headers := held("one pack")
	if headers == 0 || entries < bound-headers-16<<10 {
		t.Errorf("one pack's entries: %d bytes held beside %d of headers, want the rest of %d", entries, headers, bound)
	}
	// Headers of many packs, each read twice (held from the second).
	for n := range 150 {
		ref, _ := testPack(t, dir, 20+n, 100)
		for _, e := range []string{"entry/001", "entry/002"} {
			if _, err := p.Entry(ctx, nil, &ref, []byte(e)); err != nil {
				t.Fatal(err)
			}
		}
		held(fmt.Sprintf("pack %d", n))
	}
	if e, h := held("many packs"); h < bound/headerShare/2 || e >= entries {
		t.Errorf("many packs: headers %d bytes, entries %d (%d before); want the headers' share taken from the entries", h, e, entries)
	}
}

// Packs fetched onto the disk cache one after another and at the same
// time, each into a buffer an earlier fetch gave back (warm, release),
// are served and kept on disk byte for byte: nothing read from a buffer
// after it was given back.
func TestFetchedBuffersReused(t *testing.T) {
	ctx := context.Background()
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Store: dir}
	type pk struct {
		ref  publish.PackRef
		view *View
	}
	var all []pk
	for i := range 24 {
		ref, v := testPack(t, st, 3+i%5, 150+40*i)
		all = append(all, pk{ref, v})
	}
	disk := t.TempDir()
	p, err := New(Config{Store: st, MaxBytes: 1 << 30, DiskDir: disk, DiskBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	entry := []byte("entry/002")
	for _, x := range all[:8] {
		got, err := p.Entry(ctx, nil, &x.ref, entry)
		if err != nil {
			t.Fatal(err)
		}
		sameResource(t, "one after another", got, x.view.index.find(entry))
	}
	errs := make(chan error, len(all)-8)
	for _, x := range all[8:] {
		go func() {
			got, err := p.Entry(ctx, nil, &x.ref, entry)
			if err == nil && got == nil {
				err = fmt.Errorf("pack %s: no entry", x.ref.Key)
			}
			if err == nil {
				sameResource(t, "at the same time", got, x.view.index.find(entry))
			}
			errs <- err
		}()
	}
	for range len(all) - 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := st.gets.Load(); n != int64(len(all)) {
		t.Errorf("%d packs fetched, want %d", n, len(all))
	}
	// What the disk holds is each pack's bytes: another edge on it reads
	// every entry from there, the same as published.
	p2, err := New(Config{Store: &countingStore{Store: dir}, MaxBytes: 1 << 30, DiskDir: disk, DiskBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range all {
		for _, name := range []string{"entry/000", "entry/001", "zz-same-as-first"} {
			got, err := p2.Entry(ctx, nil, &x.ref, []byte(name))
			if err != nil {
				t.Fatal(err)
			}
			sameResource(t, "from the disk", got, x.view.index.find([]byte(name)))
		}
	}
	if n := p2.store.(observedStore).Store.(*countingStore).gets.Load(); n != 0 {
		t.Errorf("the second edge fetched %d packs, want 0", n)
	}
}
