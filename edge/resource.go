package edge

import (
	"strings"
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
// struct's first cache lines: under load the edge's heap is far larger
// than the CPU's caches, and each line touched is a likely miss.
type resource struct {
	avail     uint8 // bit c set when reps[c] exists
	ctype     []byte
	ccPublic  []byte // Cache-Control for content any app may read
	ccPrivate []byte // Cache-Control for content licensed per app
	lastMod   []byte // Last-Modified, an HTTP date
	mod       time.Time
	reps      [numCodings]rep
}

// rep is one content coding of a resource. An answer reads etagB and body;
// etag only when the request has a precondition.
type rep struct {
	etagB []byte
	body  []byte
	etag  string // quoted, strong, distinct per coding (RFC 9110 §8.8.3.3)
}

// defaultCacheControl applies when the build did not say: a day's
// freshness is safe because every response carries a strong ETag, so a
// client revalidates cheaply, and a build changes published content only
// when the text itself changes.
const defaultCacheControl = "public, max-age=3600, stale-while-revalidate=86400"

// cacheControls derives the public and private forms of a build's
// Cache-Control. The private form keeps a shared cache (a CDN, a corporate
// proxy) from storing one app's licensed text and handing it to another
// app: the App Key is a request header no cache keys on (RFC 9111 §5.2.2.7).
func cacheControls(cc string) (public, private string) {
	if cc == "" {
		cc = defaultCacheControl
	}
	var keep []string
	for _, d := range strings.Split(cc, ",") {
		d = strings.TrimSpace(d)
		name, _, _ := strings.Cut(strings.ToLower(d), "=")
		switch name {
		case "public", "private", "s-maxage", "proxy-revalidate":
			continue // shared-cache directives: meaningless once private
		case "":
			continue
		}
		keep = append(keep, d)
	}
	return cc, strings.Join(append([]string{"private"}, keep...), ", ")
}

// interner shares the header values that repeat across a pack's entries
// (Content-Type, Cache-Control, Last-Modified): a chapter pack has hundreds
// of entries and one or two distinct values of each.
type interner map[string][]byte

func (in interner) bytes(s string) []byte {
	if b, ok := in[s]; ok {
		return b
	}
	b := []byte(s)
	in[s] = b
	return b
}

// newResource prepares a pack entry for serving.
func newResource(p *publish.Pack, e *publish.Entry, mod time.Time, in interner) *resource {
	pub, priv := cacheControls(e.Cache)
	r := &resource{
		ctype:     in.bytes(e.Type),
		ccPublic:  in.bytes(pub),
		ccPrivate: in.bytes(priv),
	}
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
		r.reps[c] = rep{etag: x.ETag, etagB: []byte(x.ETag), body: p.Body(x)}
		r.avail |= 1 << c
	}
	return r
}

func (r *resource) setModified(mod time.Time) {
	if mod.IsZero() {
		return
	}
	r.mod = mod.UTC().Truncate(time.Second)
	r.lastMod = fasthttp.AppendHTTPDate(nil, r.mod)
}

// size is the memory the resource holds: its struct, tags and bodies.
// Header values shared through an interner are counted once per resource,
// which over-counts a little and keeps the bound safe.
func (r *resource) size() int64 {
	n := int64(unsafe.Sizeof(*r)) + int64(len(r.ctype)+len(r.ccPublic)+len(r.ccPrivate)+len(r.lastMod))
	for _, x := range r.reps {
		n += int64(len(x.etag)*2 + len(x.body))
	}
	return n
}
