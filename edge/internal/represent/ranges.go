package represent

import (
	"errors"
	"strconv"

	"github.com/bibleplatform/platform/edge/internal/respond"
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
	if !respond.HasPrefixFold(s, unit) { // range units are case-insensitive (RFC 9110 §14.1)
		return nil, errInvalidRange
	}
	var ranges []httpRange
	noOverlap := false
	rest := s[len(unit):]
	for len(rest) > 0 {
		var ra []byte
		ra, rest, _ = respond.CutByte(rest, ',')
		ra = respond.TrimOWS(ra)
		if len(ra) == 0 {
			continue
		}
		start, end, ok := respond.CutByte(ra, '-')
		if !ok {
			return nil, errInvalidRange
		}
		start, end = respond.TrimOWS(start), respond.TrimOWS(end)
		var r httpRange
		if len(start) == 0 {
			// A suffix range: the last n bytes (RFC 9110 §14.1.2).
			n, ok := respond.ParseDigits(end)
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
			i, ok := respond.ParseDigits(start)
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
				j, ok := respond.ParseDigits(end)
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

// contentRange formats "bytes a-b/size".
func contentRange(dst []byte, r httpRange, size int64) []byte {
	dst = append(dst, "bytes "...)
	dst = strconv.AppendInt(dst, r.start, 10)
	dst = append(dst, '-')
	dst = strconv.AppendInt(dst, r.start+r.length-1, 10)
	dst = append(dst, '/')
	return strconv.AppendInt(dst, size, 10)
}
