package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/bibleplatform/platform/bible"
)

// The index object (one per Bible, published in a pack by the build):
//
//	"BSX1"
//	string language
//	uvarint verses, then per verse: string id, string text, uvarint words
//	uvarint words (sorted), then per word: string word, uvarint occurrences,
//	    uvarint verses, uvarint stem group, bytes postings
//	uvarint books, then per book: string id, uvarint names, names
//	uvarint synonym groups, then per group: uvarint words, words
//
// where string and bytes are a uvarint length and the bytes. A word's
// postings are, per verse containing it in verse order: uvarint verse
// minus the previous one, uvarint occurrences, uvarint length in bytes of
// the positions, then each position in the verse (in words) minus the
// previous one, as uvarints. The length lets a query that needs no
// positions (all but phrases) step over them. The stem groups
// and the maps from verse and chapter ids to verses follow from the rest
// and are derived at load.
const magic = "BSX3"

func appendPosting(b []byte, doc int32, pos []uint32) []byte {
	// The previous document is not known here, so postings keep absolute
	// document numbers while built and deltaPostings rewrites them.
	b = binary.AppendUvarint(b, uint64(doc))
	b = binary.AppendUvarint(b, uint64(len(pos)))
	n, prev := 0, uint32(0)
	for _, p := range pos {
		n += uvarintLen(uint64(p - prev))
		prev = p
	}
	b = binary.AppendUvarint(b, uint64(n))
	prev = 0
	for _, p := range pos {
		b = binary.AppendUvarint(b, uint64(p-prev))
		prev = p
	}
	return b
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// postings iterates over one word's postings.
type postings struct {
	b   []byte
	doc int32
	tf  int
	pos []byte // this document's positions, still encoded
	err bool
}

func (p *postings) uvarint() uint64 {
	v, n := binary.Uvarint(p.b)
	if n <= 0 {
		p.err, p.b = true, nil
		return 0
	}
	p.b = p.b[n:]
	return v
}

// next advances to the next document; doc is then its number and tf how
// often the word occurs in it.
func (p *postings) next(delta bool) bool {
	if len(p.b) == 0 {
		return false
	}
	d := int32(p.uvarint())
	if delta {
		p.doc += d
	} else {
		p.doc = d
	}
	p.tf = int(p.uvarint())
	n := p.uvarint()
	if p.err || n > uint64(len(p.b)) {
		p.err, p.b = true, nil
		return false
	}
	p.pos, p.b = p.b[:n], p.b[n:]
	return true
}

// positions decodes the current document's positions into dst.
func (p *postings) positions(dst []uint32) []uint32 {
	b, prev := p.pos, uint32(0)
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			break
		}
		b = b[n:]
		prev += uint32(v)
		dst = append(dst, prev)
	}
	return dst
}

func postingDocs(b []byte) int {
	p := postings{b: b, doc: 0}
	n := 0
	for p.next(false) {
		n++
	}
	return n
}

// deltaPostings rewrites built postings from absolute document numbers to
// deltas.
func deltaPostings(b []byte) []byte {
	out := make([]byte, 0, len(b))
	p := postings{b: b}
	prev := int32(0)
	for p.next(false) {
		out = binary.AppendUvarint(out, uint64(p.doc-prev))
		prev = p.doc
		out = binary.AppendUvarint(out, uint64(p.tf))
		out = binary.AppendUvarint(out, uint64(len(p.pos)))
		out = append(out, p.pos...)
	}
	return out
}

// Encode returns the index object.
func (x *Index) Encode() []byte {
	size := len(magic) + 16
	for i := range x.verse {
		size += len(x.verse[i]) + len(x.text[i]) + 8
	}
	for i := range x.words {
		size += len(x.words[i]) + len(x.post[i]) + 12
	}
	b := make([]byte, 0, size)
	b = append(b, magic...)
	b = appendString(b, x.lang)
	b = binary.AppendUvarint(b, uint64(len(x.verse)))
	for i := range x.verse {
		b = appendString(b, x.verse[i])
		b = appendString(b, x.text[i])
		b = binary.AppendUvarint(b, uint64(x.lens[i]))
	}
	b = binary.AppendUvarint(b, uint64(len(x.words)))
	for i := range x.words {
		b = appendString(b, x.words[i])
		b = binary.AppendUvarint(b, uint64(x.count[i]))
		b = binary.AppendUvarint(b, uint64(x.df[i]))
		b = binary.AppendUvarint(b, uint64(x.stem[i]))
		b = binary.AppendUvarint(b, uint64(len(x.post[i])))
		b = append(b, x.post[i]...)
	}
	b = binary.AppendUvarint(b, uint64(len(x.books)))
	for _, bk := range x.books {
		b = appendString(b, string(bk.ID))
		b = binary.AppendUvarint(b, uint64(len(bk.Names)))
		for _, n := range bk.Names {
			b = appendString(b, n)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(x.synonyms)))
	for _, g := range x.synonyms {
		b = binary.AppendUvarint(b, uint64(len(g)))
		for _, w := range g {
			b = appendString(b, w)
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Decode reads an index object. The postings stay views of data, which
// the caller must not change afterwards.
func Decode(data []byte) (*Index, error) {
	x, err := decode(data)
	if err != nil {
		return nil, err
	}
	x.derive()
	return x, nil
}

// decode reads an index object without deriving what queries need: the
// parts Merge joins need only what the object holds.
func decode(data []byte) (*Index, error) {
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return nil, errors.New("search: not an index object")
	}
	r := reader{b: data[len(magic):]}
	x := &Index{lang: r.string()}
	x.an = NewAnalyzer(x.lang)
	n := r.count(3)
	x.verse, x.text, x.lens = make([]string, n), make([]string, n), make([]uint16, n)
	for i := 0; i < n; i++ {
		x.verse[i], x.text[i], x.lens[i] = r.string(), r.string(), uint16(r.uvarint())
		if ref, err := bible.ParseRef(x.verse[i]); r.err == nil && (err != nil || ref.Kind() != bible.KindVerse || ref.String() != x.verse[i]) {
			r.fail("bad verse id " + strconv.Quote(x.verse[i]))
		}
	}
	n = r.count(5)
	x.words, x.count, x.df = make([]string, n), make([]uint32, n), make([]uint32, n)
	x.stem, x.post = make([]uint32, n), make([][]byte, n)
	for i := 0; i < n; i++ {
		x.words[i] = r.string()
		if i > 0 && x.words[i] <= x.words[i-1] {
			r.fail("vocabulary out of order")
		}
		x.count[i], x.df[i] = uint32(r.uvarint()), uint32(r.uvarint())
		g := r.uvarint()
		if g >= uint64(n) {
			r.fail("stem group out of range")
			break
		}
		x.stem[i] = uint32(g)
		for uint64(len(x.groups)) <= g {
			x.groups = append(x.groups, nil)
		}
		x.groups[g] = append(x.groups[g], uint32(i))
		x.post[i] = r.bytes()
		if r.err == nil && !validPostings(x.post[i], len(x.verse)) {
			r.fail("postings of " + x.words[i] + " out of range")
		}
	}
	n = r.count(2)
	for i := 0; i < n && r.err == nil; i++ {
		bk := Book{ID: bible.BookID(r.string())}
		if !bible.ValidBookID(string(bk.ID)) {
			r.fail("bad book id")
		}
		for k := r.count(1); k > 0 && r.err == nil; k-- {
			bk.Names = append(bk.Names, r.string())
		}
		x.books = append(x.books, bk)
	}
	n = r.count(1)
	for i := 0; i < n && r.err == nil; i++ {
		var g []string
		for k := r.count(1); k > 0 && r.err == nil; k-- {
			g = append(g, r.string())
		}
		x.synonyms = append(x.synonyms, g)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, errors.New("search: index object has trailing bytes")
	}
	return x, nil
}

// validPostings checks that the verses are in range and in order and that
// each holds as many positions as it says, so that a query cannot read
// past a buffer sized by the counts.
func validPostings(b []byte, docs int) bool {
	p := postings{b: b}
	for prev := int32(-1); p.next(true); prev = p.doc {
		if p.doc < 0 || int(p.doc) >= docs || p.doc <= prev || p.tf == 0 {
			return false
		}
		n := 0
		for b := p.pos; len(b) > 0; n++ {
			_, k := binary.Uvarint(b)
			if k <= 0 {
				return false
			}
			b = b[k:]
		}
		if n != p.tf {
			return false
		}
	}
	return !p.err
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(msg string) {
	if r.err == nil {
		r.err = fmt.Errorf("search: index object: %s", msg)
	}
	r.b = nil
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("truncated")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a count of items that each take at least min bytes, so a
// corrupt count cannot make Decode allocate more than the object holds.
func (r *reader) count(min int) int {
	v := r.uvarint()
	if v > uint64(len(r.b)/min) {
		r.fail("count out of range")
		return 0
	}
	return int(v)
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("truncated")
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

func (r *reader) string() string { return string(r.bytes()) }
