// Package gateway forwards the routes the dynamic service owns: it
// authorises them as every route is (the App Key, or the public app id on
// the data-exchange routes, or the sign-in routes' own rule), removes any
// identity a client claimed, sets the verified app id, the edge token, the
// request id and the X-Forwarded-* headers, and answers 504 or 503 when
// dynamic does not.
package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/outage"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// Gateway forwards to one dynamic service.
type Gateway struct {
	authz *authz.Authz
	log   *slog.Logger

	// The dynamic service; client is nil when none is configured.
	base    *url.URL
	prefix  string // base path without its trailing slash
	client  *fasthttp.HostClient
	token   string
	timeout time.Duration
	// outage logs dynamic being unreachable once an interval, not once a
	// request.
	outage outage.Log
}

// Config is what New needs.
type Config struct {
	Authz *authz.Authz
	Log   *slog.Logger
	// URL is the dynamic service's; "": the forwarded routes answer 503.
	URL     string
	Token   string        // sent as X-Edge-Token
	Timeout time.Duration // bounds a forwarded request (504 past it)
}

// New returns a gateway to cfg.URL.
func New(cfg Config) (*Gateway, error) {
	g := &Gateway{authz: cfg.Authz, log: cfg.Log}
	if cfg.URL == "" {
		return g, nil
	}
	rawURL, token, timeout := cfg.URL, cfg.Token, cfg.Timeout
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("dynamic URL %q: want http(s)://host[:port]", rawURL)
	}
	addr := u.Host
	if u.Port() == "" {
		if u.Scheme == "https" {
			addr += ":443"
		} else {
			addr += ":80"
		}
	}
	g.base, g.prefix, g.token, g.timeout = u, strings.TrimSuffix(u.Path, "/"), token, timeout
	g.client = &fasthttp.HostClient{
		Addr:                          addr,
		IsTLS:                         u.Scheme == "https",
		ReadTimeout:                   timeout,
		WriteTimeout:                  timeout,
		MaxIdleConnDuration:           30 * time.Second,
		DisableHeaderNamesNormalizing: false,
	}
	return g, nil
}

// Forward authenticates a dynamic-owned route and passes it on with the
// verified app id. The browser data-exchange routes may name the app in the
// query instead of the header (spec, Authentication 4); the sign-in routes
// name it, if at all, by client_id, and go on without one otherwise.
func (g *Gateway) Forward(ctx *fasthttp.RequestCtx, adm *authz.Admission, path []byte) {
	t := g.authz.Table()
	if t == nil {
		respond.Starting(ctx)
		return
	}
	var app *authz.App
	if isSignIn(path) {
		var refused bool
		if app, refused = g.authz.AuthorizeSignIn(ctx, adm, t); refused {
			return
		}
	} else {
		from := authz.KeyHeader
		if isDataExchange(path) {
			from = authz.KeyOrAppID
		}
		if app = g.authz.Authorize(ctx, adm, t, from); app == nil {
			return
		}
	}
	if g.client == nil {
		respond.Answer(ctx, problem.Unavailable,
			problem.NoDynamic)
		return
	}
	id := ""
	if app != nil {
		id = app.ID()
	}
	g.do(ctx, id)
}

// valRetryUpstream is the Retry-After of a 503 for an unreachable dynamic:
// a supervised dynamic is back within a few seconds.
var valRetryUpstream = []byte("2")

// hopHeaders are connection-level (RFC 9110 §7.6.1) and never forwarded.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func (g *Gateway) do(ctx *fasthttp.RequestCtx, appID string) {
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	ctx.Request.CopyTo(req)
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	// Never trust an identity a client supplied (any spelling: fasthttp
	// normalises header names, and Del is case-insensitive).
	req.Header.Del(wire.HeaderVerifiedAppID)
	req.Header.Del(wire.HeaderEdgeToken)
	req.Header.Del(wire.HeaderRequestID)
	if appID != "" {
		req.Header.Set(wire.HeaderVerifiedAppID, appID)
	}
	if g.token != "" {
		req.Header.Set(wire.HeaderEdgeToken, g.token)
	}
	// Built in a stack buffer: every dynamic request passes here, and
	// the values are copied into req.
	var buf [512]byte
	// The id the access log writes (logRequest), so that dynamic's line
	// can be found in the edge's.
	req.Header.SetBytesV(wire.HeaderRequestID, strconv.AppendUint(buf[:0], ctx.ID(), 10))
	b, _ := ctx.RemoteIP().AppendText(buf[:0])
	req.Header.SetBytesV(wire.HeaderForwardedFor, b)
	if ctx.IsTLS() {
		req.Header.Set(wire.HeaderForwardedProto, "https")
	} else {
		req.Header.Set(wire.HeaderForwardedProto, "http")
	}
	req.Header.SetBytesV(wire.HeaderForwardedHost, ctx.Host())
	b = append(append(buf[:0], g.prefix...), ctx.RequestURI()...)
	req.SetRequestURIBytes(b)
	req.URI().SetScheme(g.base.Scheme)
	req.URI().SetHost(g.base.Host)
	req.Header.SetHost(g.base.Host)

	// The answer is read straight into the client's response (no second
	// copy); reading it replaces every header, which is why the rate-limit
	// fields are written last (Handler, authz.Admission).
	err := g.client.DoTimeout(req, &ctx.Response, g.timeout)
	if err != nil {
		// Whatever part of an answer arrived is not forwarded.
		ctx.Response.Reset()
		var ne net.Error
		if errors.Is(err, fasthttp.ErrTimeout) || errors.As(err, &ne) && ne.Timeout() {
			respond.Generic(ctx, problem.Timeout)
			return
		}
		// Unreachable (down, restarting) or gone mid-answer: the user
		// data is unavailable for now, which is 503 with Retry-After
		// (spec, Errors: retry with backoff), not a 502 that reads as a
		// broken upstream. A retried POST is safe: request_id.
		ctx.Response.Header.SetCanonical(respond.HdrRetryAfter, valRetryUpstream)
		g.outage.Failed(g.log, "dynamic unreachable; forwarded requests answer 503", "id", ctx.ID(), "err", err)
		respond.Generic(ctx, problem.UserDataDown)
		return
	}
	g.outage.OK(g.log, "dynamic answers again")
	for _, h := range hopHeaders {
		ctx.Response.Header.Del(h)
	}
	// A 204 or 304 has no content (RFC 9110 §15.3.5, §15.4.5), hence no
	// Content-Type either, whatever upstream sent (DESIGN.md).
	if st := ctx.Response.StatusCode(); st == fasthttp.StatusNoContent || st == fasthttp.StatusNotModified {
		ctx.Response.ResetBody()
		ctx.Response.Header.Del(fasthttp.HeaderContentType)
		ctx.Response.Header.SetNoDefaultContentType(true)
	}
}
