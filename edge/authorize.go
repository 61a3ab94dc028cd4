package edge

import (
	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/edge/internal/respond"
)

// keySource says where a route may find the caller's App Key besides the
// X-SVC-App-Key header (spec, Authentication 4).
type keySource uint8

const (
	keyHeader       keySource = iota // the header only: content and most catalogue routes
	keyOrQueryParam                  // else ?app_key=: the font stylesheet, linked from <link href>
	keyOrAppID                       // else ?x-svc-app-key= or the public ?x-svc-app-id=: the browser data-exchange routes
)

// admission is what authorising a request decided that its answer reports
// at the end: the rate limit taken. Handler writes its fields last, after
// the route has answered, so that an answer may start its header afresh
// (a representation's header block, serve.go; dynamic's answer read
// through the gateway).
type admission struct {
	rate  decision
	taken bool
}

// writeRate sets the X-RateLimit-* fields of a taken rate limit.
func (a *admission) writeRate(h *fasthttp.ResponseHeader) {
	if !a.taken {
		return
	}
	var buf [20]byte
	h.SetCanonical(respond.HdrRateLimit, formatInt(&buf, a.rate.limit))
	h.SetCanonical(respond.HdrRateRemaining, formatInt(&buf, a.rate.remaining))
	h.SetCanonical(respond.HdrRateReset, formatInt(&buf, a.rate.reset))
}

// authorize is the one authorisation entry point of the content,
// catalogue and gateway routes, in the same order for all: the key (401
// when missing or unknown), the app it names, the app's status (412) and
// its rate limit (429, noted in adm); a request naming its app by public
// id only goes to authorizeByID. It writes the refusal itself and returns
// nil then. It does not allocate on success.
func (s *Server) authorize(ctx *fasthttp.RequestCtx, adm *admission, t *accessTable, from keySource) *appEntry {
	key := ctx.Request.Header.Peek(hdrAppKey)
	if len(key) == 0 && from != keyHeader {
		args := ctx.QueryArgs()
		switch from {
		case keyOrQueryParam:
			key = args.Peek("app_key")
		case keyOrAppID:
			if key = args.Peek("x-svc-app-key"); len(key) == 0 {
				if id := args.Peek("x-svc-app-id"); len(id) > 0 {
					return s.authorizeByID(ctx, adm, t, id)
				}
			}
		}
	}
	if len(key) == 0 {
		respond.Fault(ctx, access.FaultMissingKey)
		return nil
	}
	app := t.lookup(key)
	if app == nil {
		respond.Fault(ctx, access.FaultInvalidKey)
		return nil
	}
	if app.archived {
		respond.Answer(ctx, respond.NotPermitted, "The app behind this App Key is archived.")
		return nil
	}
	if !s.rateLimit(ctx, adm, app.lim, "Too many requests: this App Key's allowance is used up; retry after the number of seconds in Retry-After.\n") {
		return nil
	}
	return app
}

// rateLimit takes one request from lim and notes it in adm (the
// X-RateLimit-* fields) and, when refused, answers 429 with refusal as its
// body (spec, Errors: text/plain, Retry-After).
func (s *Server) rateLimit(ctx *fasthttp.RequestCtx, adm *admission, lim *limiter, refusal string) bool {
	d := lim.take(s.now(ctx).UnixNano())
	adm.rate, adm.taken = d, true
	if !d.allowed {
		s.metrics.rateLimited.inc()
		var buf [20]byte
		h := &ctx.Response.Header
		h.SetCanonical(respond.HdrRetryAfter, formatInt(&buf, d.retry))
		h.SetCanonical(respond.HdrCacheControl, respond.ValNoStore)
		h.SetContentType("text/plain; charset=utf-8")
		ctx.SetStatusCode(fasthttp.StatusTooManyRequests)
		ctx.SetBodyString(refusal)
		return false
	}
	return true
}

// admitGET runs the checks a GET route group (Bibles, catalogue, search) starts
// with, in the edge's order (docs/edge.md): a path of unknown shape under
// the group is 404, a method other than GET or HEAD 405, and an edge
// without a build or an access snapshot yet answers "starting". ok is
// false when it has answered.
func (s *Server) admitGET(ctx *fasthttp.RequestCtx, known bool) (*accessTable, *site, bool) {
	if !known {
		respond.RouteNotFound(ctx)
		return nil, nil, false
	}
	if !ctx.IsGet() && !ctx.IsHead() {
		respond.MethodNotAllowed(ctx, "GET, HEAD")
		return nil, nil, false
	}
	t, st := s.access.Load(), s.site.Load()
	if t == nil || st == nil {
		respond.Starting(ctx)
		return nil, nil, false
	}
	return t, st, true
}
