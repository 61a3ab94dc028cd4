package edge

import (
	"bytes"
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

type routeKind uint8

const (
	routeBible routeKind = iota
	routeIndex
	routeBooks
	routeBook
	routeChapters
	routeChapter
	routeVerses
	routeVerse
	routePassage
)

// route is a parsed /v1/bibles/… path. Its fields point into the request's
// path: parsing allocates nothing.
type route struct {
	kind                        routeKind
	class                       metrics.Class
	bible, book, chapter, verse []byte
	passage                     []byte
}

// parseRoute matches the part of the path after "/v1/bibles/" against the
// spec's Bibles routes. It checks the shape only; values are checked by the
// handler, so that a well-shaped path with a bad value is 422 or 404 and a
// path of unknown shape is 404.
func parseRoute(p []byte, rt *route) bool {
	var seg [8][]byte
	n := 0
	for {
		i := bytes.IndexByte(p, '/')
		if n == len(seg) {
			return false
		}
		if i < 0 {
			seg[n] = p
			n++
			break
		}
		seg[n] = p[:i]
		n++
		p = p[i+1:]
	}
	for i := 0; i < n; i++ {
		if len(seg[i]) == 0 {
			return false // "//" or a trailing slash
		}
	}
	rt.bible = seg[0]
	lit := func(i int, s string) bool { return string(seg[i]) == s }
	switch {
	case n == 1:
		rt.kind, rt.class = routeBible, metrics.ClassBible
	case n == 2 && lit(1, "index"):
		rt.kind, rt.class = routeIndex, metrics.ClassIndex
	case n == 2 && lit(1, "books"):
		rt.kind, rt.class = routeBooks, metrics.ClassBooks
	case n == 3 && lit(1, "passages"):
		rt.kind, rt.class, rt.passage = routePassage, metrics.ClassPassage, seg[2]
		if bytes.IndexByte(seg[2], '-') >= 0 {
			rt.class = metrics.ClassPassageRange
		}
	case n >= 3 && lit(1, "books"):
		rt.book = seg[2]
		switch {
		case n == 3:
			rt.kind, rt.class = routeBook, metrics.ClassBook
		case n == 4 && lit(3, "chapters"):
			rt.kind, rt.class = routeChapters, metrics.ClassChapters
		case n == 5 && lit(3, "chapters"):
			rt.kind, rt.class, rt.chapter = routeChapter, metrics.ClassChapter, seg[4]
		case n == 6 && lit(3, "chapters") && lit(5, "verses"):
			rt.kind, rt.class, rt.chapter = routeVerses, metrics.ClassVerses, seg[4]
		case n == 7 && lit(3, "chapters") && lit(5, "verses"):
			rt.kind, rt.class, rt.chapter, rt.verse = routeVerse, metrics.ClassVerse, seg[4], seg[6]
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// idParse is what a path segment holds where an integer id goes.
type idParse uint8

const (
	idOK      idParse = iota // a canonical positive id: look it up
	idNone                   // an integer that names nothing: 404
	idInvalid                // not a 32-bit integer: 422
)

// parsePathID reads an integer id from a path segment (bible_id_path,
// font_id, a day of the verse of the day). Only the canonical form names a
// resource: decimal digits without sign or leading zero, above zero. An
// integer in another form ("-1", "0", "+1", "001") is well typed but no
// resource has that path, so it is 404, not the 422 "Input should be a
// valid 32-bit integer" that would be false (spec, Errors: a well-typed
// value that cannot exist is not a type error). Anything else, or a value
// beyond int32, is 422.
func parsePathID(b []byte) (int32, idParse) {
	signed := len(b) > 0 && (b[0] == '+' || b[0] == '-')
	digits := b
	if signed {
		digits = b[1:]
	}
	n, ok := respond.ParseDigits(digits)
	if !ok || n > 1<<31 || n == 1<<31 && b[0] != '-' {
		return 0, idInvalid
	}
	if signed || n == 0 || digits[0] == '0' {
		return 0, idNone
	}
	return int32(n), idOK
}

// Routes owned by the dynamic service (the edge authenticates and forwards).
var (
	gwHighlights   = []byte("/v1/highlights")
	gwLicenses     = []byte("/v1/licenses")
	gwApps         = []byte("/v1/apps/")
	gwDataExchange = []byte("/data-exchange")
	// Sign-in: the platform's pages and its OpenID provider (docs/sign-in.md).
	gwAuth      = []byte("/auth/")
	gwDiscovery = []byte("/.well-known/openid-configuration")
	gwJWKS      = []byte("/.well-known/jwks.json")
	// The developer portal (docs/portal.md): pages for a signed-in
	// account, no App Key.
	gwDevelopers = []byte("/developers")
)

func isGatewayPath(p []byte) bool {
	switch {
	case bytes.Equal(p, gwHighlights), bytes.HasPrefix(p, gwHighlights) && p[len(gwHighlights)] == '/':
		return true
	case bytes.Equal(p, gwLicenses):
		return true
	case bytes.HasPrefix(p, gwApps) && len(p) > len(gwApps):
		return true
	case bytes.Equal(p, gwDataExchange), bytes.HasPrefix(p, gwDataExchange) && p[len(gwDataExchange)] == '/':
		return true
	case isSignIn(p):
		return true
	}
	return false
}

// isSignIn reports the sign-in routes, which name their app (if any) by
// client_id, the App Key, and the developer portal's pages, which need
// none.
func isSignIn(p []byte) bool {
	return bytes.HasPrefix(p, gwAuth) && len(p) > len(gwAuth) || bytes.Equal(p, gwDiscovery) || bytes.Equal(p, gwJWKS) ||
		bytes.Equal(p, gwDevelopers) || bytes.HasPrefix(p, gwDevelopers) && p[len(gwDevelopers)] == '/'
}

func isDataExchange(p []byte) bool { return bytes.HasPrefix(p, gwDataExchange) }

// redirectHTTPS sends plain-HTTP requests to https with 308, which keeps
// the method and body (RFC 9110 §15.4.9), when this edge terminates TLS or a
// trusted proxy in front of it reports that the client used plain HTTP.
func (s *Server) redirectHTTPS(ctx *fasthttp.RequestCtx) bool {
	if !s.cfg.TLS && !s.cfg.ForceHTTPS {
		return false
	}
	plain := !ctx.IsTLS()
	if proto := ctx.Request.Header.Peek(wire.HeaderForwardedProto); len(proto) > 0 && s.authz.TrustedPeer(ctx) {
		plain = respond.EqualFoldASCII(proto, "http")
	} else if !s.cfg.TLS {
		return false // ForceHTTPS acts on a trusted proxy's word only
	}
	if !plain {
		return false
	}
	host := ctx.Host()
	if h, _, ok := cutLastColon(host); ok {
		host = h
	}
	loc := append([]byte("https://"), host...)
	if s.cfg.HTTPSPort != 443 {
		loc = append(loc, ':')
		loc = fasthttp.AppendUint(loc, s.cfg.HTTPSPort)
	}
	loc = append(loc, ctx.RequestURI()...)
	ctx.Response.Header.SetBytesV("Location", loc)
	respond.Message(ctx, fasthttp.StatusPermanentRedirect, problem.UseHTTPS)
	return true
}

// cutLastColon splits host:port, leaving a bracketed IPv6 address whole.
func cutLastColon(h []byte) (host, port []byte, ok bool) {
	i := bytes.LastIndexByte(h, ':')
	if i < 0 || bytes.IndexByte(h[i:], ']') >= 0 {
		return h, nil, false
	}
	return h[:i], h[i+1:], true
}

// gate holds what admitGET reads: the access table and the build in force.
type gate struct {
	authz *authz.Authz
	site  *atomic.Pointer[site]
}

// admitGET runs the checks a GET route group (Bibles, catalogue, search) starts
// with, in the edge's order (docs/edge.md): a path of unknown shape under
// the group is 404, a method other than GET or HEAD 405, and an edge
// without a build or an access snapshot yet answers "starting". ok is
// false when it has answered.
func (g *gate) admitGET(ctx *fasthttp.RequestCtx, known bool) (*authz.Table, *site, bool) {
	if !known {
		respond.RouteNotFound(ctx)
		return nil, nil, false
	}
	if !ctx.IsGet() && !ctx.IsHead() {
		respond.MethodNotAllowed(ctx, "GET, HEAD")
		return nil, nil, false
	}
	t, st := g.authz.Table(), g.site.Load()
	if t == nil || st == nil {
		respond.Starting(ctx)
		return nil, nil, false
	}
	return t, st, true
}
