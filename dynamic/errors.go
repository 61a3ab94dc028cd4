package dynamic

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/valyala/fasthttp"
)

// Domain errors. Adapters translate their driver's errors into these (no
// rows → ErrNotFound, unique violation → ErrConflict, failed check →
// ErrUnacceptable); handlers return them with a message written for the
// client (clientError). errorTable is the one place they become HTTP
// statuses.
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
	ErrRequestReused = errors.New(msgRequestReused)
	// ErrUnavailable is a dependency that cannot be reached right now
	// (PostgreSQL down or restarting): 503 with Retry-After, never 500.
	ErrUnavailable = errors.New("unavailable")
)

// msgRequestReused is ErrRequestReused's text, which the 422 on
// request_id also reads (a constant: client messages are never built from
// error values).
const msgRequestReused = "request_id was already used for a different highlight"

// errorTable maps each domain error to its status and the message a client
// reads when the error carries none of its own.
var errorTable = []struct {
	err    error
	status int
	msg    string
}{
	{ErrNotFound, http.StatusNotFound, "Not found."},
	{ErrConflict, http.StatusConflict, "This conflicts with what is already stored."},
	{ErrUnacceptable, http.StatusBadRequest, "The request cannot be carried out with these values."},
	{ErrForbidden, http.StatusForbidden, "This app may not do that."},
	{ErrNotPermitted, http.StatusPreconditionFailed, "The app is archived or unknown."},
	{ErrTokenUsed, http.StatusGone, "This data exchange token has already been used."},
	{ErrTokenExpired, http.StatusGone, "This data exchange token has expired."},
	{ErrUnavailable, http.StatusServiceUnavailable, "User data is temporarily unavailable; retry shortly."},
}

// clientError is a domain error with the message a client reads, written
// for humans when the error is made. Its Error is that message; what it
// wraps (kind, and a cause for the log) only decides the status.
type clientError struct {
	kind  error
	msg   string
	cause error
}

func (e *clientError) Error() string {
	if e.cause != nil {
		return e.msg + " (" + e.cause.Error() + ")"
	}
	return e.msg
}

func (e *clientError) Unwrap() []error { return []error{e.kind, e.cause} }

// clientErrorf is an error of kind whose client message is format with
// args. The arguments are the request's own values (ids, passage ids),
// never an error: TestNoErrorInClientMessages enforces it.
func clientErrorf(kind error, format string, args ...any) error {
	return &clientError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// errorStatus is the table lookup: the status for err and the message a
// client may read. An error outside the table is a 500 whose text stays in
// the log.
func errorStatus(err error) (int, string) {
	for _, e := range errorTable {
		if errors.Is(err, e.err) {
			var ce *clientError
			if errors.As(err, &ce) {
				return e.status, ce.msg
			}
			return e.status, e.msg
		}
	}
	return http.StatusInternalServerError, "Internal error."
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
			msg = "Internal error (request " + id + ")."
		}
	}
	if status == http.StatusServiceUnavailable {
		ctx.Response.Header.Set("Retry-After", retryUnavailable)
	}
	message(ctx, status, msg)
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
