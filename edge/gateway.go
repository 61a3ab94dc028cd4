package edge

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
)

type gateway struct {
	base    *url.URL
	prefix  string // base path without its trailing slash
	client  *fasthttp.HostClient
	token   string
	timeout time.Duration
}

func newGateway(rawURL, token string, timeout time.Duration) (*gateway, error) {
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
	return &gateway{
		base:   u,
		prefix: strings.TrimSuffix(u.Path, "/"),
		token:  token,
		client: &fasthttp.HostClient{
			Addr:                          addr,
			IsTLS:                         u.Scheme == "https",
			ReadTimeout:                   timeout,
			WriteTimeout:                  timeout,
			MaxIdleConnDuration:           30 * time.Second,
			DisableHeaderNamesNormalizing: false,
		},
		timeout: timeout,
	}, nil
}

// forward authenticates a dynamic-owned route and passes it on with the
// verified app id. The browser data-exchange routes may name the app in the
// query instead of the header (spec, Authentication 4).
func (s *Server) forward(ctx *fasthttp.RequestCtx, adm *admission, path []byte) {
	t := s.access.Load()
	if t == nil {
		starting(ctx)
		return
	}
	var app *appEntry
	if isSignIn(path) {
		if app = s.authorizeSignIn(ctx, adm, t); app == nil && ctx.Response.StatusCode() == fasthttp.StatusTooManyRequests {
			return
		}
	} else {
		from := keyHeader
		if isDataExchange(path) {
			from = keyOrAppID
		}
		if app = s.authorize(ctx, adm, t, from); app == nil {
			return
		}
	}
	if s.gateway == nil {
		answer(ctx, failUnavailable,
			"This route is served by the dynamic service, which is not configured on this edge yet.")
		return
	}
	id := ""
	if app != nil {
		id = app.id
	}
	s.gateway.do(ctx, id, s)
}

// authorizeSignIn identifies the app of a sign-in route from client_id
// (the App Key, in the query or the form body): a live app's key spends
// its allowance and is forwarded with its id. Anything else (discovery,
// the JWKS, the account pages, an unknown or archived client_id, which
// the provider refuses in OAuth 2.0's own terms) is forwarded without an
// app, counted per client address. It returns nil without answering, or
// nil after answering 429.
func (s *Server) authorizeSignIn(ctx *fasthttp.RequestCtx, adm *admission, t *accessTable) *appEntry {
	key := ctx.QueryArgs().Peek("client_id")
	if len(key) == 0 && ctx.IsPost() {
		key = ctx.PostArgs().Peek("client_id")
	}
	var app *appEntry
	if len(key) > 0 {
		app = t.lookup(key)
	}
	if app != nil && !app.archived {
		if !s.rateLimit(ctx, adm, app.lim, "Too many requests: this App Key's allowance is used up; retry after the number of seconds in Retry-After.\n") {
			return nil
		}
		return app
	}
	s.rateLimit(ctx, adm, s.idOnly.forAddr(s.clientAddr(ctx)),
		"Too many requests from this address; retry after the number of seconds in Retry-After.\n")
	return nil
}

// valRetryUpstream is the Retry-After of a 503 for an unreachable dynamic:
// a supervised dynamic is back within a few seconds.
var valRetryUpstream = []byte("2")

// hopHeaders are connection-level (RFC 9110 §7.6.1) and never forwarded.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func (g *gateway) do(ctx *fasthttp.RequestCtx, appID string, s *Server) {
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	ctx.Request.CopyTo(req)
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	// Never trust an identity a client supplied (any spelling: fasthttp
	// normalises header names, and Del is case-insensitive).
	req.Header.Del(access.HeaderVerifiedAppID)
	req.Header.Del(access.HeaderEdgeToken)
	if appID != "" {
		req.Header.Set(access.HeaderVerifiedAppID, appID)
	}
	if g.token != "" {
		req.Header.Set(access.HeaderEdgeToken, g.token)
	}
	// Built in a stack buffer: every dynamic request passes here, and
	// the values are copied into req.
	var buf [512]byte
	b, _ := ctx.RemoteIP().AppendText(buf[:0])
	req.Header.SetBytesV(access.HeaderForwardedFor, b)
	if ctx.IsTLS() {
		req.Header.Set(access.HeaderForwardedProto, "https")
	} else {
		req.Header.Set(access.HeaderForwardedProto, "http")
	}
	req.Header.SetBytesV(access.HeaderForwardedHost, ctx.Host())
	b = append(append(buf[:0], g.prefix...), ctx.RequestURI()...)
	req.SetRequestURIBytes(b)
	req.URI().SetScheme(g.base.Scheme)
	req.URI().SetHost(g.base.Host)
	req.Header.SetHost(g.base.Host)

	// The answer is read straight into the client's response (no second
	// copy); reading it replaces every header, which is why the rate-limit
	// fields are written last (Handler, admission).
	err := g.client.DoTimeout(req, &ctx.Response, g.timeout)
	if err != nil {
		// Whatever part of an answer arrived is not forwarded.
		ctx.Response.Reset()
		var ne net.Error
		if errors.Is(err, fasthttp.ErrTimeout) || errors.As(err, &ne) && ne.Timeout() {
			answer(ctx, failTimeout, "The upstream service did not answer in time.")
			return
		}
		// Unreachable (down, restarting) or gone mid-answer: the user
		// data is unavailable for now, which is 503 with Retry-After
		// (spec, Errors: retry with backoff), not a 502 that reads as a
		// broken upstream. A retried POST is safe: request_id.
		ctx.Response.Header.SetCanonical(hdrRetryAfter, valRetryUpstream)
		s.fail(ctx, failUpstreamDown, "forward to dynamic", err)
		return
	}
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
