package edge

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strconv"

	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/wire/problem"
	"github.com/valyala/fasthttp"
)

// Paging (spec, Endpoints, common rules): page_size is 1..99, or "*" when
// fields[] names one to three fields, which returns every match; fields[]
// names top-level fields; page_token comes from a previous
// next_page_token. Items are in a stable order per collection
// (docs/catalogue.md), and a page token is the position of the next page
// in that order, bound to the query and the build it was issued for.

const (
	defaultPageSize = 25
	maxPageSize     = 99
	maxStarFields   = 3
)

// page is a parsed paging request.
type page struct {
	size   int   // items per page; 0 with all
	all    bool  // page_size=*
	fields []int // indexes into the resource's fields, in its order; nil for all
	offset int   // from page_token
}

// parsePage reads page_size, fields[] and page_token for a collection of
// resources with the given fields. qh binds tokens to the query (see
// queryHash). It writes the 422 or 400 itself and reports false.
func (s *catalogue) parsePage(ctx *fasthttp.RequestCtx, fields []string, qh [8]byte) (page, bool) {
	var p page
	args := ctx.QueryArgs()
	if raw := args.PeekMulti("fields[]"); len(raw) > 0 {
		sel := make([]bool, len(fields))
		for _, f := range raw {
			i := fieldIndex(fields, string(f))
			if i < 0 {
				respond.Invalid(ctx, problem.UnknownField(string(f), "query", "fields[]"))
				return p, false
			}
			sel[i] = true
		}
		for i, ok := range sel {
			if ok {
				p.fields = append(p.fields, i)
			}
		}
	}
	switch ps := args.Peek("page_size"); {
	case args.Has("page_size") && len(ps) == 0:
		respond.Invalid(ctx, problem.PageSize(1, maxPageSize, "query", "page_size"))
		return p, false
	case len(ps) == 0:
		p.size = defaultPageSize
	case string(ps) == "*":
		if len(p.fields) == 0 || len(p.fields) > maxStarFields {
			respond.Invalid(ctx, problem.PageSizeAllNeedsFields("query", "page_size"))
			return p, false
		}
		p.all = true
	default:
		n, err := strconv.Atoi(string(ps))
		if err != nil {
			respond.Invalid(ctx, problem.NotInt("query", "page_size"))
			return p, false
		}
		if n < 1 || n > maxPageSize {
			respond.Invalid(ctx, problem.Between(1, maxPageSize, "query", "page_size"))
			return p, false
		}
		p.size = n
	}
	if tok := args.Peek("page_token"); len(tok) > 0 {
		off, msg := s.pageTokens.open(tok, qh)
		if msg != "" {
			respond.Answer(ctx, problem.Unacceptable, msg)
			return p, false
		}
		p.offset = off
	}
	return p, true
}

func fieldIndex(fields []string, f string) int {
	for i, x := range fields {
		if x == f {
			return i
		}
	}
	return -1
}

// window is the part of n items the page shows, and the offset of the next
// page (-1 on the last page).
func (p page) window(n int) (from, to, next int) {
	from = min(p.offset, n)
	if p.all {
		return from, n, -1
	}
	to = min(from+p.size, n)
	if to >= n {
		return from, to, -1
	}
	return from, to, to
}

// key is the page in a normalised form, for the keys of cached answers.
func (p page) key() string {
	b := make([]byte, 0, 32)
	if p.all {
		b = append(b, '*')
	} else {
		b = strconv.AppendInt(b, int64(p.size), 10)
	}
	b = append(b, '@')
	b = strconv.AppendInt(b, int64(p.offset), 10)
	for _, f := range p.fields {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(f), 10)
	}
	return string(b)
}

// has reports whether field i is selected.
func (p page) has(i int) bool {
	if p.fields == nil {
		return true
	}
	for _, f := range p.fields {
		if f == i {
			return true
		}
	}
	return false
}

// queryHash binds a page token to one collection, one build and the
// parameters that choose the items (not page_size or fields[], which may
// change from page to page). parts are those parameters, already
// normalised by the caller.
func queryHash(collection, build string, parts ...string) [8]byte {
	h := sha256.New()
	var n [8]byte
	for _, s := range append([]string{collection, build}, parts...) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	var out [8]byte
	copy(out[:], h.Sum(nil))
	return out
}

// pageTokens issues and opens page tokens: version, offset and query hash,
// sealed with an HMAC so that a client can neither forge a position nor
// reuse a token for another query. The key is Config.PageTokenKey, or a
// random one per process (then every edge behind one balancer needs the
// same configured key, or a token only works on the edge that issued it).
type pageTokens struct{ key []byte }

const (
	tokenVersion = 1
	tokenPayload = 1 + 4 + 8
	tokenMAC     = 12
)

var processTokenKey = func() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}()

// newPageTokens seals page tokens with key, or with a random key of this
// process when key is empty.
func newPageTokens(key []byte) pageTokens {
	if len(key) > 0 {
		return pageTokens{key}
	}
	return pageTokens{processTokenKey}
}

func (t pageTokens) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, t.key)
	m.Write(payload)
	return m.Sum(nil)[:tokenMAC]
}

func (t pageTokens) issue(offset int, qh [8]byte) string {
	var b [tokenPayload + tokenMAC]byte
	b[0] = tokenVersion
	binary.BigEndian.PutUint32(b[1:5], uint32(offset))
	copy(b[5:13], qh[:])
	copy(b[tokenPayload:], t.mac(b[:tokenPayload]))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// open checks a token and returns its offset, or a message for the 400.
func (t pageTokens) open(tok []byte, qh [8]byte) (int, problem.Text) {
	const forged = problem.PageTokenForged
	var b [tokenPayload + tokenMAC]byte
	if base64.RawURLEncoding.DecodedLen(len(tok)) != len(b) {
		return 0, forged
	}
	// Strict: a token has one spelling (no stray bits in its last
	// character), so it cannot be varied while still opening.
	if _, err := base64.RawURLEncoding.Strict().Decode(b[:], tok); err != nil {
		return 0, forged
	}
	if b[0] != tokenVersion || !hmac.Equal(b[tokenPayload:], t.mac(b[:tokenPayload])) {
		return 0, forged
	}
	if [8]byte(b[5:13]) != qh {
		return 0, problem.PageTokenStale
	}
	off := binary.BigEndian.Uint32(b[1:5])
	if off > 1<<30 {
		return 0, forged
	}
	return int(off), ""
}

// envelope composes a collection answer: data, then next_page_token when
// there is a next page, then total_size when the collection reports it.
type envelope struct {
	buf   []byte
	items int
}

func (e *envelope) begin() { e.buf = append(e.buf[:0], `{"data":[`...) }

// item appends one object made of the selected fragments. frag returns the
// `"name":value` bytes of field i (nil when the item lacks it).
func (e *envelope) item(p page, nfields int, frag func(i int) []byte) {
	if e.items > 0 {
		e.buf = append(e.buf, ',')
	}
	e.items++
	e.buf = appendObject(e.buf, p, nfields, frag)
}

func appendObject(buf []byte, p page, nfields int, frag func(i int) []byte) []byte {
	buf = append(buf, '{')
	first := true
	for i := 0; i < nfields; i++ {
		if !p.has(i) {
			continue
		}
		f := frag(i)
		if f == nil {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(buf, f...)
	}
	return append(buf, '}')
}

func (e *envelope) end(next string, total int, withTotal bool) []byte {
	e.buf = append(e.buf, ']')
	if next != "" {
		e.buf = append(e.buf, `,"next_page_token":"`...)
		e.buf = append(e.buf, next...) // base64url: nothing to escape
		e.buf = append(e.buf, '"')
	}
	if withTotal {
		e.buf = append(e.buf, `,"total_size":`...)
		e.buf = strconv.AppendInt(e.buf, int64(total), 10)
	}
	return append(e.buf, '}')
}
