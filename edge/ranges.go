package edge

import (
	"errors"
	"strconv"
)

// httpRange is one satisfiable byte range of a representation.
type httpRange struct{ start, length int64 }

// maxRanges bounds how many ranges one request may ask for. Past it the
// Range header is ignored and the whole representation sent (RFC 9110
// §14.2 lets a server ignore a Range it considers abusive); net/http's only
// bound is the total size, which a request can meet with thousands of tiny
// ranges that each cost a multipart header.
const maxRanges = 32

var (
	errInvalidRange = errors.New("invalid range")
	errNoOverlap    = errors.New("invalid range: failed to overlap")
)

// parseRange parses a Range field value against a representation of size
// bytes, with net/http's rules (fs.go): a syntax error or a set of ranges
// that all start past the end is refused (416); ranges past the end are
// dropped; an end past the end is clipped. The caller ignores other units.
func parseRange(s []byte, size int64) ([]httpRange, error) {
	const unit = "bytes="
	if !hasPrefixFold(s, unit) { // range units are case-insensitive (RFC 9110 §14.1)
		return nil, errInvalidRange
	}
	var ranges []httpRange
	noOverlap := false
	rest := s[len(unit):]
	for len(rest) > 0 {
		var ra []byte
		ra, rest, _ = cutByte(rest, ',')
		ra = trimOWS(ra)
		if len(ra) == 0 {
			continue
		}
		start, end, ok := cutByte(ra, '-')
		if !ok {
			return nil, errInvalidRange
		}
		start, end = trimOWS(start), trimOWS(end)
		var r httpRange
		if len(start) == 0 {
			// A suffix range: the last n bytes (RFC 9110 §14.1.2).
			n, ok := parseDigits(end)
			if !ok {
				return nil, errInvalidRange
			}
			if n == 0 {
				// A zero-length suffix selects nothing (RFC 9110
				// §14.1.2); net/http answers it with an empty 206.
				noOverlap = true
				continue
			}
			if n > size {
				n = size
			}
			r.start = size - n
			r.length = size - r.start
		} else {
			i, ok := parseDigits(start)
			if !ok {
				return nil, errInvalidRange
			}
			if i >= size {
				noOverlap = true
				continue
			}
			r.start = i
			if len(end) == 0 {
				r.length = size - r.start
			} else {
				j, ok := parseDigits(end)
				if !ok || r.start > j {
					return nil, errInvalidRange
				}
				if j >= size {
					j = size - 1
				}
				r.length = j - r.start + 1
			}
		}
		ranges = append(ranges, r)
	}
	if noOverlap && len(ranges) == 0 {
		return nil, errNoOverlap
	}
	return ranges, nil
}

func sumRangesSize(ranges []httpRange) (size int64) {
	for _, r := range ranges {
		size += r.length
	}
	return size
}

// parseDigits parses a non-negative decimal without sign, as the Range
// grammar allows (1*DIGIT), refusing overflow.
func parseDigits(b []byte) (int64, bool) {
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

// contentRange formats "bytes a-b/size".
func contentRange(dst []byte, r httpRange, size int64) []byte {
	dst = append(dst, "bytes "...)
	dst = strconv.AppendInt(dst, r.start, 10)
	dst = append(dst, '-')
	dst = strconv.AppendInt(dst, r.start+r.length-1, 10)
	dst = append(dst, '/')
	return strconv.AppendInt(dst, size, 10)
}
