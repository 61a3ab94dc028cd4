package bible

import (
	"crypto/rand"
	"encoding/hex"
)

// ValidUUID reports whether s is a UUID in its canonical text form
// (8-4-4-4-12 hex digits, either case), as organization and app ids are.
func ValidUUID[T ~string | ~[]byte](s T) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// NewUUID is a random (version 4) UUID.
func NewUUID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return FormatUUID(b, 4)
}

// FormatUUID sets version and the RFC 9562 variant in b and writes it in
// the canonical text form; a name-based UUID is FormatUUID of the first
// 16 bytes of the name's hash.
func FormatUUID(b [16]byte, version byte) string {
	b[6] = b[6]&0x0f | version<<4
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
