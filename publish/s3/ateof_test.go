package s3store

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestAtEOF: a body read to its expected length must end there; bytes
// beyond it (a server that ignored the range, a wrong Content-Length) are
// an error, never silently dropped.
func TestAtEOF(t *testing.T) {
	broken := errors.New("connection reset")
	for _, c := range []struct {
		name string
		rest io.Reader
		want error
	}{
		{"at the end", strings.NewReader(""), nil},
		{"end after a read of nothing", &zeroThenEOF{}, nil},
		{"one byte more", strings.NewReader("x"), errLongBody},
		{"a range ignored", strings.NewReader(strings.Repeat("x", 1<<20)), errLongBody},
		{"broken", iotest.ErrReader(broken), broken},
	} {
		if got := atEOF(c.rest); !errors.Is(got, c.want) {
			t.Errorf("%s: atEOF = %v; want %v", c.name, got, c.want)
		}
	}
}

// zeroThenEOF returns 0, nil once, as io.Reader allows, then io.EOF.
type zeroThenEOF struct{ called bool }

func (r *zeroThenEOF) Read([]byte) (int, error) {
	if !r.called {
		r.called = true
		return 0, nil
	}
	return 0, io.EOF
}
