package authz

import (
	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// KeySource says where a route may find the caller's App Key besides the
// X-SVC-App-Key header (spec, Authentication 4).
type KeySource uint8

const (
	KeyHeader       KeySource = iota // the header only: content and most catalogue routes
	KeyOrQueryParam                  // else ?app_key=: the font stylesheet, linked from <link href>
	KeyOrAppID                       // else ?x-svc-app-key= or the public ?x-svc-app-id=: the browser data-exchange routes
)

// Admission is what authorising a request decided that its answer reports
// at the end: the rate limit taken (and the app admitted, which usage
// counts). Handler writes its fields last, after
// the route has answered, so that an answer may start its header afresh
// (a representation's header block, serve.go; dynamic's answer read
// through the gateway).
type Admission struct {
	rate  decision
	taken bool
	app   *App  // the app admitted, nil when none was
	bible int32 // the Bible a read admitted by AuthorizeReading names
}

// App is the app the request was admitted for; nil when it was refused or
// named none.
func (a *Admission) App() *App { return a.app }

// Bible is the Bible id the path of a read admitted by AuthorizeReading
// names (not necessarily one the build has), 0 for any other request.
func (a *Admission) Bible() int32 { return a.bible }

// WriteRate sets the X-RateLimit-* fields of a taken rate limit.
func (a *Admission) WriteRate(h *fasthttp.ResponseHeader) {
	if !a.taken {
		return
	}
	var buf [20]byte
	h.SetCanonical(respond.HdrRateLimit, a.rate.rate.limitText)
	h.SetCanonical(respond.HdrRateRemaining, formatInt(&buf, a.rate.remaining))
	h.SetCanonical(respond.HdrRateReset, formatInt(&buf, a.rate.reset))
}

// Authorize is the one authorisation entry point of the content,
// catalogue and gateway routes (the sign-in routes, which may name no app,
// have AuthorizeSignIn), in the same order for all: the key (401
// when missing or unknown), the app it names, the app's status (412) and
// its rate limit (429, noted in adm); a request naming its app by public
// id only goes to authorizeByID. It writes the refusal itself and returns
// nil then. It does not allocate on success.
func (a *Authz) Authorize(ctx *fasthttp.RequestCtx, adm *Admission, t *Table, from KeySource) *App {
	key := appKeyField.Peek(&ctx.Request.Header)
	if len(key) == 0 && from != KeyHeader {
		args := ctx.QueryArgs()
		switch from {
		case KeyOrQueryParam:
			key = args.Peek("app_key")
		case KeyOrAppID:
			if key = args.Peek("x-svc-app-key"); len(key) == 0 {
				if id := args.Peek("x-svc-app-id"); len(id) > 0 {
					return a.authorizeByID(ctx, adm, t, id)
				}
			}
		}
	}
	if len(key) == 0 {
		respond.Fault(ctx, wire.FaultMissingKey)
		return nil
	}
	app := t.Lookup(key)
	if app == nil {
		respond.Fault(ctx, wire.FaultInvalidKey)
		return nil
	}
	if app.archived {
		respond.Answer(ctx, problem.NotPermitted, problem.AppArchived)
		return nil
	}
	if !a.rateLimit(ctx, adm, app.lim, problem.TooManyByKey) {
		return nil
	}
	adm.app = app
	return app
}

// appKeyField is the header a client sends its App Key in, prepared for
// the lookup every authorised request makes.
var appKeyField = respond.NewRequestField(wire.HeaderAppKey)

// Reading is the decision on a request that reads one Bible: the app
// admitted, whether its licences let it read the Bible's text, and whether
// that text is open to every app (its answers are then public). The route
// answers the 403 itself, after its own 422s (docs/edge.md, the order of
// checks), with respond.NotLicensed.
type Reading struct {
	App      *App
	Licensed bool
	Open     bool
}

// AuthorizeReading is Authorize for the Bibles routes, with the licence
// decision for Bible bible taken in the same call: the one entry point of
// everything that decides a request to read a Bible. It reports false when
// it has answered a refusal (401, 412, 429).
func (a *Authz) AuthorizeReading(ctx *fasthttp.RequestCtx, adm *Admission, t *Table, bible int32) (Reading, bool) {
	app := a.Authorize(ctx, adm, t, KeyHeader)
	if app == nil {
		return Reading{}, false
	}
	adm.bible = bible
	return Reading{App: app, Licensed: t.Licensed(app, bible), Open: t.IsOpen(bible)}, true
}

// rateLimit takes one request from lim and notes it in adm (the
// X-RateLimit-* fields) and, when refused, answers 429 with refusal as its
// body (spec, Errors: text/plain, Retry-After).
func (a *Authz) rateLimit(ctx *fasthttp.RequestCtx, adm *Admission, lim *limiter, refusal problem.Text) bool {
	d := lim.take(a.now(ctx).UnixNano())
	adm.rate, adm.taken = d, true
	if !d.allowed {
		a.rateLimited.Add(1)
		var buf [20]byte
		h := &ctx.Response.Header
		h.SetCanonical(respond.HdrRetryAfter, formatInt(&buf, d.retry))
		h.SetCanonical(respond.HdrCacheControl, respond.ValNoStore)
		h.SetContentType("text/plain; charset=utf-8")
		ctx.SetStatusCode(fasthttp.StatusTooManyRequests)
		ctx.SetBodyString(string(refusal))
		return false
	}
	return true
}

// AuthorizeSignIn identifies the app of a sign-in route from client_id
// (the App Key, in the query or the form body): a live app's key spends
// its allowance and is returned. Anything else (discovery, the JWKS, the
// account pages, an unknown or archived client_id, which the provider
// refuses in OAuth 2.0's own terms) is forwarded without an app, counted
// per client address as requests naming their app by id only are. It
// returns nil without answering, or nil after answering 429 (refused
// true).
func (a *Authz) AuthorizeSignIn(ctx *fasthttp.RequestCtx, adm *Admission, t *Table) (app *App, refused bool) {
	key := ctx.QueryArgs().Peek("client_id")
	if len(key) == 0 && ctx.IsPost() {
		key = ctx.PostArgs().Peek("client_id")
	}
	if len(key) > 0 {
		app = t.Lookup(key)
	}
	if app != nil && !app.archived {
		if !a.rateLimit(ctx, adm, app.lim, problem.TooManyByKey) {
			return nil, true
		}
		adm.app = app
		return app, false
	}
	if !a.rateLimit(ctx, adm, a.idOnly.forAddr(a.clientAddr(ctx)),
		problem.TooManyByAddr) {
		return nil, true
	}
	return nil, false
}
