package edge

import (
	"sync"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/publish"
)

// resource is one servable resource with every encoding it exists in, and
// the header values the hot path writes, prepared once when its pack is
// decoded (or its range composed) so that serving is a lookup and a write.
//
// The fields every answer reads come first, so that they share the
// struct's first cache line: under load the edge's heap is far larger
// than the CPU's caches, and each line touched is a likely miss. The head
// is 64 bytes and so is each rep: in a pack's slice of resources (256
// bytes each) every rep lies in one line.
type resource struct {
	avail   uint8 // bit c set when reps[c] exists
	ctype   []byte
	lastMod []byte // Last-Modified, an HTTP date
	mod     int64  // the same in Unix seconds; 0 when there is none
	reps    [numCodings]rep
}

// rep is one content coding of a resource: its body and its entity tag
// (quoted, strong, distinct per coding: RFC 9110 §8.8.3.3). The tag is
// kept inline, 64 bytes in all, so that an answer finds both in one
// cache line instead of following a pointer to the tag's own allocation.
type rep struct {
	body []byte
	tag  [publish.MaxETag]byte
	tagN uint8
}

func (r *rep) etag() []byte { return r.tag[:r.tagN] }

// setETag sets the tag; t is at most publish.MaxETag bytes (a pack's are
// checked when decoded, and the edge's own come from publish.ETag).
func (r *rep) setETag(t string) { r.tagN = uint8(copy(r.tag[:], t)) }

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
	cachePublic  = "public, max-age=3600, stale-while-revalidate=86400"
	cachePrivate = "private, max-age=3600"
)

var (
	valCachePublic  = []byte(cachePublic)
	valCachePrivate = []byte(cachePrivate)
)

// interner shares the header values that repeat across a pack's entries
// (Content-Type, Last-Modified): a chapter pack has hundreds of entries
// and one or two distinct values of each. It takes them from the edge-wide
// table first, so that every pack of a build points at one copy: an
// answer then reads them from the processor's cache, where a copy per
// pack was a cache miss on most requests (two of the few a hit makes).
type interner map[string][]byte

func (in interner) bytes(s string) []byte {
	if b, ok := in[s]; ok {
		return b
	}
	b := sharedValue(s)
	in[s] = b
	return b
}

// sharedValues is the edge-wide table of repeated header values. It is
// bounded: past sharedValuesMax distinct values (a build has a handful of
// content types and publish times) a pack keeps its own copies.
var sharedValues struct {
	sync.Mutex
	m map[string][]byte
}

const sharedValuesMax = 4096

func sharedValue(s string) []byte {
	sharedValues.Lock()
	defer sharedValues.Unlock()
	if b, ok := sharedValues.m[s]; ok {
		return b
	}
	b := []byte(s)
	if sharedValues.m == nil {
		sharedValues.m = make(map[string][]byte)
	}
	if len(sharedValues.m) < sharedValuesMax {
		sharedValues.m[s] = b
	}
	return b
}

// initResource prepares a pack entry for serving in r.
func initResource(r *resource, p *publish.Pack, e *publish.Entry, mod time.Time, in interner) {
	r.ctype = in.bytes(e.Type)
	r.setModified(mod)
	if len(r.lastMod) > 0 {
		r.lastMod = in.bytes(string(r.lastMod))
	}
	for i := range e.Reps {
		x := &e.Reps[i]
		c := -1
		switch x.Encoding {
		case publish.Identity:
			c = codingIdentity
		case publish.Brotli:
			c = codingBr
		case publish.Gzip:
			c = codingGzip
		}
		if c < 0 {
			continue // a coding this edge does not know (zstd, later)
		}
		r.reps[c].body = p.Body(x)
		r.reps[c].setETag(x.ETag)
		r.avail |= 1 << c
	}
}

func (r *resource) setModified(mod time.Time) {
	if mod.IsZero() {
		return
	}
	r.mod = mod.Unix()
	r.lastMod = fasthttp.AppendHTTPDate(nil, mod)
}

// modified is Last-Modified as a time, zero when there is none.
func (r *resource) modified() time.Time {
	if r.mod == 0 {
		return time.Time{}
	}
	return time.Unix(r.mod, 0).UTC()
}

// size is the memory a resource that owns everything it points to (a
// composed one, or an entry read by range) holds: its struct, header
// values and bodies.
func (r *resource) size() int64 {
	n := allocSize(int64(unsafe.Sizeof(*r))) + allocSize(len(r.ctype)) + allocSize(len(r.lastMod))
	for _, x := range r.reps {
		n += allocSize(len(x.body))
	}
	return n
}
