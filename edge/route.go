package edge

import (
	"bytes"
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/content"
	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// route is a parsed /v1/bibles/… path and its route class.
type route struct {
	content.Route
	class metrics.Class
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
	rt.Bible = seg[0]
	rt.BibleID, rt.BibleParse = params.PathID(seg[0])
	lit := func(i int, s string) bool { return string(seg[i]) == s }
	switch {
	case n == 1:
		rt.Kind, rt.class = content.KindBible, metrics.ClassBible
	case n == 2 && lit(1, "index"):
		rt.Kind, rt.class = content.KindIndex, metrics.ClassIndex
	case n == 2 && lit(1, "books"):
		rt.Kind, rt.class = content.KindBooks, metrics.ClassBooks
	case n == 3 && lit(1, "passages"):
		rt.Kind, rt.class, rt.Passage = content.KindPassage, metrics.ClassPassage, seg[2]
		if bytes.IndexByte(seg[2], '-') >= 0 {
			rt.class = metrics.ClassPassageRange
		}
	case n == 3 && lit(1, "map"):
		rt.Kind, rt.class, rt.Passage = content.KindMap, metrics.ClassIndex, seg[2]
	case n == 2 && lit(1, "references"):
		rt.Kind, rt.class = content.KindReferences, metrics.ClassIndex
	case n >= 3 && lit(1, "books"):
		rt.Book = seg[2]
		switch {
		case n == 3:
			rt.Kind, rt.class = content.KindBook, metrics.ClassBook
		case n == 4 && lit(3, "chapters"):
			rt.Kind, rt.class = content.KindChapters, metrics.ClassChapters
		case n == 5 && lit(3, "chapters"):
			rt.Kind, rt.class, rt.Chapter = content.KindChapter, metrics.ClassChapter, seg[4]
		case n == 6 && lit(3, "chapters") && lit(5, "verses"):
			rt.Kind, rt.class, rt.Chapter = content.KindVerses, metrics.ClassVerses, seg[4]
		case n == 7 && lit(3, "chapters") && lit(5, "verses"):
			rt.Kind, rt.class, rt.Chapter, rt.Verse = content.KindVerse, metrics.ClassVerse, seg[4], seg[6]
		default:
			return false
		}
	default:
		return false
	}
	return true
}

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
	site  *atomic.Pointer[site.Site]
}

// admitGET runs the checks a GET route group (Bibles, catalogue, search) starts
// with, in the edge's order (docs/edge.md): a path of unknown shape under
// the group is 404, a method other than GET or HEAD 405, and an edge
// without a build or an access snapshot yet answers "starting". ok is
// false when it has answered.
func (g *gate) admitGET(ctx *fasthttp.RequestCtx, known bool) (*authz.Table, *site.Site, bool) {
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
