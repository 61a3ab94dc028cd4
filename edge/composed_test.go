package edge

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/represent"
)

// A composed range is made in the coding its request gets (as it is when
// shorter than compose.MinCompressed), and its other codings when it is
// asked for again: whichever coding comes first, every request gets the
// status, body and ETag of the range composed in every coding at once
// (what edge export writes), and a request sending that ETag gets 304.
func TestComposedRangeCodings(t *testing.T) {
	ctxFor := func(uri, ae string, headers ...string) *fasthttp.RequestCtx {
		ctx := new(fasthttp.RequestCtx)
		ctx.Request.SetRequestURI(uri)
		ctx.Request.Header.SetMethod("GET")
		ctx.Request.Header.Set("X-SVC-App-Key", keyDemo)
		if ae != "" {
			ctx.Request.Header.Set("Accept-Encoding", ae)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			ctx.Request.Header.Set(headers[i], headers[i+1])
		}
		return ctx
	}
	codings := []struct {
		ae     string
		coding int
	}{{"br, gzip", represent.CodingBrotli}, {"gzip", represent.CodingGzip}, {"", represent.CodingIdentity}}
	// The fixture's ranges are all short; a long one's first request is
	// compose's test (TestAnswerServeNewThenKept).
	for _, pid := range []string{"JHN.3.16-4.2", "jhn.3.17-18"} {
		for _, first := range codings {
			e := newTestEdge(t, nil)
			bv := e.srv.site.Load().Bibles[9001]
			r, err := bible.ParseRef(pid)
			if err != nil {
				t.Fatal(err)
			}
			eager, err := e.srv.bibles.Compose(context.Background(), bv, r, true, false, false)
			if err != nil {
				t.Fatal(err)
			}
			short := len(eager.Reps[represent.CodingIdentity].Body()) < compose.MinCompressed
			uri := "/v1/bibles/9001/passages/" + pid + "?format=html"
			for i, then := range append([]struct {
				ae     string
				coding int
			}{first}, codings...) {
				name := fmt.Sprintf("%s (%d bytes) first %q, request %d %q", pid, len(eager.Reps[represent.CodingIdentity].Body()), first.ae, i, then.ae)
				coding := then.coding
				if i == 0 && short {
					coding = represent.CodingIdentity
				}
				ctx := ctxFor(uri, then.ae)
				e.srv.Handler(ctx)
				want := &eager.Reps[coding]
				if ctx.Response.StatusCode() != 200 || !bytes.Equal(ctx.Response.Body(), want.Body()) {
					t.Errorf("%s: %d, %d bytes; want 200, the %s body (%d bytes)", name, ctx.Response.StatusCode(),
						len(ctx.Response.Body()), represent.CodingNames[coding], len(want.Body()))
				}
				if got := string(ctx.Response.Header.Peek("ETag")); got != string(want.ETag()) {
					t.Errorf("%s: ETag %s, want %s", name, got, want.ETag())
				}
				ctx = ctxFor(uri, then.ae, "If-None-Match", string(want.ETag()))
				e.srv.Handler(ctx)
				if ctx.Response.StatusCode() != 304 {
					t.Errorf("%s: If-None-Match its ETag: %d, want 304", name, ctx.Response.StatusCode())
				}
			}
		}
	}
}

// Ranges composed one after another from chapters read by range (their
// segments borrowed, and the buffer lent again for the next): each answer,
// then and from the composed cache after, is the range composed by an edge
// that composed nothing else.
func TestComposedRangesFromLentSegments(t *testing.T) {
	refs := []string{"JHN.3.16-17", "PS2.1_1.1-2", "JHN.3.16-4.2", "JHN.3.17-18"}
	e := newTestEdge(t, nil)
	get := func(ref string) []byte {
		ctx := new(fasthttp.RequestCtx)
		ctx.Request.SetRequestURI("/v1/bibles/9001/passages/" + ref + "?format=text")
		ctx.Request.Header.SetMethod("GET")
		ctx.Request.Header.Set("X-SVC-App-Key", keyDemo)
		e.srv.Handler(ctx)
		if ctx.Response.StatusCode() != 200 {
			t.Fatalf("%s: %d %s", ref, ctx.Response.StatusCode(), ctx.Response.Body())
		}
		return bytes.Clone(ctx.Response.Body())
	}
	want := map[string][]byte{}
	for _, ref := range refs {
		alone := newTestEdge(t, nil)
		r, err := bible.ParseRef(ref)
		if err != nil {
			t.Fatal(err)
		}
		res, err := alone.srv.bibles.Compose(context.Background(), alone.srv.site.Load().Bibles[9001], r, false, false, false)
		if err != nil {
			t.Fatal(err)
		}
		want[ref] = res.Reps[represent.CodingIdentity].Body()
	}
	for round := range 2 {
		for _, ref := range refs {
			if got := get(ref); !bytes.Equal(got, want[ref]) {
				t.Errorf("round %d, %s:\n%s\nwant\n%s", round, ref, got, want[ref])
			}
		}
	}
}
