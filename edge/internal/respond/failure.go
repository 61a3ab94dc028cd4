// Package respond writes the answers the edge makes itself: failures of
// the kinds in wire/problem, the JSON error bodies (message, 401 fault,
// 422 validation), the header names it sets, and the byte helpers of the
// request path that allocate nothing.
package respond

import (
	"errors"
	"log/slog"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/wire/problem"
)

// Every failure the edge answers with a {message} body (DESIGN.md) has a
// problem.Kind, and the kind alone decides the status; the text is one of
// wire/problem's, chosen at the place that knows what failed. No client
// text is built from an error value (internal/layout checks it): an
// error's text, with file paths, store keys and Go types in it, goes to
// the log with the request's id, and the client reads the kind's text. 401
// faults, 422 validation bodies and 429 are not kinds: they have their own
// shapes (Fault, Invalid, the rate limiter's).

// Answer writes a failure of kind that reads msg.
func Answer(ctx *fasthttp.RequestCtx, kind problem.Kind, msg problem.Text) {
	if r := kind.RetryAfter(); r != "" {
		ctx.Response.Header.SetCanonical(HdrRetryAfter, []byte(r))
	}
	Message(ctx, kind.Status(), msg)
}

// NotLicensed answers 403 for the text of Bible id, which the app's
// licences do not cover.
func NotLicensed(ctx *fasthttp.RequestCtx, id int32) {
	Answer(ctx, problem.Forbidden, problem.NotLicensed(id))
}

// Fail answers err. A *problem.Problem is answered with its own kind and
// text; anything else is a failure of kind, logged to log with the
// request's id and answered with the kind's text.
func Fail(ctx *fasthttp.RequestCtx, log *slog.Logger, kind problem.Kind, what string, err error) {
	var p *problem.Problem
	if errors.As(err, &p) {
		Answer(ctx, p.Kind, p.Text)
		return
	}
	log.LogAttrs(ctx, slog.LevelError, what, slog.Uint64("id", ctx.ID()),
		slog.String("path", string(ctx.Path())), slog.Any("err", err))
	Generic(ctx, kind)
}

// Generic answers a failure of kind with the kind's own text; the caller
// has logged what failed, or chosen not to.
func Generic(ctx *fasthttp.RequestCtx, kind problem.Kind) { Answer(ctx, kind, kind.Text()) }

// Starting answers a request that came before the first build or access
// snapshot.
func Starting(ctx *fasthttp.RequestCtx) { Answer(ctx, problem.Unavailable, problem.Starting) }
