package bible

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
