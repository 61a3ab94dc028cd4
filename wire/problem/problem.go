// Package problem is the one vocabulary of failures both services answer
// with: each kind of failure with its status and the text a client reads
// when nothing more precise is known, the texts written for particular
// mistakes, and the entries of a 422 body. The edge and dynamic import it
// so that the same mistake reads the same from either, and a text exists
// once (internal/layout fails when a handler spells one itself).
//
// Client texts have their own type, Text: a handler cannot hand a string it
// built to an answer without converting it, and the layout test refuses
// such conversions and literals outside this package.
package problem

import "net/http"

// Text is a message written for a client, as it appears in a body.
type Text string

// Kind is a kind of failure; the kind alone decides the status. A 401
// fault, a 422 body and a 429 have their own shapes (wire) and are not
// kinds, except the 401 of a user's bearer token, which is a {message}.
type Kind uint8

// The kinds. The zero Kind is Internal, so a forgotten kind is a 500 and
// never a success.
const (
	Internal        Kind = iota // 500
	NotFound                    // 404
	Unacceptable                // 400: well-formed but unacceptable (spec, Errors)
	Unauthenticated             // 401 {message}: the user's bearer token is missing or not valid
	Forbidden                   // 403: not licensed, not granted, not allowed to this app
	NotAllowed                  // 405: a method the route does not serve
	Conflict                    // 409
	TokenUsed                   // 410: a data-exchange token already consumed
	TokenExpired                // 410: a data-exchange token past its lifetime
	NotPermitted                // 412: the app is archived or unknown (spec, App status)
	Unavailable                 // 503: the content store, the catalogue or the edge itself is not ready
	UserDataDown                // 503: user data (dynamic, PostgreSQL) cannot be reached now
	Overloaded                  // 503 with Retry-After: too many answers being computed at once
	Timeout                     // 504: an upstream did not answer in time
	kinds
)

var table = [kinds]struct {
	status int
	text   Text
	retry  string
}{
	Internal:        {http.StatusInternalServerError, "Internal error.", ""},
	NotFound:        {http.StatusNotFound, "Not found.", ""},
	Unacceptable:    {http.StatusBadRequest, "The request cannot be carried out with these values.", ""},
	Unauthenticated: {http.StatusUnauthorized, "The bearer token is not valid.", ""},
	Forbidden:       {http.StatusForbidden, "This app may not do that.", ""},
	NotAllowed:      {http.StatusMethodNotAllowed, "Method not allowed.", ""},
	Conflict:        {http.StatusConflict, "This conflicts with what is already stored.", ""},
	TokenUsed:       {http.StatusGone, "This data exchange token has already been used.", ""},
	TokenExpired:    {http.StatusGone, "This data exchange token has expired.", ""},
	NotPermitted:    {http.StatusPreconditionFailed, "The app is archived or unknown.", ""},
	Unavailable:     {http.StatusServiceUnavailable, "Content is temporarily unavailable; retry shortly.", ""},
	UserDataDown:    {http.StatusServiceUnavailable, "User data is temporarily unavailable; retry shortly.", ""},
	// A computation takes milliseconds: a second later the slots have
	// turned over many times.
	Overloaded: {http.StatusServiceUnavailable, "The service is busy computing other answers; retry after the number of seconds in Retry-After.", "1"},
	Timeout:    {http.StatusGatewayTimeout, "The upstream service did not answer in time.", ""},
}

// Status is the HTTP status of a failure of kind k.
func (k Kind) Status() int { return table[k].status }

// Text is what a client reads for a failure of kind k when the failure
// carries no text of its own.
func (k Kind) Text() Text { return table[k].text }

// RetryAfter is the Retry-After, in seconds, that the kind always carries,
// or "" when the service decides (or the kind has none).
func (k Kind) RetryAfter() string { return table[k].retry }

// Problem is a failure with the text its client reads; functions that do
// not write the answer themselves return one as their error. Cause, when
// set, is what failed underneath, for the log only.
type Problem struct {
	Kind  Kind
	Text  Text
	Cause error
}

// New is a failure of kind k that reads t.
func New(k Kind, t Text) *Problem { return &Problem{Kind: k, Text: t} }

func (p *Problem) Error() string {
	if p.Cause != nil {
		return string(p.Text) + " (" + p.Cause.Error() + ")"
	}
	return string(p.Text)
}

func (p *Problem) Unwrap() error { return p.Cause }
