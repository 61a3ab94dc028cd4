// Package paging is the spec's paging of a collection, shared by the
// catalogue and search: page_size, fields[] and page_token read from the
// query, page tokens sealed so that a client can neither forge a position
// nor reuse one for another query, and the envelope of one page.
package paging

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
	DefaultSize   = 25
	MaxSize       = 99
	maxStarFields = 3
)

// Page is a parsed paging request.
type Page struct {
	Size   int   // items per page; 0 with All
	All    bool  // page_size=*
	Fields []int // indexes into the resource's fields, in its order; nil for all
	Offset int   // from page_token
}

// Parse reads page_size, fields[] and page_token for a collection of
// resources with the given fields. qh binds tokens to the query (see
// QueryHash), which tokens open. It writes the 422 or 400 itself and
// reports false.
func Parse(ctx *fasthttp.RequestCtx, tokens Tokens, fields []string, qh [8]byte) (Page, bool) {
	var p Page
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
				p.Fields = append(p.Fields, i)
			}
		}
	}
	switch ps := args.Peek("page_size"); {
	case args.Has("page_size") && len(ps) == 0:
		respond.Invalid(ctx, problem.PageSize(1, MaxSize, "query", "page_size"))
		return p, false
	case len(ps) == 0:
		p.Size = DefaultSize
	case string(ps) == "*":
		if len(p.Fields) == 0 || len(p.Fields) > maxStarFields {
			respond.Invalid(ctx, problem.PageSizeAllNeedsFields("query", "page_size"))
			return p, false
		}
		p.All = true
	default:
		n, err := strconv.Atoi(string(ps))
		if err != nil {
			respond.Invalid(ctx, problem.NotInt("query", "page_size"))
			return p, false
		}
		if n < 1 || n > MaxSize {
			respond.Invalid(ctx, problem.Between(1, MaxSize, "query", "page_size"))
			return p, false
		}
		p.Size = n
	}
	if tok := args.Peek("page_token"); len(tok) > 0 {
		off, msg := tokens.Open(tok, qh)
		if msg != "" {
			respond.Answer(ctx, problem.Unacceptable, msg)
			return p, false
		}
		p.Offset = off
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

// Window is the part of n items the page shows, and the offset of the next
// page (-1 on the last page).
func (p Page) Window(n int) (from, to, next int) {
	from = min(p.Offset, n)
	if p.All {
		return from, n, -1
	}
	to = min(from+p.Size, n)
	if to >= n {
		return from, to, -1
	}
	return from, to, to
}

// Key is the page in a normalised form, for the keys of cached answers.
func (p Page) Key() string {
	b := make([]byte, 0, 32)
	if p.All {
		b = append(b, '*')
	} else {
		b = strconv.AppendInt(b, int64(p.Size), 10)
	}
	b = append(b, '@')
	b = strconv.AppendInt(b, int64(p.Offset), 10)
	for _, f := range p.Fields {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(f), 10)
	}
	return string(b)
}

// Has reports whether field i is selected.
func (p Page) Has(i int) bool {
	if p.Fields == nil {
		return true
	}
	for _, f := range p.Fields {
		if f == i {
			return true
		}
	}
	return false
}

// QueryHash binds a page token to one collection, one build and the
// parameters that choose the items (not page_size or fields[], which may
// change from page to page). parts are those parameters, already
// normalised by the caller.
func QueryHash(collection, build string, parts ...string) [8]byte {
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

// Tokens issues and opens page tokens: version, offset and query hash,
// sealed with an HMAC so that a client can neither forge a position nor
// reuse a token for another query. The key is Config.PageTokenKey, or a
// random one per process (then every edge behind one balancer needs the
// same configured key, or a token only works on the edge that issued it).
type Tokens struct{ key []byte }

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

// NewTokens seals page tokens with key, or with a random key of this
// process when key is empty.
func NewTokens(key []byte) Tokens {
	if len(key) > 0 {
		return Tokens{key}
	}
	return Tokens{processTokenKey}
}

func (t Tokens) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, t.key)
	m.Write(payload)
	return m.Sum(nil)[:tokenMAC]
}

// Issue seals offset for the query qh.
func (t Tokens) Issue(offset int, qh [8]byte) string {
	var b [tokenPayload + tokenMAC]byte
	b[0] = tokenVersion
	binary.BigEndian.PutUint32(b[1:5], uint32(offset))
	copy(b[5:13], qh[:])
	copy(b[tokenPayload:], t.mac(b[:tokenPayload]))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Open checks a token and returns its offset, or a message for the 400.
func (t Tokens) Open(tok []byte, qh [8]byte) (int, problem.Text) {
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

// Envelope composes a collection answer: data, then next_page_token when
// there is a next page, then total_size when the collection reports it.
type Envelope struct {
	buf   []byte
	items int
}

// Begin starts the page.
func (e *Envelope) Begin() { e.buf = append(e.buf[:0], `{"data":[`...) }

// Item appends one object made of the selected fragments. frag returns the
// `"name":value` bytes of field i (nil when the item lacks it).
func (e *Envelope) Item(p Page, nfields int, frag func(i int) []byte) {
	if e.items > 0 {
		e.buf = append(e.buf, ',')
	}
	e.items++
	e.buf = AppendObject(e.buf, p, nfields, frag)
}

// AppendObject appends one object made of the fields p selects.
func AppendObject(buf []byte, p Page, nfields int, frag func(i int) []byte) []byte {
	buf = append(buf, '{')
	first := true
	for i := 0; i < nfields; i++ {
		if !p.Has(i) {
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

// End closes the page: next is the next page's token ("" on the last),
// total the collection's size when withTotal.
func (e *Envelope) End(next string, total int, withTotal bool) []byte {
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
