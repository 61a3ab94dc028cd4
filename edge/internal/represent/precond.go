package represent

import (
	"time"

	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/valyala/fasthttp"
)

// Preconditions, in the order net/http's fs.go evaluates them (RFC 9110
// §13.2.2): If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since,
// then If-Range decides whether Range applies. All work on the request's
// bytes without allocating.

type condResult int

const (
	condNone condResult = iota
	condTrue
	condFalse
)

// checkIfMatch: strong comparison, "*" matches any current representation
// (RFC 9110 §13.1.1).
func checkIfMatch(h, etag []byte) condResult {
	if len(h) == 0 {
		return condNone
	}
	if etagListMatch(h, etag, etagStrongMatch) {
		return condTrue
	}
	return condFalse
}

// checkIfNoneMatch: weak comparison (RFC 9110 §13.1.2); condFalse means a
// listed tag matched.
func checkIfNoneMatch(h, etag []byte) condResult {
	if len(h) == 0 {
		return condNone
	}
	if etagListMatch(h, etag, etagWeakMatch) {
		return condFalse
	}
	return condTrue
}

// etagListMatch reports whether an If-Match or If-None-Match list holds
// "*" or a tag that match accepts. A malformed element ends the scan.
func etagListMatch(h, etag []byte, match func(tag, etag []byte) bool) bool {
	for {
		h = respond.TrimOWS(h)
		if len(h) == 0 {
			return false
		}
		if h[0] == ',' {
			h = h[1:]
			continue
		}
		if h[0] == '*' {
			return true
		}
		tag, rest := scanETag(h)
		if tag == nil || match(tag, etag) {
			return tag != nil
		}
		h = rest
	}
}

// checkIfUnmodifiedSince: condFalse means modified since the date.
func checkIfUnmodifiedSince(h []byte, mod time.Time) condResult {
	switch checkIfModifiedSince(h, mod) {
	case condTrue:
		return condFalse
	case condFalse:
		return condTrue
	}
	return condNone
}

// checkIfModifiedSince: condTrue when Last-Modified is after the HTTP date
// h (at the second's precision the header has), condFalse when not
// modified, condNone when there is no Last-Modified or no usable date (an
// unparsable date is ignored, RFC 9110 §13.1.3).
func checkIfModifiedSince(h []byte, mod time.Time) condResult {
	if len(h) == 0 || mod.IsZero() {
		return condNone
	}
	t, err := fasthttp.ParseHTTPDate(h)
	if err != nil {
		return condNone
	}
	if mod.Truncate(time.Second).After(t) {
		return condTrue
	}
	return condFalse
}

// checkIfRange: an entity tag must match strongly; a date must equal the
// Last-Modified exactly (RFC 9110 §13.1.5).
func checkIfRange(h, etag []byte, mod time.Time) condResult {
	if len(h) == 0 {
		return condNone
	}
	tag, _ := scanETag(h)
	if tag != nil {
		if etagStrongMatch(tag, etag) {
			return condTrue
		}
		return condFalse
	}
	if mod.IsZero() {
		return condFalse
	}
	t, err := fasthttp.ParseHTTPDate(h)
	if err != nil {
		return condFalse
	}
	if t.Unix() == mod.Unix() {
		return condTrue
	}
	return condFalse
}

// scanETag returns the first entity tag in h (with any W/ prefix) and the
// rest, or nil when h does not start with one (RFC 9110 §8.8.3).
func scanETag(h []byte) (tag, rest []byte) {
	h = respond.TrimOWS(h)
	start := 0
	if len(h) >= 2 && h[0] == 'W' && h[1] == '/' {
		start = 2
	}
	if len(h[start:]) < 2 || h[start] != '"' {
		return nil, nil
	}
	for i := start + 1; i < len(h); i++ {
		c := h[i]
		switch {
		case c == 0x21 || c >= 0x23 && c <= 0x7E || c >= 0x80:
		case c == '"':
			return h[:i+1], h[i+1:]
		default:
			return nil, nil
		}
	}
	return nil, nil
}

func etagStrongMatch(a, b []byte) bool {
	return string(a) == string(b) && len(b) > 0 && b[0] == '"'
}

func etagWeakMatch(a, b []byte) bool {
	if len(a) >= 2 && a[0] == 'W' && a[1] == '/' {
		a = a[2:]
	}
	if len(b) >= 2 && b[0] == 'W' && b[1] == '/' {
		b = b[2:]
	}
	return string(a) == string(b)
}
