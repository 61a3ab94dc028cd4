// Package represent is RFC 9110 for one resource: the resource with every
// content coding it exists in and the header values it answers with,
// prepared once; Accept-Encoding negotiation; the preconditions in
// net/http's order; Range and multipart ranges; and Serve, which answers a
// GET or HEAD with all of them.
package represent

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/publish"
)

// Resource is one servable resource with every encoding it exists in, and
// the header values the hot path writes, prepared once when its pack is
// decoded (or its range composed) so that serving is a lookup and a write.
//
// Under load the edge's heap is far larger than the CPU's caches, and each
// line an answer touches is a likely miss. So a resource is only its
// codings, 64 bytes each: in a pack's slice of resources every rep lies in
// one line, and an answer reads the one line of the coding it sends (the
// others only when the client prefers a coding the resource lacks).
type Resource struct {
	Reps [NumCodings]Rep
}

// Rep is one content coding of a resource: its body, the header values it
// shares with the resource's other codings, and its entity tag (quoted,
// strong, distinct per coding: RFC 9110 §8.8.3.3), kept inline so that an
// answer finds it in the same line instead of behind a pointer.
type Rep struct {
	body []byte
	head *Head // nil when the resource lacks this coding
	tag  [publish.MaxETag]byte
	tagN uint8
}

// Head is what an answer's header takes from a resource besides its
// tag. Heads are shared edge-wide (SharedHead): a build has a handful of
// content types and publish times, so an answer reads its head from the
// processor's cache.
type Head struct {
	ctype   []byte
	lastMod []byte // Last-Modified, an HTTP date; empty when there is none
	mod     int64  // the same in Unix seconds

	// blocks are a shared head's header blocks (writeBlock), by coding
	// and cache policy, each built when first needed.
	shared bool
	blocks [NumCodings][2]atomic.Pointer[fasthttp.ResponseHeader]
}

// ETag is r's entity tag, quoted.
func (r *Rep) ETag() []byte { return r.tag[:r.tagN] }

// Body is r's bytes in its coding.
func (r *Rep) Body() []byte { return r.body }

// Head is what r shares with the resource's other codings; nil when the
// resource lacks r's coding.
func (r *Rep) Head() *Head { return r.head }

// Set makes r a coding of body; t is at most publish.MaxETag bytes (a
// pack's are checked when decoded, and the edge's own come from
// publish.ETag).
func (r *Rep) Set(body []byte, t string, h *Head) {
	r.body, r.head = body, h
	r.tagN = uint8(copy(r.tag[:], t))
}

// Has reports whether the resource exists in coding c.
func (res *Resource) Has(c int) bool { return res.Reps[c].head != nil }

// ContentType is the representation's media type.
func (h *Head) ContentType() []byte { return h.ctype }

// LastModified is the Last-Modified field value; empty when there is none.
func (h *Head) LastModified() []byte { return h.lastMod }

// modified is Last-Modified as a time, zero when there is none.
func (h *Head) modified() time.Time {
	if len(h.lastMod) == 0 {
		return time.Time{}
	}
	return time.Unix(h.mod, 0).UTC()
}

// Cache-Control is decided when an answer is served, never stored with
// the content: whether a Bible's passages may sit in a shared cache depends
// on its licence today (the access snapshot's open_bibles), and a licence
// change must not republish every passage. Every resource is served with
// one of these two.
//
// The public form lets shared caches keep an answer for an hour and serve
// it stale for a day while revalidating: every answer carries a strong
// ETag, so revalidation is cheap. The private form keeps a shared cache (a
// CDN, a corporate proxy) from storing one app's licensed text and handing
// it to another app: the App Key is a request header no cache keys on (RFC
// 9111 §5.2.2.7); the reader's own client still caches it.
const (
	CachePublic  = "public, max-age=3600, stale-while-revalidate=86400"
	CachePrivate = "private, max-age=3600"
)

var (
	ValCachePublic  = []byte(CachePublic)
	ValCachePrivate = []byte(CachePrivate)
	// ValCacheImmutable is for what is named by a hash of its content (a
	// font file, the reader's assets): it never changes under its name.
	ValCacheImmutable = []byte("public, max-age=31536000, immutable")
)

// heads is the edge-wide table of response heads (content type and
// modification time). It is bounded: past headsMax distinct heads (a build
// has a handful of content types and publish times) a resource keeps a
// head of its own.
var heads struct {
	sync.Mutex
	m map[headKey]*Head
}

type headKey struct {
	ctype string
	mod   int64
}

const headsMax = 4096

// SharedHead returns the head for ctype and mod (zero: no Last-Modified).
func SharedHead(ctype string, mod time.Time) *Head {
	k := headKey{ctype: ctype}
	if !mod.IsZero() {
		k.mod = mod.Unix()
	}
	heads.Lock()
	defer heads.Unlock()
	if h, ok := heads.m[k]; ok {
		return h
	}
	h := &Head{ctype: []byte(ctype), mod: k.mod}
	if !mod.IsZero() {
		h.lastMod = fasthttp.AppendHTTPDate(nil, mod)
	}
	if heads.m == nil {
		heads.m = make(map[headKey]*Head)
	}
	if len(heads.m) < headsMax {
		heads.m[k] = h
		h.shared = true
	}
	return h
}

// writeBlock starts an answer's header (a 200 or 206 of a representation
// with this head, in coding c, under the private or public Cache-Control)
// with the fields that follow from those alone: Content-Type,
// Content-Encoding, Last-Modified, Vary, Accept-Ranges and Cache-Control.
// Whatever h held is dropped; the caller sets the ETag and its own fields
// after.
//
// A shared head keeps these fields as a prepared header block, copied in
// one call: fasthttp copies a header's values as they are, where setting
// a field copies its value, scans it for CR and LF and searches the
// fields set before. fasthttp takes no raw block of header lines, so
// this is as near to writing one as it allows. An unshared head (past
// headsMax) sets the fields one by one, so that the memory of blocks
// stays bounded with the heads.
func (hd *Head) writeBlock(h *fasthttp.ResponseHeader, c int, private bool) {
	if !hd.shared {
		h.Reset()
		hd.setFixed(h, c, private)
		return
	}
	p := &hd.blocks[c][0]
	if private {
		p = &hd.blocks[c][1]
	}
	b := p.Load()
	if b == nil {
		b = new(fasthttp.ResponseHeader)
		hd.setFixed(b, c, private)
		if !p.CompareAndSwap(nil, b) {
			b = p.Load()
		}
	}
	b.CopyTo(h)
}

// setFixed sets writeBlock's fields in h.
func (hd *Head) setFixed(h *fasthttp.ResponseHeader, c int, private bool) {
	h.SetContentTypeBytes(hd.ctype)
	if c != CodingIdentity {
		h.SetContentEncodingBytes(codingNamesB[c])
	}
	if len(hd.lastMod) > 0 {
		h.SetCanonical(respond.HdrLastModified, hd.lastMod)
	}
	h.SetCanonical(respond.HdrAcceptRanges, respond.ValBytes)
	setCaching(h, private)
}

// setCaching sets what every answer of a negotiated resource carries for
// caches, a 304 included (RFC 9110 §12.5.5, §15.4.5): Vary, so that they
// key on the encoding, and the Cache-Control of the private or public form.
func setCaching(h *fasthttp.ResponseHeader, private bool) {
	h.SetCanonical(respond.HdrVary, respond.ValAcceptEncoding)
	h.SetCanonical(respond.HdrCacheControl, CacheControl(private))
}

// CacheControl is the Cache-Control value of the private or public form.
func CacheControl(private bool) []byte {
	if private {
		return ValCachePrivate
	}
	return ValCachePublic
}

// InitResource prepares a pack entry for serving in r, with head h: each
// coding's body is bodies[Off:Off+Len] (a whole pack's bodies, or an
// entry's read by range), which the caller has checked.
func InitResource(r *Resource, e *publish.Entry, bodies []byte, h *Head) {
	for i := range e.Reps {
		x := &e.Reps[i]
		// A coding this edge does not know (zstd, later) is skipped.
		if c := slices.Index(CodingNames[:], x.Encoding); c >= 0 {
			r.Reps[c].Set(bodies[x.Off:x.Off+x.Len], x.ETag, h)
		}
	}
}

// Size is the memory a resource that owns its bodies (a composed one, or
// an entry read by range) holds: its struct, its bodies, and its head
// unless the head is shared edge-wide (counted nowhere: at most headsMax).
func (r *Resource) Size() int64 {
	n := cache.AllocSize(int64(unsafe.Sizeof(*r)))
	if h := r.Reps[CodingIdentity].head; h != nil && !h.shared {
		n += cache.AllocSize(int64(unsafe.Sizeof(*h))) + cache.AllocSize(len(h.ctype)) + cache.AllocSize(len(h.lastMod))
	}
	for _, x := range r.Reps {
		n += cache.AllocSize(len(x.body))
	}
	return n
}
