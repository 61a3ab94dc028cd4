package dynamic

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/bibleplatform/platform/wire/problem"
)

// The table gives each domain error its status and a message written for
// the client; the wrapped error's text (driver details, ids of rows) never
// becomes the message.
func TestErrorStatus(t *testing.T) {
	pg := errors.New(`ERROR: duplicate key value violates unique constraint "keys_hash_key" (SQLSTATE 23505)`)
	tests := []struct {
		err    error
		status int
		msg    string
	}{
		{fmt.Errorf("app 7: %w", ErrNotFound), http.StatusNotFound, "Not found."},
		{fmt.Errorf("add key: %v: %w", pg, ErrConflict), http.StatusConflict, "This conflicts with what is already stored."},
		{fmt.Errorf("create app: %s: %w", "new row violates check constraint", ErrUnacceptable), http.StatusBadRequest, "The request cannot be carried out with these values."},
		{problem.New(problem.Forbidden, problem.OwnPermissionsOnly), http.StatusForbidden, "An app may only read its own permissions."},
		{fmt.Errorf("handler: %w", problem.New(problem.NotPermitted, problem.AppArchived)), http.StatusPreconditionFailed, "The app is archived."},
		{&problem.Problem{Kind: problem.NotFound, Text: problem.BibleNotFound(7), Cause: pg}, http.StatusNotFound, "Bible 7 is not published."},
		{ErrTokenUsed, http.StatusGone, "This data exchange token has already been used."},
		{ErrTokenExpired, http.StatusGone, "This data exchange token has expired."},
		{fmt.Errorf("highlights: %w", pg), http.StatusInternalServerError, "Internal error."},
	}
	for _, tt := range tests {
		status, msg := errorStatus(tt.err)
		if status != tt.status || string(msg) != tt.msg {
			t.Errorf("%v: %d %q, want %d %q", tt.err, status, msg, tt.status, tt.msg)
		}
	}
	// Every row of the table is reachable and reads as a sentence.
	for _, e := range errorTable {
		if s, m := errorStatus(e.err); s != e.kind.Status() || m == "" || m[len(m)-1] != '.' {
			t.Errorf("%v: %d %q", e.err, s, m)
		}
	}
}
