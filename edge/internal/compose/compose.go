// Package compose is what the edge's answers composed on demand share (a
// range of verses, a catalogue page, a search answer, the developer
// pages): the body prepared as a published one is (codings compressed
// once, strong ETags), an answer served and kept under the key of the
// request that asked for it, and the bound on computations at once.
package compose

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/valyala/fasthttp"
	"github.com/zeebo/xxh3"

	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/publish"
)

// Codecs compress composed bodies at one pair of levels. The writers are
// pooled: a brotli writer allocates about 2 MB of hash tables and ring
// buffer, which cost more than compressing a short range or a search
// answer; a sync.Pool lets the garbage collector take idle ones back, so a
// quiet edge does not keep them.
type Codecs struct{ br, gz sync.Pool }

func newCodecs(brLevel, gzLevel int) *Codecs {
	c := &Codecs{}
	c.br.New = func() any { return brotli.NewWriterLevel(nil, brLevel) }
	c.gz.New = func() any {
		w, _ := gzip.NewWriterLevel(nil, gzLevel) // the levels below are valid
		return w
	}
	return c
}

var (
	// Catalogue answers and the edge's own pages are few, kept long and
	// asked for again: brotli 5 compresses about as well as gzip 9 at a
	// fraction of brotli 9's cost.
	Kept = newCodecs(5, 6)
	// Search answers and composed verse ranges are computed for every
	// query or range not in their cache (at catalogue scale most are asked
	// for once) and are about a kilobyte, where higher levels gain a few
	// bytes for several times the CPU: a range of the scale mix (914 bytes
	// on average) takes 22 us in brotli 2 and 85 us in brotli 5, for 471
	// bytes against 414, in one TCP segment with its header either way. A
	// range has these codings however it is made (the edge's answer or
	// an export's file).
	Quick = newCodecs(2, 4)
)

// NewResource prepares a composed body like the build prepares a
// published one: identity plus each coding that is smaller, a strong ETag
// per coding in the build's form, served as ctype.
func NewResource(body []byte, ctype string, mod time.Time, c *Codecs) *represent.Resource {
	return NewComplete(body, ctype, mod, c).Resource()
}

// NewComplete is NewResource's body as an answer, for a cache of answers:
// every coding made at once, so that serving it is a lookup.
func NewComplete(body []byte, ctype string, mod time.Time, c *Codecs) *Answer {
	// The cache keeps these bodies for as long as the answer is asked
	// for: a copy of exactly its length, so the spare capacity of the
	// caller's growing buffer goes with it.
	a := NewAnswer(bytes.Clone(body), ctype, mod, c)
	a.complete()
	return a
}

// validatorSum is the hash a composed body's entity tags are made of
// (publish.ETag shows its first 12 bytes, 96 bits). A tag is a validator:
// a client or cache compares it with the tag of the current
// representation of the same URL (If-None-Match, If-Range), never with
// another URL's, and which bodies one URL has over time is decided by the
// builds, not by a client that could search for a collision. So it needs
// a hash whose 96 bits do not collide by chance, not one that resists
// such a search: xxh3's 128 bits hash a one-kilobyte search answer about
// twenty times faster than SHA-256 (30 ns against 530 ns), on a path
// taken by every query the answer cache does not hold. Serve's key,
// shared by the requests whose answers have the same bytes, is another
// matter: a collision there would serve one URL's body for another's, so
// it stays SHA-256.
func validatorSum(body []byte) [32]byte {
	var sum [32]byte
	h := xxh3.Hash128(body).Bytes()
	copy(sum[:], h[:])
	return sum
}

// brotli and gzip compress body and return a copy of exactly the
// compressed length, so a cached answer holds only its bytes.
func (c *Codecs) brotli(body []byte) []byte {
	var buf bytes.Buffer
	w := c.br.Get().(*brotli.Writer)
	w.Reset(&buf)
	w.Write(body) // a bytes.Buffer does not fail
	w.Close()
	w.Reset(nil)
	c.br.Put(w)
	return bytes.Clone(buf.Bytes())
}

func (c *Codecs) gzip(body []byte) []byte {
	var buf bytes.Buffer
	w := c.gz.Get().(*gzip.Writer)
	w.Reset(&buf)
	w.Write(body)
	w.Close()
	w.Reset(nil)
	c.gz.Put(w)
	return bytes.Clone(buf.Bytes())
}

// Serve serves a JSON body composed on demand with the edge's HTTP
// semantics and Cache-Control cc. Encoded forms are kept in composed by
// the hash of the body, so the same answer is compressed once however it
// was asked for; reqKey, when not "", also names the answer, for answers
// that cost more to compose than to look up: ServeRemembered serves it
// again under reqKey.
func Serve(ctx *fasthttp.RequestCtx, composed *cache.LRU[*Answer], reqKey string, body []byte, mod time.Time, cc string, private bool) {
	sum := sha256.Sum256(append([]byte(cc+"\x00"), body...))
	key := "catalog/" + hex.EncodeToString(sum[:16])
	a, ok := composed.Get(key)
	if !ok {
		a = NewComplete(body, publish.JSON, mod, Kept)
		composed.Add(key, a, a.Size())
	}
	if reqKey != "" {
		// The answer is shared with the content key, and complete (it
		// does not grow): count only the entry itself.
		composed.Add(reqKey, a, 0)
	}
	represent.Serve(ctx, a.Resource(), private)
	if !private && cc != represent.CachePublic {
		ctx.Response.Header.Set("Cache-Control", cc)
	}
}

// NoContent is the spec's 204: nothing matches, no body.
func NoContent(ctx *fasthttp.RequestCtx, private bool) {
	ctx.Response.Header.SetCanonical(respond.HdrCacheControl, represent.CacheControl(private))
	ctx.SetStatusCode(fasthttp.StatusNoContent)
	ctx.Response.ResetBody()
}
