package packs

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire/problem"
)

// A key is seen from its second sighting on; few keys are taken for
// another; a key not asked about for two generations is forgotten.
func TestDoorkeeper(t *testing.T) {
	const n = 4096
	d := newDoorkeeper(n)
	wrong := 0
	for i := range n {
		k := fmt.Sprint("pack/", i)
		if d.seen(k) {
			wrong++ // taken for another key
		}
		if !d.seen(k) {
			t.Fatalf("%s not seen at its second sighting", k)
		}
	}
	if wrong > n/8 {
		t.Errorf("%d of %d keys seen at their first sighting", wrong, n)
	}
	for i := range 2 * n {
		d.seen(fmt.Sprint("other/", i))
	}
	kept := 0
	for i := range n {
		if d.seen(fmt.Sprint("pack/", i)) {
			kept++
		}
	}
	if kept > n/8 {
		t.Errorf("%d of %d keys remembered after two generations of others", kept, n)
	}
}

// dirPacks is a memory tier of maxBytes over a directory store holding
// one pack of 200 entries, and the pack decoded whole.
func dirPacks(t *testing.T, maxBytes int64) (*Packs, publish.PackRef, *View) {
	t.Helper()
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ref, view := testPack(t, dir, 200, 2000)
	p, err := New(Config{Store: dir, MaxBytes: maxBytes})
	if err != nil {
		t.Fatal(err)
	}
	return p, ref, view
}

// serve answers a GET of entry name of ref accepting codings, and says
// how the answer differs from the entry's body in coding c, if it does.
func serve(p *Packs, ref publish.PackRef, view *View, name, codings string, c int) (*fasthttp.RequestCtx, error) {
	var req fasthttp.Request
	req.Header.SetMethod("GET")
	req.Header.Set("Accept-Encoding", codings)
	ctx := new(fasthttp.RequestCtx)
	ctx.Init(&req, nil, nil)
	p.Serve(ctx, slog.New(slog.DiscardHandler), nil, &ref, []byte(name), false, problem.Text("no such entry"))
	want := view.index.find([]byte(name)).Reps[c].Body()
	if got := ctx.Response.Body(); ctx.Response.StatusCode() != 200 || !bytes.Equal(got, want) {
		return ctx, fmt.Errorf("%s: %d, %d bytes; want 200 and its %d bytes of %q", name, ctx.Response.StatusCode(), len(got), len(want), represent.CodingNames[c])
	}
	return ctx, nil
}

// From a directory store a pack's header is held from its second read,
// indexed: its first read is for its request alone.
func TestLocalHeaderHeldFromSecondRead(t *testing.T) {
	p, big, bigView := dirPacks(t, 1<<30)
	for i, want := range []struct {
		reads uint64
		held  bool
	}{{1, false}, {2, true}, {2, true}} {
		name := fmt.Sprintf("entry/%03d", 10*i)
		got, err := p.Entry(context.Background(), nil, &big, []byte(name))
		if err != nil {
			t.Fatal(err)
		}
		sameResource(t, name, got, bigView.index.find([]byte(name)))
		v, held := p.headers.Peek(big.Key)
		if reads := p.tiers.header.Load(); reads != want.reads || held != want.held {
			t.Errorf("entry %d: %d header reads, held %v; want %d, %v", i+1, reads, held, want.reads, want.held)
		}
		if held && !v.hdr.Indexed() {
			t.Errorf("entry %d: header held as read, not indexed", i+1)
		}
	}
}

// An entry served by range is lent for its request on its first read and
// taken into the memory tier from its second; an answer from a lent
// entry keeps its bytes when the buffer is lent again.
func TestServeLendsFirstRead(t *testing.T) {
	p, big, bigView := dirPacks(t, 1<<30)
	get := func(name string) *fasthttp.RequestCtx {
		ctx, err := serve(p, big, bigView, name, "br, gzip", represent.CodingBrotli)
		if err != nil {
			t.Fatal(err)
		}
		return ctx
	}
	held := func(name string) bool {
		_, ok := p.cache.Peek(string(entryKey(nil, IDOf(big.Key), []byte(name))))
		return ok
	}

	first := get("entry/007")
	body := bytes.Clone(first.Response.Body())
	if held("entry/007") {
		t.Error("an entry held on its first read")
	}
	get("entry/150") // lent the buffer entry/007 was read into
	if !bytes.Equal(first.Response.Body(), body) {
		t.Error("an answer from a lent entry changed when the buffer was lent again")
	}
	get("entry/007")
	if !held("entry/007") {
		t.Error("an entry not held from its second read")
	}
	m := p.tiers.memory.Load()
	get("entry/007")
	if p.tiers.memory.Load() != m+1 {
		t.Error("an entry held is not a memory hit")
	}
}

// Requests at once over entries read by range, lent and held, in a tier
// that evicts: every answer has its entry's bytes (run with -race, the
// lent buffers and headers' reuse).
func TestServeLentAtOnce(t *testing.T) {
	p, big, bigView := dirPacks(t, 256<<10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				name := fmt.Sprintf("entry/%03d", (i*7+g*31)%200)
				if _, err := serve(p, big, bigView, name, "gzip", represent.CodingGzip); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// An entry lent for one request is read in the coding the request
// negotiates, and only that one, unless the request names tags it may
// hold in another; once held, an entry has every coding.
func TestLentReadsOneCoding(t *testing.T) {
	p, big, bigView := dirPacks(t, 1<<30)
	for _, tc := range []struct {
		name, codings, inm string
		want               []int // the codings read
	}{
		{"entry/010", "gzip", "", []int{represent.CodingGzip}},
		{"entry/011", "br, gzip", "", []int{represent.CodingBrotli}},
		{"entry/012", "gzip;q=0.5, identity", "", []int{represent.CodingIdentity}},
		{"entry/013", "br", `"x"`, []int{represent.CodingBrotli, represent.CodingGzip, represent.CodingIdentity}},
		{"entry/010", "br", "", []int{represent.CodingBrotli, represent.CodingGzip, represent.CodingIdentity}}, // its second read: held
	} {
		var req fasthttp.RequestHeader
		req.Set("Accept-Encoding", tc.codings)
		if tc.inm != "" {
			req.Set("If-None-Match", tc.inm)
		}
		res, loan, err := p.Borrow(context.Background(), nil, &big, []byte(tc.name), &req)
		if err != nil {
			t.Fatal(err)
		}
		want := bigView.index.find([]byte(tc.name))
		for c := range represent.NumCodings {
			if got, read := res.Has(c), slices.Contains(tc.want, c); got != read {
				t.Errorf("%s for %q: coding %q read %t, want %t", tc.name, tc.codings, represent.CodingNames[c], got, read)
			} else if got && !bytes.Equal(res.Reps[c].Body(), want.Reps[c].Body()) {
				t.Errorf("%s for %q: coding %q is not the entry's", tc.name, tc.codings, represent.CodingNames[c])
			}
		}
		p.GiveBack(loan)
	}
	// And its answer is the coding asked for.
	if _, err := serve(p, big, bigView, "entry/020", "br", represent.CodingBrotli); err != nil {
		t.Error(err)
	}
}
