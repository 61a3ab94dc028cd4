package edge

import (
	"unsafe"
)

// Byte helpers of the request path: comparisons and views that do not
// allocate. HTTP tokens compare case-insensitively in ASCII only.

func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && equalFoldASCII(b[:len(prefix)], prefix)
}

// unsafeString views b as a string without copying, for parsers that keep
// substrings of their input (bible.ParseRef). The string must not outlive
// the request whose bytes it shows, nor be kept after b changes.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// cutByte is bytes.Cut around a single byte.
func cutByte(b []byte, sep byte) (before, after []byte, ok bool) {
	for i, c := range b {
		if c == sep {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}
