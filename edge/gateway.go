package edge

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// Headers between the edge and dynamic. A client can set neither: the edge
// deletes whatever the request carried before setting its own.
const (
	HeaderVerifiedAppID = "X-Verified-App-Id"
	HeaderEdgeToken     = "X-Edge-Token"
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
func (s *Server) forward(ctx *fasthttp.RequestCtx, path []byte) {
	t := s.access.Load()
	if t == nil {
		message(ctx, fasthttp.StatusServiceUnavailable, "This edge is starting; retry shortly.")
		return
	}
	key := ctx.Request.Header.Peek(hdrAppKey)
	var app *appEntry
	if len(key) == 0 && isDataExchange(path) {
		args := ctx.QueryArgs()
		if k := args.Peek("x-svc-app-key"); len(k) > 0 {
			key = k
		} else if id := args.Peek("x-svc-app-id"); len(id) > 0 {
			// The public app id identifies the app on the browser
			// flow; the user's approval is what dynamic checks. It is
			// public, so these requests have their own allowance and
			// never spend the keys' (idlimit.go).
			if app = t.byID[string(id)]; app == nil {
				message(ctx, fasthttp.StatusPreconditionFailed, "Unknown app.")
				return
			}
			if !s.admitByID(ctx, app) {
				return
			}
		}
	}
	if app == nil {
		if app = s.authorize(ctx, key, t); app == nil {
			return
		}
	}
	if s.gateway == nil {
		message(ctx, fasthttp.StatusServiceUnavailable,
			"This route is served by the dynamic service, which is not configured on this edge yet.")
		return
	}
	s.gateway.do(ctx, app.id, s)
}

// valRetryUpstream is the Retry-After of a 503 for an unreachable dynamic:
// a supervised dynamic is back within a few seconds.
var valRetryUpstream = []byte("2")

// hopHeaders are connection-level (RFC 9110 §7.6.1) and never forwarded.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func (g *gateway) do(ctx *fasthttp.RequestCtx, appID string, s *Server) {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	ctx.Request.CopyTo(req)
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	// Never trust an identity a client supplied (any spelling: fasthttp
	// normalises header names, and Del is case-insensitive).
	req.Header.Del(HeaderVerifiedAppID)
	req.Header.Del(HeaderEdgeToken)
	req.Header.Set(HeaderVerifiedAppID, appID)
	if g.token != "" {
		req.Header.Set(HeaderEdgeToken, g.token)
	}
	// Built in a stack buffer: every dynamic request passes here, and
	// the values are copied into req.
	var buf [512]byte
	b, _ := ctx.RemoteIP().AppendText(buf[:0])
	req.Header.SetBytesV("X-Forwarded-For", b)
	if ctx.IsTLS() {
		req.Header.Set("X-Forwarded-Proto", "https")
	} else {
		req.Header.Set("X-Forwarded-Proto", "http")
	}
	req.Header.SetBytesV("X-Forwarded-Host", ctx.Host())
	b = append(append(buf[:0], g.prefix...), ctx.RequestURI()...)
	req.SetRequestURIBytes(b)
	req.URI().SetScheme(g.base.Scheme)
	req.URI().SetHost(g.base.Host)
	req.Header.SetHost(g.base.Host)

	err := g.client.DoTimeout(req, resp, g.timeout)
	if err != nil {
		var ne net.Error
		if errors.Is(err, fasthttp.ErrTimeout) || errors.As(err, &ne) && ne.Timeout() {
			message(ctx, fasthttp.StatusGatewayTimeout, "The upstream service did not answer in time.")
			return
		}
		// Unreachable (down, restarting) or gone mid-answer: the user
		// data is unavailable for now, which is 503 with Retry-After
		// (spec, Errors: retry with backoff), not a 502 that reads as a
		// broken upstream. A retried POST is safe: request_id.
		s.log.Error("forward to dynamic", "path", string(ctx.Path()), "err", err)
		ctx.Response.Header.SetCanonical(hdrRetryAfter, valRetryUpstream)
		message(ctx, fasthttp.StatusServiceUnavailable, "The service for user data is unavailable; retry shortly.")
		return
	}
	// Keep the rate-limit headers the edge set, take everything else from
	// upstream.
	var rl [3][]byte
	var rlBuf [3][24]byte
	for i, h := range [][]byte{hdrRateLimit, hdrRateRemaining, hdrRateReset} {
		rl[i] = append(rlBuf[i][:0], ctx.Response.Header.PeekBytes(h)...)
	}
	resp.CopyTo(&ctx.Response)
	for _, h := range hopHeaders {
		ctx.Response.Header.Del(h)
	}
	for i, h := range [][]byte{hdrRateLimit, hdrRateRemaining, hdrRateReset} {
		if len(rl[i]) > 0 {
			ctx.Response.Header.SetCanonical(h, rl[i])
		}
	}
	// A 204 or 304 has no content (RFC 9110 §15.3.5, §15.4.5), hence no
	// Content-Type either, whatever upstream sent (DESIGN.md).
	if st := resp.StatusCode(); st == fasthttp.StatusNoContent || st == fasthttp.StatusNotModified {
		ctx.Response.ResetBody()
		ctx.Response.Header.Del(fasthttp.HeaderContentType)
		ctx.Response.Header.SetNoDefaultContentType(true)
	}
}
