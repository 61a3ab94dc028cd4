package respond

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

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
// name=value named so; empty for a name without "=". vals must come
// zeroed: an absent name's stays nil.
func (q Query) PeekAll(names []string, vals [][]byte) {
	if q.args != nil {
		for i, name := range names {
			vals[i] = q.args.Peek(name)
		}
		return
	}
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
