package edge

import (
	"errors"
	"log/slog"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
)

// The edge's error table. Every failure the edge answers with a {message}
// body (DESIGN.md) has a kind, and the kind alone decides the status; the
// message is written for the client at the place that knows what failed.
// No client message is built from an error value (internal/layout checks
// it): an error's text, with file paths, store keys and Go types in it, goes
// to the log with the request's id, and the client reads the kind's generic
// message. 401 faults, 422 validation bodies and 429 are not here: they
// have their own shapes (fault, invalid, rateLimit).
type failure uint8

const (
	failNotFound     failure = iota // 404
	failUnacceptable                // 400: well-formed but unacceptable (spec, Errors)
	failForbidden                   // 403: not licensed
	failNotPermitted                // 412: the app may not (archived, unknown)
	failNotAllowed                  // 405: a method the route does not serve
	failUnavailable                 // 503: the store, the catalogue or the edge itself is not ready
	failTimeout                     // 504: dynamic did not answer in time
	failUpstreamDown                // 503 (with Retry-After): dynamic could not be reached
	failInternal                    // 500
)

var failures = [...]struct {
	status int
	msg    string // for an error that is not a *problem
}{
	failNotFound:     {fasthttp.StatusNotFound, "Not found."},
	failUnacceptable: {fasthttp.StatusBadRequest, "Bad request."},
	failForbidden:    {fasthttp.StatusForbidden, "Forbidden."},
	failNotPermitted: {fasthttp.StatusPreconditionFailed, "Precondition failed."},
	failNotAllowed:   {fasthttp.StatusMethodNotAllowed, "Method not allowed."},
	failUnavailable:  {fasthttp.StatusServiceUnavailable, "Content is temporarily unavailable; retry shortly."},
	failTimeout:      {fasthttp.StatusGatewayTimeout, "The upstream service did not answer in time."},
	failUpstreamDown: {fasthttp.StatusServiceUnavailable, "The service for user data is unavailable; retry shortly."},
	failInternal:     {fasthttp.StatusInternalServerError, "Internal error."},
}

// problem is a failure with its message for the client; functions that do
// not write the answer themselves (compose) return one as their error.
type problem struct {
	kind failure
	msg  string
}

func (p *problem) Error() string { return p.msg }

// answer writes a failure with a message written for the client.
func answer(ctx *fasthttp.RequestCtx, kind failure, msg string) {
	message(ctx, failures[kind].status, msg)
}

// fail answers err. A *problem is answered with its own kind and message;
// anything else is a failure of kind, logged with the request's id and
// answered with the kind's generic message.
func (s *Server) fail(ctx *fasthttp.RequestCtx, kind failure, what string, err error) {
	var p *problem
	if errors.As(err, &p) {
		answer(ctx, p.kind, p.msg)
		return
	}
	s.log.LogAttrs(ctx, slog.LevelError, what, slog.Uint64("id", ctx.ID()),
		slog.String("path", string(ctx.Path())), slog.Any("err", err))
	answer(ctx, kind, failures[kind].msg)
}

// starting answers a request that came before the first build or access
// snapshot.
func starting(ctx *fasthttp.RequestCtx) { answer(ctx, failUnavailable, access.MsgStarting) }
