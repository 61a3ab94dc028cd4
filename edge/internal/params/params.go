// Package params parses the request parameters more than one route group
// reads, the way the reference service does: booleans in the query, and
// integer ids in the path.
package params

import (
	"strconv"

	"github.com/bibleplatform/platform/edge/internal/respond"
)

// Bool reads a boolean query parameter the way the reference service
// (FastAPI) does; set is false when absent.
func Bool(b []byte) (v, set, ok bool) {
	if len(b) == 0 {
		return false, false, true
	}
	switch {
	case respond.EqualFoldASCII(b, "true"), respond.EqualFoldASCII(b, "1"), respond.EqualFoldASCII(b, "yes"), respond.EqualFoldASCII(b, "on"):
		return true, true, true
	case respond.EqualFoldASCII(b, "false"), respond.EqualFoldASCII(b, "0"), respond.EqualFoldASCII(b, "no"), respond.EqualFoldASCII(b, "off"):
		return false, true, true
	}
	return false, false, false
}

// ID is what a path segment holds where an integer id goes.
type ID uint8

const (
	IDOK      ID = iota // a canonical positive id: look it up
	IDNone              // an integer that names nothing: 404
	IDInvalid           // not a 32-bit integer: 422
)

// PathID reads an integer id from a path segment (bible_id_path,
// font_id, a day of the verse of the day). Only the canonical form names a
// resource: decimal digits without sign or leading zero, above zero. An
// integer in another form ("-1", "0", "+1", "001") is well typed but no
// resource has that path, so it is 404, not the 422 "Input should be a
// valid 32-bit integer" that would be false (spec, Errors: a well-typed
// value that cannot exist is not a type error). Anything else, or a value
// beyond int32, is 422.
func PathID(b []byte) (int32, ID) {
	signed := len(b) > 0 && (b[0] == '+' || b[0] == '-')
	digits := b
	if signed {
		digits = b[1:]
	}
	n, ok := respond.ParseDigits(digits)
	if !ok || n > 1<<31 || n == 1<<31 && b[0] != '-' {
		return 0, IDInvalid
	}
	if signed || n == 0 || digits[0] == '0' {
		return 0, IDNone
	}
	return int32(n), IDOK
}

// Int32 parses a decimal int32, with an optional minus sign.
func Int32(b []byte) (int32, bool) {
	n, err := strconv.ParseInt(string(b), 10, 32)
	return int32(n), err == nil
}

// Alpha reports an ASCII letter.
func Alpha(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }
