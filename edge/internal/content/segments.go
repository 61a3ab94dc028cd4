package content

import (
	"bytes"
	"unicode/utf8"
	"unsafe"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/publish"
)

// appendSegments appends the segments of verses from to to (places in the
// chapter, inclusive) of a chapter's segments entry (publish.NameSegments:
// its verses as JSON [][]bible.Segment) to dst, and to ends, for each of
// those verses, the length of dst after its segments; it returns how many
// verses the entry holds.
//
// A composed range misses the composed cache the first time it is asked
// for, and most ranges of a large catalogue are asked for once or twice:
// each of those misses reads its chapter's entry, and encoding/json spent
// more on decoding the whole chapter than compressing the answer cost. The
// entry is in the form the build writes it (segmentScanner's), so it is
// read without reflection, and only the verses asked for are decoded; the
// others are skipped (skip). Anything the scanner does not expect is read
// by encoding/json instead, so that the two agree on every well-formed
// entry (FuzzAppendSegments).
//
// The strings of the segments point into data where they hold no escape
// (data must not change while they are used) and into one buffer made for
// the call where they do.
func appendSegments(dst []bible.Segment, ends []int, data []byte, from, to int) ([]bible.Segment, []int, int, error) {
	sc := segmentScanner{data: data}
	if out, outEnds, n, ok := sc.appendVerses(dst, ends, from, to); ok {
		return out, outEnds, n, nil
	}
	var verses [][]bible.Segment
	if err := publish.DecodeEntry(publish.NameSegments, data, &verses); err != nil {
		return dst, ends, 0, err
	}
	if from < 0 || to >= len(verses) || from > to+1 {
		return dst, ends, len(verses), nil // the caller finds the count wrong
	}
	for _, v := range verses[from : to+1] {
		dst = append(dst, v...)
		ends = append(ends, len(dst))
	}
	return dst, ends, len(verses), nil
}

// segmentScanner reads a segments entry as the build's encoding/json
// writes it: an array of verses, each null or an array of objects whose
// keys are bible.Segment's field names exactly, Para an integer, Heading a
// boolean and the rest strings, with any white space between tokens. A
// method reports false for anything else, which it leaves to
// encoding/json.
type segmentScanner struct {
	data []byte
	pos  int
	buf  []byte // unescaped strings; never grown, so the strings into it stay put
}

// appendVerses is appendSegments' scan: false when the entry is not in
// the form expected, or the verses are not in it.
func (sc *segmentScanner) appendVerses(dst []bible.Segment, ends []int, from, to int) ([]bible.Segment, []int, int, bool) {
	if from < 0 || from > to || !sc.open('[') {
		return dst, ends, 0, false
	}
	n := 0
	var start, stop int // the byte span of the verses asked for
	for {
		if n == from {
			start = sc.pos
		}
		if !sc.skip() {
			return dst, ends, 0, false
		}
		if n == to {
			stop = sc.pos
		}
		n++
		sc.space()
		if sc.pos >= len(sc.data) {
			return dst, ends, 0, false
		}
		c := sc.data[sc.pos]
		sc.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			return dst, ends, 0, false
		}
	}
	if !sc.end() || to >= n {
		return dst, ends, n, false
	}
	// Unescaping never lengthens a string: the span's length is room
	// enough for all of its strings.
	sc.buf = make([]byte, 0, stop-start)
	sc.pos = start
	for v := from; v <= to; v++ {
		var ok bool
		if dst, ok = sc.verse(dst); !ok {
			return dst, ends, 0, false
		}
		ends = append(ends, len(dst))
		if v < to && !sc.open(',') {
			return dst, ends, 0, false
		}
	}
	return dst, ends, n, true
}

// verse appends the segments of the verse at pos: null or an array of
// segments.
func (sc *segmentScanner) verse(dst []bible.Segment) ([]bible.Segment, bool) {
	sc.space()
	if sc.literal("null") {
		return dst, true
	}
	if !sc.open('[') {
		return dst, false
	}
	if sc.peek() == ']' {
		sc.pos++
		return dst, true
	}
	for {
		var s bible.Segment
		if !sc.segment(&s) {
			return dst, false
		}
		dst = append(dst, s)
		sc.space()
		if sc.pos >= len(sc.data) {
			return dst, false
		}
		c := sc.data[sc.pos]
		sc.pos++
		if c == ']' {
			return dst, true
		}
		if c != ',' {
			return dst, false
		}
	}
}

// segment reads one segment object into s. A key given twice keeps its
// last value, as encoding/json does.
func (sc *segmentScanner) segment(s *bible.Segment) bool {
	if !sc.open('{') {
		return false
	}
	if sc.peek() == '}' {
		sc.pos++
		return true
	}
	for {
		sc.space()
		key, ok := sc.rawKey()
		if !ok || !sc.open(':') {
			return false
		}
		sc.space()
		switch key {
		case "Para":
			s.Para, ok = sc.int()
		case "Heading":
			if s.Heading = sc.literal("true"); !s.Heading {
				ok = sc.literal("false")
			}
		case "Class":
			s.Class, ok = sc.string()
		case "HTML":
			s.HTML, ok = sc.string()
		case "Notes":
			s.Notes, ok = sc.string()
		case "Text":
			s.Text, ok = sc.string()
		default:
			ok = false
		}
		if !ok {
			return false
		}
		sc.space()
		if sc.pos >= len(sc.data) {
			return false
		}
		c := sc.data[sc.pos]
		sc.pos++
		if c == '}' {
			return true
		}
		if c != ',' {
			return false
		}
	}
}

// rawKey reads a key without escapes (bible.Segment's names have none).
func (sc *segmentScanner) rawKey() (string, bool) {
	if sc.peek() != '"' {
		return "", false
	}
	for i := sc.pos + 1; i < len(sc.data); i++ {
		switch sc.data[i] {
		case '"':
			k := sc.data[sc.pos+1 : i]
			sc.pos = i + 1
			return unsafe.String(unsafe.SliceData(k), len(k)), true
		case '\\':
			return "", false
		}
	}
	return "", false
}

// string reads a JSON string: a piece of data when it holds no escape,
// else unescaped into buf. Invalid UTF-8, which encoding/json replaces,
// and lone surrogates are left to it.
func (sc *segmentScanner) string() (string, bool) {
	if sc.peek() != '"' {
		return "", false
	}
	start := sc.pos + 1
	high := false
	i := start
	for ; i < len(sc.data); i++ {
		c := sc.data[i]
		if c == '"' {
			s := sc.data[start:i]
			if high && !utf8.Valid(s) {
				return "", false
			}
			sc.pos = i + 1
			return unsafe.String(unsafe.SliceData(s), len(s)), true
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", false
		}
		high = high || c >= utf8.RuneSelf
	}
	if i >= len(sc.data) {
		return "", false
	}
	// An escape: the string goes into buf.
	b := append(sc.buf, sc.data[start:i]...)
	for i < len(sc.data) {
		c := sc.data[i]
		switch {
		case c == '"':
			s := b[len(sc.buf):]
			if high && !utf8.Valid(s) {
				return "", false
			}
			sc.buf, sc.pos = b, i+1
			return unsafe.String(unsafe.SliceData(s), len(s)), true
		case c < 0x20:
			return "", false
		case c != '\\':
			high = high || c >= utf8.RuneSelf
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(sc.data) {
			return "", false
		}
		e := sc.data[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(sc.data, i)
			if !ok {
				return "", false
			}
			i += 4
			if utf8.ValidRune(r) {
				b = utf8.AppendRune(b, r)
				break
			}
			// A surrogate: only a high one followed by a low one is a
			// character.
			lo, ok := hex4(sc.data, i+2)
			if r >= 0xdc00 || !ok || sc.data[i] != '\\' || sc.data[i+1] != 'u' || lo < 0xdc00 || lo > 0xdfff {
				return "", false
			}
			i += 6
			b = utf8.AppendRune(b, 0x10000+(r-0xd800)<<10+(lo-0xdc00))
		default:
			return "", false
		}
	}
	return "", false
}

// hex4 reads the four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// int reads an integer that fits an int in JSON's form: no leading zeros,
// no fraction or exponent (encoding/json refuses those for an int).
func (sc *segmentScanner) int() (int, bool) {
	i, neg := sc.pos, false
	if i < len(sc.data) && sc.data[i] == '-' {
		neg = true
		i++
	}
	digits := i
	var n uint64
	for ; i < len(sc.data) && '0' <= sc.data[i] && sc.data[i] <= '9'; i++ {
		n = n*10 + uint64(sc.data[i]-'0')
		if n > 1<<53 {
			return 0, false // far beyond any paragraph; encoding/json decides
		}
	}
	if i == digits || sc.data[digits] == '0' && i > digits+1 {
		return 0, false
	}
	if i < len(sc.data) {
		switch sc.data[i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	sc.pos = i
	if neg {
		return -int(n), true
	}
	return int(n), true
}

// skip passes over the verse at pos, after white space: null, or an array
// whose brackets are only checked to balance outside strings. A verse not
// asked for is not read, so an entry damaged within such a verse still
// gives the verses asked for, where encoding/json would refuse the whole.
func (sc *segmentScanner) skip() bool {
	sc.space()
	if sc.literal("null") {
		return true
	}
	if sc.peek() != '[' {
		return false
	}
	depth := 0
	for sc.pos < len(sc.data) {
		switch c := sc.data[sc.pos]; c {
		case '"':
			if !sc.skipString() {
				return false
			}
			continue
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				sc.pos++
				return true
			}
		}
		sc.pos++
	}
	return false
}

// skipString passes over the string at pos: to the first quote after it
// that an odd number of backslashes does not escape.
func (sc *segmentScanner) skipString() bool {
	for i := sc.pos + 1; ; {
		q := bytes.IndexByte(sc.data[i:], '"')
		if q < 0 {
			return false
		}
		i += q
		bs := 0
		for bs < i && sc.data[i-1-bs] == '\\' {
			bs++
		}
		i++
		if bs%2 == 0 {
			sc.pos = i
			return true
		}
	}
}

// open passes white space and then c.
func (sc *segmentScanner) open(c byte) bool {
	sc.space()
	if sc.pos < len(sc.data) && sc.data[sc.pos] == c {
		sc.pos++
		return true
	}
	return false
}

// peek is the byte at pos after white space, or 0 at the end.
func (sc *segmentScanner) peek() byte {
	sc.space()
	if sc.pos < len(sc.data) {
		return sc.data[sc.pos]
	}
	return 0
}

// literal passes lit if it is at pos.
func (sc *segmentScanner) literal(lit string) bool {
	if len(sc.data)-sc.pos >= len(lit) && string(sc.data[sc.pos:sc.pos+len(lit)]) == lit {
		sc.pos += len(lit)
		return true
	}
	return false
}

// end reports whether only white space is left.
func (sc *segmentScanner) end() bool {
	sc.space()
	return sc.pos == len(sc.data)
}

func (sc *segmentScanner) space() {
	for sc.pos < len(sc.data) {
		switch sc.data[sc.pos] {
		case ' ', '\t', '\n', '\r':
			sc.pos++
		default:
			return
		}
	}
}
