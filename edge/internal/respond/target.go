package respond

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// Path and QueryOf read the request target's own bytes where fasthttp's
// URI would hold the same: ctx.Path() and ctx.QueryArgs() parse the whole
// URI first (the host, the path, then the path normalised: percent-decoded
// and searched for "//", "/./", "/../" and a trailing "/.."), about 2,250
// instructions of a passage hit's 11,000 (docs/edge.md, "The second round
// of issue 29"). A target with nothing that parsing decodes or rewrites,
// under a Host it accepts as it is, reads the same either way; any other
// request takes fasthttp's. The checks are the library's vectorised
// searches, not a loop over the bytes. fasthttp refuses control bytes in a
// request line it reads, so none is looked for. Both read the target as
// received: code that changed ctx's URI or query arguments must ask
// fasthttp. FuzzTarget checks that both agree with fasthttp's.

// Path is ctx.Path().
func Path(ctx *fasthttp.RequestCtx) []byte {
	raw := ctx.Request.Header.RequestURI()
	path := raw
	if i := bytes.IndexByte(raw, '?'); i >= 0 {
		path = raw[:i]
	}
	if !origin(raw) || bytes.IndexByte(path, '%') >= 0 || bytes.IndexByte(path, '#') >= 0 ||
		bytes.Contains(path, slashSlash) || bytes.Contains(path, slashDot) ||
		!plainHost(ctx.Request.Header.Host()) {
		return ctx.Path()
	}
	return path
}

// Query is a request's query arguments, read as ctx.QueryArgs() reads
// them (QueryOf).
type Query struct {
	raw  []byte         // the query's own bytes, when plain
	args *fasthttp.Args // else fasthttp's
}

// QueryOf is ctx's query. fasthttp's server has split the URI before
// calling the handler (it refuses a request whose URI does not parse), so
// the query string is at hand; its arguments are read from its own bytes
// when they hold nothing fasthttp's parsing of them would decode, without
// the copy that parsing makes.
func QueryOf(ctx *fasthttp.RequestCtx) Query {
	q := ctx.URI().QueryString()
	// '%' escapes a byte and '+' is a space, in keys and values.
	if bytes.IndexByte(q, '%') >= 0 || bytes.IndexByte(q, '+') >= 0 {
		return Query{args: ctx.QueryArgs()}
	}
	return Query{raw: q}
}

// PeekAll sets vals[i] to ctx.QueryArgs().Peek(names[i]), for at most 64
// distinct names, in one pass over the query: the value of the first
// name=value named so; empty for a name without "=" and when absent.
func (q Query) PeekAll(names []string, vals [][]byte) {
	if q.args != nil {
		for i, name := range names {
			vals[i] = q.args.Peek(name)
		}
		return
	}
	clear(vals[:len(names)])
	var seen uint64
	for b := q.raw; len(b) > 0; {
		arg := b
		if i := bytes.IndexByte(b, '&'); i >= 0 {
			arg, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		key, v := arg, arg[len(arg):] // a name without "=": empty, not nil
		if i := bytes.IndexByte(arg, '='); i >= 0 {
			key, v = arg[:i], arg[i+1:]
		}
		for i, name := range names {
			if len(name) == len(key) && seen&(1<<i) == 0 && name == string(key) {
				vals[i], seen = v, seen|1<<i
				break
			}
		}
	}
}

// origin reports whether raw is an origin-form target ("/path?query")
// that fasthttp's URI parsing does not read as "//host/path".
func origin(raw []byte) bool {
	return len(raw) > 0 && raw[0] == '/' && (len(raw) == 1 || raw[1] != '/')
}

var slashDot, slashSlash = []byte("/."), []byte("//")

// plainHost reports whether h is a host name or an IPv4 address, with an
// optional port, made only of bytes fasthttp's URI parsing keeps as they
// are (it refuses or rewrites others: brackets, escapes, a bad port).
func plainHost(h []byte) bool {
	for i, c := range h {
		if !hostByte[c] {
			if c != ':' || i+1 == len(h) {
				return false
			}
			for _, d := range h[i+1:] {
				if d < '0' || d > '9' {
					return false
				}
			}
			return true
		}
	}
	return true
}

// hostByte holds the bytes of a plain host name: letters, digits, '.', '-'.
var hostByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-'
	}
	return t
}()
