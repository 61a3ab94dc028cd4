package respond

import (
	"unsafe"
)

// Byte helpers of the request path: comparisons and views that do not
// allocate. HTTP tokens compare case-insensitively in ASCII only.

func TrimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func EqualFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		if lowerASCII(b[i]) != s[i] {
			return false
		}
	}
	return true
}

// IsFieldName reports whether k is the header field name canonical,
// given in fasthttp's normalised spelling ("If-None-Match"), in any case.
// fasthttp stores the names it reads normalised, so k is compared as it is
// first, in one instruction of the library's, and letter by letter only
// when that fails.
func IsFieldName(k []byte, canonical string) bool {
	if string(k) == canonical {
		return true
	}
	if len(k) != len(canonical) {
		return false
	}
	for i := range k {
		if lowerASCII(k[i]) != lowerASCII(canonical[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func HasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && EqualFoldASCII(b[:len(prefix)], prefix)
}

// UnsafeString views b as a string without copying, for parsers that keep
// substrings of their input (bible.ParseRef). The string must not outlive
// the request whose bytes it shows, nor be kept after b changes.
func UnsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// CutByte is bytes.Cut around a single byte.
func CutByte(b []byte, sep byte) (before, after []byte, ok bool) {
	for i, c := range b {
		if c == sep {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}

// ParseDigits parses a non-negative decimal without sign (1*DIGIT, as
// the Range grammar and path ids have it), refusing overflow.
func ParseDigits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
