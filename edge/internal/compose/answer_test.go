package compose

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// answerBody is long enough to be compressed (MinCompressed).
var answerBody = bytes.Repeat([]byte(`{"reference":"JHN.3.16","text":"For God so loved the world"},`), 25)

// get asks for answer a as a request with Accept-Encoding ae (none when
// ""), computing it (ServeNew) or from answers (ServeRemembered).
func get(t *testing.T, a *Answer, answers *cache.LRU[*Answer], ae string, headers ...string) *fasthttp.RequestCtx {
	t.Helper()
	ctx := new(fasthttp.RequestCtx)
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.SetRequestURI("/v1/search-verses?query=x")
	if ae != "" {
		ctx.Request.Header.Set("Accept-Encoding", ae)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		ctx.Request.Header.Set(headers[i], headers[i+1])
	}
	if answers == nil {
		a.ServeNew(ctx, false)
	} else if !ServeRemembered(ctx, answers, "k", false) {
		t.Fatal("the answer is not remembered")
	}
	return ctx
}

// decoded is a response's body without its content coding.
func decoded(t *testing.T, ctx *fasthttp.RequestCtx) []byte {
	t.Helper()
	var r io.Reader = bytes.NewReader(ctx.Response.Body())
	switch ce := string(ctx.Response.Header.Peek("Content-Encoding")); ce {
	case "":
	case "br":
		r = brotli.NewReader(r)
	case "gzip":
		z, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		r = z
	default:
		t.Fatalf("Content-Encoding %q", ce)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The request that computes an answer has it compressed in its own
// coding only; the answer's first request from the cache adds the others.
// Whichever coding comes first, each coding's ETag is the one NewResource
// gives the same body, and every coding decodes to the body.
func TestAnswerCodings(t *testing.T) {
	mod := time.Unix(1e9, 0)
	eager := NewResource(answerBody, publish.JSON, mod, Quick)
	for _, tc := range []struct {
		ae       string
		wantCE   string
		wantHave []int // the codings the answer holds after the first request
	}{
		{"", "", []int{represent.CodingIdentity}},
		{"identity", "", []int{represent.CodingIdentity}},
		{"gzip", "gzip", []int{represent.CodingGzip, represent.CodingIdentity}},
		{"gzip, deflate, br", "br", []int{represent.CodingBrotli, represent.CodingIdentity}},
		{"br;q=0.5, gzip", "gzip", []int{represent.CodingGzip, represent.CodingIdentity}},
		{"*", "br", []int{represent.CodingBrotli, represent.CodingIdentity}},
	} {
		a := NewAnswer(bytes.Clone(answerBody), publish.JSON, mod, Quick)
		ctx := get(t, a, nil, tc.ae)
		if got := string(ctx.Response.Header.Peek("Content-Encoding")); got != tc.wantCE {
			t.Errorf("%q: Content-Encoding %q, want %q", tc.ae, got, tc.wantCE)
		}
		if got := decoded(t, ctx); !bytes.Equal(got, answerBody) {
			t.Errorf("%q: body %q", tc.ae, got)
		}
		for c := range represent.NumCodings {
			want := false
			for _, h := range tc.wantHave {
				want = want || h == c
			}
			if got := a.Resource().Has(c); got != want {
				t.Errorf("%q: after computing, has %s: %v, want %v", tc.ae, represent.CodingNames[c], got, want)
			}
		}
		answers := cache.New[*Answer](1 << 20)
		answers.Add("k", a, a.Size())
		_, before := answers.Stats()
		for _, ae := range []string{"br", "gzip", ""} {
			ctx := get(t, a, answers, ae)
			if got := decoded(t, ctx); !bytes.Equal(got, answerBody) {
				t.Errorf("%q then %q: body %q", tc.ae, ae, got)
			}
		}
		for c := range represent.NumCodings {
			if !a.Resource().Has(c) {
				t.Errorf("%q: from the cache, lacks %s", tc.ae, represent.CodingNames[c])
				continue
			}
			if got, want := string(a.Resource().Reps[c].ETag()), string(eager.Reps[c].ETag()); got != want {
				t.Errorf("%q: %s ETag %s, want %s", tc.ae, represent.CodingNames[c], got, want)
			}
		}
		if _, after := answers.Stats(); after <= before {
			t.Errorf("%q: the cache counts %d bytes after the codings were added, %d before", tc.ae, after, before)
		}
	}
}

// A body that fits in one packet uncompressed is served as it is to the
// request that computed it, and compressed, where that gains, when it is
// asked for again from the cache, in the codings that request accepts. A
// coding found not to gain is dropped and not tried again.
func TestAnswerUncompressed(t *testing.T) {
	incompressible := make([]byte, 2*MinCompressed)
	for i := range incompressible {
		incompressible[i] = byte(i*7919>>3 ^ i*31) // no repeats a coder can use
	}
	for _, tc := range []struct {
		name       string
		body       []byte
		wantCached string // Content-Encoding from the cache
	}{
		{"two bytes", []byte(`{}`), ""},
		{"one packet", answerBody[:MinCompressed-1], "br"},
		{"incompressible", incompressible, ""},
	} {
		a := NewAnswer(bytes.Clone(tc.body), publish.JSON, time.Unix(1e9, 0), Quick)
		if ctx := get(t, a, nil, "br, gzip"); len(ctx.Response.Header.Peek("Content-Encoding")) != 0 {
			t.Errorf("%s: computed, Content-Encoding %q", tc.name, ctx.Response.Header.Peek("Content-Encoding"))
		}
		answers := cache.New[*Answer](1 << 20)
		answers.Add("k", a, a.Size())
		ctx := get(t, a, answers, "br, gzip")
		if got := string(ctx.Response.Header.Peek("Content-Encoding")); got != tc.wantCached {
			t.Errorf("%s: from the cache, Content-Encoding %q, want %q", tc.name, got, tc.wantCached)
		}
		if got := decoded(t, ctx); !bytes.Equal(got, tc.body) {
			t.Errorf("%s: from the cache, body %q", tc.name, got)
		}
		// A request tries the codings it accepts, in its order, until one
		// gains; none gains here unless brotli does.
		want := uint32(everyCoding)
		if tc.wantCached == "br" {
			want = 1<<represent.CodingIdentity | 1<<represent.CodingBrotli
		}
		if got := a.tried.Load(); got != want {
			t.Errorf("%s: tried %03b, want %03b", tc.name, got, want)
		}
		if tc.wantCached == "" && (a.Resource().Has(represent.CodingBrotli) || a.Resource().Has(represent.CodingGzip)) {
			t.Errorf("%s: a coding that does not gain was kept", tc.name)
		}
	}
}

// An answer's ETags validate: a request sending the tag of the coding it
// gets is answered 304 whether the coding was made by that request or
// before it.
func TestAnswerNotModified(t *testing.T) {
	a := NewAnswer(bytes.Clone(answerBody), publish.JSON, time.Unix(1e9, 0), Quick)
	first := get(t, a, nil, "gzip")
	tag := string(first.Response.Header.Peek("ETag"))
	answers := cache.New[*Answer](1 << 20)
	answers.Add("k", a, a.Size())
	for _, tc := range []struct {
		ae, inm string
		want    int
	}{
		{"gzip", tag, fasthttp.StatusNotModified},
		{"br", tag, fasthttp.StatusOK},
		{"", tag, fasthttp.StatusOK},
	} {
		ctx := get(t, a, answers, tc.ae, "If-None-Match", tc.inm)
		if got := ctx.Response.StatusCode(); got != tc.want {
			t.Errorf("%q with If-None-Match %s: %d, want %d", tc.ae, tc.inm, got, tc.want)
		}
		if got := string(ctx.Response.Header.Peek("Vary")); got != "Accept-Encoding" {
			t.Errorf("%q: Vary %q", tc.ae, got)
		}
	}
}

// Requests in every coding served at once from one answer, while its
// codings are added, each get a whole body (run under -race: no request
// reads a resource another is changing).
func TestAnswerConcurrent(t *testing.T) {
	for range 20 {
		a := NewAnswer(bytes.Clone(answerBody), publish.JSON, time.Unix(1e9, 0), Quick)
		answers := cache.New[*Answer](1 << 20)
		answers.Add("k", a, a.Size())
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() {
				ctx := get(t, a, answers, []string{"br", "gzip", ""}[i%3])
				if got := decoded(t, ctx); !bytes.Equal(got, answerBody) {
					t.Errorf("body %q", got)
				}
			})
		}
		wg.Wait()
	}
}

// An answer from the cache that has every coding is served without
// allocating, as a published resource is.
func TestAnswerRememberedAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	a := NewAnswer(bytes.Clone(answerBody), publish.JSON, time.Unix(1e9, 0), Quick)
	answers := cache.New[*Answer](1 << 20)
	answers.Add("k", a, a.Size())
	var ctx fasthttp.RequestCtx
	serve := func() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI("/v1/search-verses?query=x")
		ctx.Request.Header.Set("Accept-Encoding", "br, gzip")
		ServeRemembered(&ctx, answers, "k", false)
	}
	serve() // completes the codings
	least := testing.AllocsPerRun(100, serve)
	for range 4 {
		least = min(least, testing.AllocsPerRun(100, serve))
	}
	if least != 0 {
		t.Errorf("%v allocations per answer from the cache, want 0", least)
	}
}

// Whatever its length, an answer gives every request, the one that
// computed it (ServeNew) and those from the cache after it, the status,
// headers and bytes NewResource's every coding gives it; except that the
// first request gets an answer shorter than MinCompressed as it is, in
// identity, as a request that accepts no coding would. Only the codings
// asked for are made.
func TestAnswerServeNewThenKept(t *testing.T) {
	mod := time.Unix(1e9, 0)
	serve := func(f func(*fasthttp.RequestCtx), method, ae string, headers ...string) *fasthttp.RequestCtx {
		ctx := new(fasthttp.RequestCtx)
		ctx.Request.Header.SetMethod(method)
		ctx.Request.SetRequestURI("/v1/bibles/1/passages/JHN.3.16-18")
		if ae != "" {
			ctx.Request.Header.Set("Accept-Encoding", ae)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			ctx.Request.Header.Set(headers[i], headers[i+1])
		}
		f(ctx)
		return ctx
	}
	same := func(name string, got, want *fasthttp.RequestCtx) {
		t.Helper()
		if got.Response.StatusCode() != want.Response.StatusCode() || !bytes.Equal(got.Response.Body(), want.Response.Body()) {
			t.Errorf("%s: %d, %d bytes; want %d, %d bytes", name, got.Response.StatusCode(), len(got.Response.Body()),
				want.Response.StatusCode(), len(want.Response.Body()))
		}
		if g, w := got.Response.Header.String(), want.Response.Header.String(); g != w {
			t.Errorf("%s: headers\n%s\nwant\n%s", name, g, w)
		}
	}
	for _, body := range [][]byte{answerBody, answerBody[:MinCompressed-1], []byte(`{}`)} {
		eager := NewResource(body, publish.JSON, mod, Kept)
		tag := func(c int) string { return string(eager.Reps[c].ETag()) }
		short := len(body) < MinCompressed
		for _, first := range []struct {
			method, ae string
			headers    []string
			wantMade   uint32
		}{
			{"GET", "br, gzip", nil, 1<<represent.CodingIdentity | 1<<represent.CodingBrotli},
			{"GET", "gzip", nil, 1<<represent.CodingIdentity | 1<<represent.CodingGzip},
			{"GET", "", nil, 1 << represent.CodingIdentity},
			{"HEAD", "br", nil, 1<<represent.CodingIdentity | 1<<represent.CodingBrotli},
			{"GET", "br", []string{"If-None-Match", tag(represent.CodingBrotli)}, 1<<represent.CodingIdentity | 1<<represent.CodingBrotli},
			{"GET", "gzip", []string{"Range", "bytes=0-9"}, 1<<represent.CodingIdentity | 1<<represent.CodingGzip},
		} {
			name := fmt.Sprintf("%d bytes, first %s %q %v", len(body), first.method, first.ae, first.headers)
			a := NewAnswer(bytes.Clone(body), publish.JSON, mod, Kept)
			got := serve(func(ctx *fasthttp.RequestCtx) { a.ServeNew(ctx, false) }, first.method, first.ae, first.headers...)
			ae, made := first.ae, first.wantMade
			if short {
				ae, made = "", 1<<represent.CodingIdentity
			}
			want := serve(func(ctx *fasthttp.RequestCtx) { represent.Serve(ctx, eager, false) }, first.method, ae, first.headers...)
			same(name, got, want)
			if a.tried.Load() != made {
				t.Errorf("%s: made %03b, want %03b", name, a.tried.Load(), made)
			}
			answers := cache.New[*Answer](1 << 20)
			answers.Add("k", a, a.Size())
			for _, then := range []struct{ ae, inm string }{
				{"gzip", ""}, {"br", ""}, {"", ""}, {"gzip", tag(represent.CodingGzip)}, {"br", tag(represent.CodingIdentity)},
			} {
				var h []string
				if then.inm != "" {
					h = []string{"If-None-Match", then.inm}
				}
				got := serve(func(ctx *fasthttp.RequestCtx) { a.ServeKept(ctx, answers, "k", false) }, "GET", then.ae, h...)
				want := serve(func(ctx *fasthttp.RequestCtx) { represent.Serve(ctx, eager, false) }, "GET", then.ae, h...)
				same(name+fmt.Sprintf(", then %q %q", then.ae, then.inm), got, want)
			}
		}
	}
}

// An answer from the cache gets only the codings its requests ask for: an
// answer only brotli clients ask for is never compressed in gzip, and the
// cache counts what each coding adds when it is made.
func TestAnswerKeptMakesOnlyAsked(t *testing.T) {
	a := NewAnswer(bytes.Clone(answerBody), publish.JSON, time.Unix(1e9, 0), Kept)
	answers := cache.New[*Answer](1 << 20)
	answers.Add("k", a, a.Size())
	held := func() int64 { _, b := answers.Stats(); return b }
	before := held()
	for range 3 {
		if ce := string(get(t, a, answers, "br, gzip").Response.Header.Peek("Content-Encoding")); ce != "br" {
			t.Fatalf("Content-Encoding %q, want br", ce)
		}
	}
	if got, want := a.tried.Load(), uint32(1<<represent.CodingIdentity|1<<represent.CodingBrotli); got != want {
		t.Errorf("after brotli clients only, made %03b, want %03b", got, want)
	}
	withBr := held()
	if withBr <= before {
		t.Errorf("the cache counts %d bytes after brotli was made, %d before", withBr, before)
	}
	if got := decoded(t, get(t, a, answers, "gzip")); !bytes.Equal(got, answerBody) {
		t.Errorf("gzip body %q", got)
	}
	if got := a.tried.Load(); got != everyCoding {
		t.Errorf("after a gzip client, made %03b, want %03b", got, everyCoding)
	}
	if after := held(); after <= withBr {
		t.Errorf("the cache counts %d bytes after gzip was made, %d before", after, withBr)
	}
}
