package compose

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/publish"
)

// Answer is a composed answer that is compressed in a coding only when a
// request gets that coding: a search answer, computed for a query the
// answer cache does not hold, or a verse range the composed cache does
// not hold. Most such answers are served once (the long
// tail of rare queries, or every query when the cache is small), and
// compressing one in both brotli and gzip cost as much as a third of
// computing it. A coding is made when a request first gets it: the
// request that computes an answer has it compressed in its coding only
// (ServeNew), and a request that finds it in the answer cache in its own
// coding if no request made that before (ServeRemembered), so that from
// then on an answer from the cache is a lookup for that coding, as a
// published resource is. An answer only brotli clients ask for is never
// compressed in gzip.
//
// Every coding's entity tag comes from the identity body's hash, so an
// answer's tags are the same whichever coding was made first, and the
// same as those of the same answer computed again.
//
// The answer's codings are a represent.Resource that is replaced, never
// changed, when a coding is added: a request serves the resource it
// loaded while another adds a coding, without a lock.
type Answer struct {
	res atomic.Pointer[represent.Resource]
	// tried are the codings made (kept, or found no smaller than
	// identity and dropped), a bit each. A bit is set after res holds
	// the coding, so a reader that loads tried before res sees the
	// coding of every bit it sees.
	tried  atomic.Uint32
	mu     sync.Mutex // one coding of an answer is made at a time
	sum    [32]byte   // validatorSum of the identity body
	codecs *Codecs
}

const everyCoding = 1<<represent.NumCodings - 1

// MinCompressed is the shortest answer compressed for the request that
// computed it. A shorter one goes out with its header (about 450 bytes)
// in one TCP segment of a 1500-byte MTU path (1460 bytes) compressed or
// not, so compressing it saves that request no packet and no round trip,
// and costs 10 to 17 us of CPU in a benchmark's loop, a fifth of
// computing a search answer; about 55 us in an edge under the
// catalogue-scale mix, where the coder's tables have left the processor's
// caches by its next answer: half of composing a verse range. A first
// page of 25 verse references is about 760 bytes, a verse range of that
// mix 914 on average. An answer asked for again is compressed all the
// same (ServeRemembered): it is served many times, and the bytes saved
// add up across them.
const MinCompressed = 900

// NewAnswer prepares body, which the answer keeps, to be served as
// ctype, modified at mod, compressed with c when a request gets a coding.
func NewAnswer(body []byte, ctype string, mod time.Time, c *Codecs) *Answer {
	a := &Answer{sum: validatorSum(body), codecs: c}
	r := new(represent.Resource)
	r.Reps[represent.CodingIdentity].Set(body, publish.ETag(&a.sum, publish.Identity), represent.SharedHead(ctype, mod))
	a.res.Store(r)
	a.tried.Store(1 << represent.CodingIdentity)
	return a
}

// ServeNew serves a just computed answer to the request that computed it,
// compressed in the coding the request gets only: the coding it prefers
// among those not found too small to gain. An answer shorter than
// MinCompressed is served as it is.
func (a *Answer) ServeNew(ctx *fasthttp.RequestCtx, private bool) {
	if len(a.res.Load().Reps[represent.CodingIdentity].Body()) >= MinCompressed {
		a.makeNegotiated(ctx)
	}
	represent.Serve(ctx, a.res.Load(), private)
}

// makeNegotiated makes the coding ctx's request gets, if it is not made:
// the one it prefers, then, if that does not gain, the next. It reports
// whether it kept a coding.
func (a *Answer) makeNegotiated(ctx *fasthttp.RequestCtx) (grew bool) {
	for {
		tried := a.tried.Load()
		res := a.res.Load()
		c := represent.Negotiate(&ctx.Request.Header, func(c int) bool {
			return res.Has(c) || tried&(1<<c) == 0
		})
		if tried&(1<<c) != 0 {
			return grew
		}
		if a.make(c) {
			grew = true
		}
	}
}

// ServeRemembered serves the answer kept under key in answers, if there
// is one, and reports whether there was (a miss is counted). The request
// gets its coding made if no request made it before, and the answer's
// entry grows by it.
func ServeRemembered(ctx *fasthttp.RequestCtx, answers *cache.LRU[*Answer], key string, private bool) bool {
	a, ok := answers.Get(key)
	return ok && a.ServeKept(ctx, answers, key, private)
}

// ServeFound is ServeRemembered for a key in bytes, looked up without
// allocating; a miss is not counted, for a caller that then computes
// through Computations.Serve, whose look in the cache counts it.
func ServeFound(ctx *fasthttp.RequestCtx, answers *cache.LRU[*Answer], key []byte, private bool) bool {
	a, ok := answers.Find(key)
	return ok && a.ServeKept(ctx, answers, respond.UnsafeString(key), private)
}

// ServeKept serves a, found in answers under key (which it does not keep),
// as ServeRemembered does, for a caller that decides between finding an
// answer and serving it; it reports false, having served nothing, for a
// nil answer.
func (a *Answer) ServeKept(ctx *fasthttp.RequestCtx, answers *cache.LRU[*Answer], key string, private bool) bool {
	if a == nil {
		return false
	}
	if a.tried.Load() != everyCoding && a.makeNegotiated(ctx) {
		answers.Resize(key, a.Size(), func(v *Answer) bool { return v == a })
	}
	represent.Serve(ctx, a.res.Load(), private)
	return true
}

// complete makes every coding not made yet (NewComplete).
func (a *Answer) complete() {
	for c := range represent.NumCodings {
		if a.tried.Load()&(1<<c) == 0 {
			a.make(c)
		}
	}
}

// make compresses the answer in coding c, unless that was done, and
// reports whether it kept the coding: only a coding smaller than the
// identity body is kept, as the build keeps a published one.
func (a *Answer) make(c int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tried.Load()&(1<<c) != 0 {
		return false
	}
	old := a.res.Load()
	id := &old.Reps[represent.CodingIdentity]
	var b []byte
	switch c {
	case represent.CodingBrotli:
		b = a.codecs.brotli(id.Body())
	case represent.CodingGzip:
		b = a.codecs.gzip(id.Body())
	}
	kept := b != nil && len(b) < len(id.Body())
	if kept {
		r := new(represent.Resource)
		*r = *old
		r.Reps[c].Set(b, publish.ETag(&a.sum, represent.CodingNames[c]), id.Head())
		a.res.Store(r)
	}
	a.tried.Or(1 << c)
	return kept
}

// Size is the memory the answer holds: itself, its resource and bodies,
// the identity body with its spare capacity (it is kept as composed).
func (a *Answer) Size() int64 {
	r := a.res.Load()
	id := r.Reps[represent.CodingIdentity].Body()
	return cache.AllocSize(int64(unsafe.Sizeof(*a))) + r.Size() + cache.AllocSize(cap(id)) - cache.AllocSize(len(id))
}

// Resource is the answer's codings made so far.
func (a *Answer) Resource() *represent.Resource { return a.res.Load() }
