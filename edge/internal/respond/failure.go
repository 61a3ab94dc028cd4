// Package respond writes the answers the edge makes itself: its failure
// table (kind → status and generic text), the JSON error bodies (message,
// 401 fault, 422 validation), the header names it sets, and the byte
// helpers of the request path that allocate nothing.
package respond

import (
	"errors"
	"log/slog"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/wire"
)

// The edge's error table. Every failure the edge answers with a {message}
// body (DESIGN.md) has a kind, and the kind alone decides the status; the
// message is written for the client at the place that knows what failed.
// No client message is built from an error value (internal/layout checks
// it): an error's text, with file paths, store keys and Go types in it, goes
// to the log with the request's id, and the client reads the kind's generic
// message. 401 faults, 422 validation bodies and 429 are not here: they
// have their own shapes (Fault, Invalid, the rate limiter's).
type Failure uint8

const (
	NotFound     Failure = iota // 404
	Unacceptable                // 400: well-formed but unacceptable (spec, Errors)
	Forbidden                   // 403: not licensed
	NotPermitted                // 412: the app may not (archived, unknown)
	NotAllowed                  // 405: a method the route does not serve
	Unavailable                 // 503: the store, the catalogue or the edge itself is not ready
	Timeout                     // 504: dynamic did not answer in time
	UpstreamDown                // 503 (with Retry-After): dynamic could not be reached
	Internal                    // 500
	Overloaded                  // 503 (with Retry-After): too many answers being computed at once
)

var failures = [...]struct {
	status int
	msg    string // for an error that is not a *Problem
	retry  []byte // Retry-After, in seconds, when the kind says when to retry
}{
	NotFound:     {status: fasthttp.StatusNotFound, msg: "Not found."},
	Unacceptable: {status: fasthttp.StatusBadRequest, msg: "Bad request."},
	Forbidden:    {status: fasthttp.StatusForbidden, msg: "Forbidden."},
	NotPermitted: {status: fasthttp.StatusPreconditionFailed, msg: "Precondition failed."},
	NotAllowed:   {status: fasthttp.StatusMethodNotAllowed, msg: "Method not allowed."},
	Unavailable:  {status: fasthttp.StatusServiceUnavailable, msg: "Content is temporarily unavailable; retry shortly."},
	Timeout:      {status: fasthttp.StatusGatewayTimeout, msg: "The upstream service did not answer in time."},
	UpstreamDown: {status: fasthttp.StatusServiceUnavailable, msg: "The service for user data is unavailable; retry shortly."},
	Internal:     {status: fasthttp.StatusInternalServerError, msg: "Internal error."},
	// A computation takes milliseconds: a second later the slots have
	// turned over many times.
	Overloaded: {status: fasthttp.StatusServiceUnavailable, msg: "The service is busy; retry shortly.", retry: []byte("1")},
}

// Status is the HTTP status of a failure of kind k.
func (k Failure) Status() int { return failures[k].status }

// Problem is a failure with its message for the client; functions that do
// not write the answer themselves (compose) return one as their error.
type Problem struct {
	Kind Failure
	Msg  string
}

func (p *Problem) Error() string { return p.Msg }

// Answer writes a failure with a message written for the client.
func Answer(ctx *fasthttp.RequestCtx, kind Failure, msg string) {
	if r := failures[kind].retry; r != nil {
		ctx.Response.Header.SetCanonical(HdrRetryAfter, r)
	}
	Message(ctx, failures[kind].status, msg)
}

// Fail answers err. A *Problem is answered with its own kind and message;
// anything else is a failure of kind, logged to log with the request's id
// and answered with the kind's generic message.
func Fail(ctx *fasthttp.RequestCtx, log *slog.Logger, kind Failure, what string, err error) {
	var p *Problem
	if errors.As(err, &p) {
		Answer(ctx, p.Kind, p.Msg)
		return
	}
	log.LogAttrs(ctx, slog.LevelError, what, slog.Uint64("id", ctx.ID()),
		slog.String("path", string(ctx.Path())), slog.Any("err", err))
	Generic(ctx, kind)
}

// Generic answers a failure of kind with the kind's generic message; the
// caller has logged what failed, or chosen not to.
func Generic(ctx *fasthttp.RequestCtx, kind Failure) { Answer(ctx, kind, failures[kind].msg) }

// Starting answers a request that came before the first build or access
// snapshot.
func Starting(ctx *fasthttp.RequestCtx) { Answer(ctx, Unavailable, wire.MsgStarting) }
