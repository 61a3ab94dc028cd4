package edge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
)

// inFreshProcess runs the calling test again alone in a new process and
// reports false, or reports true when it is that process. What other tests
// of the package leave behind (servers whose idle connections keep their
// caches alive for a while, then let go of them all at once) lands in any
// heap measurement made beside it.
func inFreshProcess(t *testing.T) bool {
	const env = "EDGE_TEST_FRESH_PROCESS"
	if os.Getenv(env) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("%s alone:\n%s", t.Name(), out)
	if err != nil {
		t.Errorf("%s alone: %v", t.Name(), err)
	}
	return false
}

// liveHeap is the heap in use after a full collection, once it has
// settled: what earlier tests left running (servers shutting down, pack
// loads, timers) lets go of memory for a while after they end, and would
// count as freed by the cache.
func liveHeap() int64 {
	read := func() int64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	last := read()
	for range 40 {
		time.Sleep(50 * time.Millisecond)
		n := read()
		if d := n - last; d > -16<<10 && d < 16<<10 {
			return n
		}
		last = n
	}
	return last
}

// TestCacheAccounting: the memory caches' figures are what their entries
// cost on the heap, within 10 %. The edge's bound on its memory is only as good as these
// figures: each cache is filled, and what the heap gives back when its
// entries are dropped is compared with what the cache says it held (the
// drop, measured right after the fill, is far less disturbed by the rest of
// the process than the growth during the fill).
func TestCacheAccounting(t *testing.T) {
	if testing.Short() {
		t.Skip("fills the caches")
	}
	if !inFreshProcess(t) {
		return
	}
	e := newCatalogEdge(t, nil)
	var ctx fasthttp.RequestCtx
	get := func(uri string, ae ...string) {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI(uri)
		ctx.Request.Header.SetMethod("GET")
		ctx.Request.Header.Set("X-SVC-App-Key", keyDemo)
		if len(ae) > 0 {
			ctx.Request.Header.Set("Accept-Encoding", ae[0])
		}
		e.srv.Handler(&ctx)
		if ctx.Response.StatusCode() != fasthttp.StatusOK {
			t.Fatalf("%s: %d %s", uri, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
	// Warm what is not a cache entry: the index, the packs the ranges
	// are composed from, the fasthttp context.
	get("/v1/bibles/9001/passages/JHN.1.1-2")
	// Every verse of John in the fixture, across its chapters.
	var verses []string
	for c, n := range []int{14, 11, 19} {
		for v := 1; v <= n; v++ {
			verses = append(verses, fmt.Sprintf("%d.%d", c+1, v))
		}
	}

	e.srv.composed.Clear()
	// A range is composed in the coding its first request gets; a third
	// of them are asked for again and get the others.
	n := 0
	for i := range verses {
		for k := i + 1; k < len(verses); k++ {
			for _, q := range []string{"", "?format=html", "?format=html&include_headings=true"} {
				uri := fmt.Sprintf("/v1/bibles/9001/passages/JHN.%s-%s%s", verses[i], verses[k], q)
				get(uri, []string{"br, gzip", "gzip", "identity"}[n%3])
				if n%3 == 1 {
					get(uri, "br")
				}
				n++
			}
		}
	}
	ctx.Response.Reset() // it may point at a cached body
	full := liveHeap()
	entries, counted := e.srv.composed.Stats()
	e.srv.composed.Clear()
	grown := full - liveHeap()
	t.Logf("composed ranges: %d requests, %d entries, %d bytes counted, %d bytes freed when dropped (%.2f×)",
		n, entries, counted, grown, float64(grown)/float64(counted))
	if entries < n/2 {
		t.Fatalf("only %d entries cached for %d ranges", entries, n)
	}
	if float64(grown) > 1.1*float64(counted) || float64(grown) < 0.9*float64(counted) {
		t.Errorf("the composed-range cache counts %d bytes for a heap growth of %d: its bound does not bound memory", counted, grown)
	}
}

// TestPackCacheAccounting: the same for the pack tiers' memory: decoded
// packs (the whole object, its decoded header and the entries prepared for
// serving), then what packs read by ranges leave (each one's decoded
// header, and each entry read on its own), then the decoded Bible indexes
// the tiers' bound makes room for.
func TestPackCacheAccounting(t *testing.T) {
	if testing.Short() {
		t.Skip("fills the caches")
	}
	if !inFreshProcess(t) {
		return
	}
	e := newCatalogEdge(t, nil)
	st := e.srv.site.Load()
	ctx := context.Background()
	e.srv.packs.Clear()
	// The entries' names are kept for the second part: fewer than a
	// pack's promoteAfter, so that none is loaded whole in the background.
	type chapter struct {
		ref   *publish.PackRef
		names []string
	}
	var chapters []chapter
	for _, bv := range st.Bibles {
		for i := range bv.Chapters() {
			ch := &bv.Chapters()[i]
			pv, err := e.srv.packs.Get(ctx, ch.Pack)
			if err != nil {
				t.Fatal(err)
			}
			c := chapter{ref: &ch.Pack}
			for name := range pv.Entries() {
				if len(c.names) < 12 {
					c.names = append(c.names, strings.Clone(name))
				}
			}
			chapters = append(chapters, c)
		}
	}
	packsCounted(t, e, "packs loaded whole", len(chapters))

	n := 0
	for _, c := range chapters {
		for _, name := range c.names {
			if _, err := e.srv.packs.Entry(ctx, nil, c.ref, []byte(name)); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	packsCounted(t, e, "entries read by range", n)

	// The Bibles' decoded indexes, kept for the build's life, are
	// reserved in the tier's bound: as much as they hold (decoded many
	// times over, so that the heap's growth is well above its noise)...
	var raw [][]byte
	for _, bv := range st.Bibles {
		r, err := e.srv.packs.Entry(ctx, nil, &bv.Entry.Pack, []byte(publish.NameIndex))
		if err != nil || r == nil {
			t.Fatalf("bible %d index: %v", bv.ID, err)
		}
		raw = append(raw, bytes.Clone(r.Reps[represent.CodingIdentity].Body()))
	}
	e.srv.packs.Clear()
	base := liveHeap()
	kept := make([]*bible.Index, 0, 100*len(raw))
	var counted int64
	for range 100 {
		for _, b := range raw {
			x, err := site.DecodeIndex(b)
			if err != nil {
				t.Fatal(err)
			}
			kept = append(kept, x)
			counted += site.IndexSize(x)
		}
	}
	grown := liveHeap() - base
	runtime.KeepAlive(kept)
	t.Logf("bible indexes: %d decoded, %d bytes counted, the heap grew %d (%.2f×)", len(kept), counted, grown, float64(grown)/float64(counted))
	// Under the race detector the allocator does not pack tiny objects
	// together, so the index's short strings take more than production's
	// heap: the bound holds for the allocator the edge runs with.
	if !raceEnabled && (float64(grown) > 1.1*float64(counted) || float64(grown) < 0.9*float64(counted)) {
		t.Errorf("decoded Bible indexes counted %d bytes for a heap growth of %d", counted, grown)
	}
	// ... reserved when a request decodes one, given back when the build
	// is let go.
	var want int64
	for _, bv := range st.Bibles {
		x, err := bv.Index(ctx, e.srv.packs)
		if err != nil {
			t.Fatal(err)
		}
		want += site.IndexSize(x)
	}
	if r := e.srv.packs.Reserved(); r != want {
		t.Errorf("%d bytes reserved for the decoded indexes, want %d", r, want)
	}
	st.Release(e.srv.packs)
	if r := e.srv.packs.Reserved(); r != 0 {
		t.Errorf("%d bytes still reserved after the build was let go", r)
	}
}

// packsCounted checks that what the pack tiers count in memory is what
// the heap frees when they let it all go, within 10 %.
func packsCounted(t *testing.T, e *testEdge, what string, n int) {
	t.Helper()
	full := liveHeap()
	counted := e.srv.packs.Bytes()
	e.srv.packs.Clear()
	grown := full - liveHeap()
	t.Logf("%s: %d, %d bytes counted, %d bytes freed when dropped (%.2f×)", what, n, counted, grown, float64(grown)/float64(counted))
	if float64(grown) > 1.1*float64(counted) || float64(grown) < 0.9*float64(counted) {
		t.Errorf("%s: the pack tiers count %d bytes for a heap growth of %d: their bound does not bound memory", what, counted, grown)
	}
}
