package dynamic

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/wire/problem"
)

// Domain errors. Adapters translate their driver's errors into these (no
// rows → ErrNotFound, unique violation → ErrConflict, failed check →
// ErrUnacceptable); handlers return them, or a *problem.Problem with a
// text for the client. errorTable is the one place they become kinds of
// wire/problem, which the edge answers with too.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
	// ErrUnacceptable is a well-formed value the operation cannot take
	// (spec, Errors: "a value that is well-typed but unacceptable is
	// 400"), including one the database's checks refused.
	ErrUnacceptable = errors.New("unacceptable")
	// ErrForbidden: the caller is known but may not do this (a grant is
	// missing, an app reads another app's permissions).
	ErrForbidden = errors.New("forbidden")
	// ErrNotPermitted: the calling app is archived or unknown (spec, App
	// status: 412).
	ErrNotPermitted = errors.New("not permitted")
	// ErrTokenUsed and ErrTokenExpired say why a data-exchange token can
	// no longer be consumed.
	ErrTokenUsed    = errors.New("data exchange token already used")
	ErrTokenExpired = errors.New("data exchange token expired")
	// ErrRequestReused is a highlight request id already used for a
	// different highlight: replaying the first answer would silently drop
	// the new one.
	ErrRequestReused = errors.New(string(problem.RequestIDReused))
	// ErrUnavailable is a dependency that cannot be reached right now
	// (PostgreSQL down or restarting): 503 with Retry-After, never 500.
	ErrUnavailable = errors.New("unavailable")
)

// errorTable maps each domain error to its kind of failure, which gives
// the status and the text a client reads when the error carries none.
var errorTable = []struct {
	err  error
	kind problem.Kind
}{
	{ErrNotFound, problem.NotFound},
	{ErrConflict, problem.Conflict},
	{ErrUnacceptable, problem.Unacceptable},
	{ErrForbidden, problem.Forbidden},
	{ErrNotPermitted, problem.NotPermitted},
	{ErrTokenUsed, problem.TokenUsed},
	{ErrTokenExpired, problem.TokenExpired},
	{ErrUnavailable, problem.UserDataDown},
}

// errorStatus is the table lookup: the status for err and the text a
// client may read. A *problem.Problem answers with its own kind and text;
// an error outside the table is a 500 whose text stays in the log.
func errorStatus(err error) (int, problem.Text) {
	var p *problem.Problem
	if errors.As(err, &p) {
		return p.Kind.Status(), p.Text
	}
	for _, e := range errorTable {
		if errors.Is(err, e.err) {
			return e.kind.Status(), e.kind.Text()
		}
	}
	return problem.Internal.Status(), problem.Internal.Text()
}

// fail answers err through the table. Every failure is logged with an id
// that a 5xx answer also shows, so an operator can find the wrapped error
// (with its PostgreSQL details) that the client never sees.
func (r *requests) fail(ctx *fasthttp.RequestCtx, err error) {
	status, msg := errorStatus(err)
	level := slog.LevelDebug // a refusal is the client's business
	if status >= 500 {
		level = slog.LevelError
	}
	if status >= 500 || r.log.Enabled(ctx, level) {
		id := requestID()
		r.log.Log(ctx, level, "dynamic: request failed", "request_id", id, "method", string(ctx.Method()),
			"path", string(ctx.Path()), "status", status, "err", err)
		if status >= 500 && status != http.StatusServiceUnavailable {
			msg = problem.InternalRef(id)
		}
	}
	if status == http.StatusServiceUnavailable {
		ctx.Response.Header.Set("Retry-After", retryUnavailable)
	}
	message(ctx, status, msg)
}

// refuse answers a failure of kind that reads msg, for a handler that
// knows the failure itself (no error to look up).
func refuse(ctx *fasthttp.RequestCtx, kind problem.Kind, msg problem.Text) {
	message(ctx, kind.Status(), msg)
}

// retryUnavailable is the Retry-After of a 503: PostgreSQL restarting
// takes seconds, and the pool reconnects on the next request.
const retryUnavailable = "5"

// requestID names one failed request in the log (and in a 5xx answer).
func requestID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
