package packs

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
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

// From a directory store a pack's header is held from its second read:
// its first read is for its request alone.
func TestLocalHeaderHeldFromSecondRead(t *testing.T) {
	ctx := context.Background()
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	big, bigView := testPack(t, dir, 200, 2000)
	p, err := New(Config{Store: dir, MaxBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		reads uint64
		held  bool
	}{{1, false}, {2, true}, {2, true}} {
		name := fmt.Sprintf("entry/%03d", 10*i)
		got, err := p.Entry(ctx, nil, &big, []byte(name))
		if err != nil {
			t.Fatal(err)
		}
		sameResource(t, name, got, bigView.index.find([]byte(name)))
		_, held := p.headers.Peek(big.Key)
		if reads := p.tiers.header.Load(); reads != want.reads || held != want.held {
			t.Errorf("entry %d: %d header reads, held %v; want %d, %v", i+1, reads, held, want.reads, want.held)
		}
	}
}

// An entry served by range is lent for its request on its first read and
// taken into the memory tier from its second; an answer from a lent
// entry keeps its bytes when the buffer is lent again.
func TestServeLendsFirstRead(t *testing.T) {
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	big, bigView := testPack(t, dir, 200, 2000)
	p, err := New(Config{Store: dir, MaxBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	serve := func(name string) *fasthttp.RequestCtx {
		ctx := request("br, gzip")
		p.Serve(ctx, log, nil, &big, []byte(name), false, problem.Text("no such entry"))
		want := bigView.index.find([]byte(name)).Reps[represent.CodingBrotli].Body()
		if got := ctx.Response.Body(); ctx.Response.StatusCode() != 200 || !bytes.Equal(got, want) {
			t.Fatalf("%s: %d, %d bytes; want 200 and its %d bytes of br", name, ctx.Response.StatusCode(), len(got), len(want))
		}
		return ctx
	}
	held := func(name string) bool {
		_, ok := p.cache.Peek(string(entryKey(nil, big.Key, []byte(name))))
		return ok
	}

	first := serve("entry/007")
	body := bytes.Clone(first.Response.Body())
	if held("entry/007") {
		t.Error("an entry held on its first read")
	}
	serve("entry/150") // lent the buffer entry/007 was read into
	if !bytes.Equal(first.Response.Body(), body) {
		t.Error("an answer from a lent entry changed when the buffer was lent again")
	}
	serve("entry/007")
	if !held("entry/007") {
		t.Error("an entry not held from its second read")
	}
	m := p.tiers.memory.Load()
	serve("entry/007")
	if p.tiers.memory.Load() != m+1 {
		t.Error("an entry held is not a memory hit")
	}
}

// Requests at once over entries read by range, lent and held, in a tier
// that evicts: every answer has its entry's bytes (run with -race, the
// lent buffers and headers' reuse).
func TestServeLentAtOnce(t *testing.T) {
	dir, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	big, bigView := testPack(t, dir, 200, 2000)
	p, err := New(Config{Store: dir, MaxBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				name := fmt.Sprintf("entry/%03d", (i*7+g*31)%200)
				ctx := request("gzip")
				p.Serve(ctx, log, nil, &big, []byte(name), false, problem.Text("no such entry"))
				want := bigView.index.find([]byte(name)).Reps[represent.CodingGzip].Body()
				if !bytes.Equal(ctx.Response.Body(), want) {
					t.Errorf("%s: %d bytes, not its own %d", name, len(ctx.Response.Body()), len(want))
					return
				}
			}
		})
	}
	wg.Wait()
}

// request is a GET as a server hands it to a handler, accepting codings.
func request(codings string) *fasthttp.RequestCtx {
	var req fasthttp.Request
	req.Header.SetMethod("GET")
	req.Header.Set("Accept-Encoding", codings)
	ctx := new(fasthttp.RequestCtx)
	ctx.Init(&req, nil, nil)
	return ctx
}
