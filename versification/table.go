package versification

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/bibleplatform/platform/bible"
)

// The compiled form of a scheme, what a build publishes with each Bible
// and what standard_data.go holds: the magic "VRS1", then uvarints and
// book ids of three bytes:
//
//	name                  length, bytes
//	books                 count, then each: id, chapters, last verse of each
//	mappings              count, then each: local range, org range
//	excluded verses       count, then each: verse
//
// where a range is book, chapter, first, last, segment (0 for none) and a
// verse is book, chapter, verse, segment. Decode rebuilds the scheme as
// ParseVRS would have, so that both read a mapping line alike.
const magic = "VRS1"

// ContentType names the compiled form where it is stored.
const ContentType = "application/vnd.bibleplatform.versification"

// Encode compiles s.
func Encode(s *Scheme) []byte {
	b := []byte(magic)
	b = appendString(b, s.Name)
	b = binary.AppendUvarint(b, uint64(len(s.books)))
	for _, book := range s.books {
		b = append(b, book...)
		c := s.counts[book]
		b = binary.AppendUvarint(b, uint64(len(c)))
		for _, n := range c {
			b = binary.AppendUvarint(b, uint64(n))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(s.mappings)))
	for _, m := range s.mappings {
		b = appendRange(b, m.Local)
		b = appendRange(b, m.Org)
	}
	b = binary.AppendUvarint(b, uint64(len(s.excluded)))
	for _, v := range s.excluded {
		b = appendRange(b, Range{Book: v.Book, Chapter: v.Chapter, First: v.Verse, Last: v.Verse, Seg: v.Seg})
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendRange(b []byte, r Range) []byte {
	b = append(b, r.Book...)
	b = binary.AppendUvarint(b, uint64(r.Chapter))
	b = binary.AppendUvarint(b, uint64(r.First))
	b = binary.AppendUvarint(b, uint64(r.Last-r.First))
	return append(b, r.Seg)
}

// ErrCorrupt is a compiled table Decode cannot read.
var ErrCorrupt = errors.New("versification: corrupt compiled table")

// Decode reads what Encode wrote.
func Decode(data []byte) (*Scheme, error) {
	d := decoder{b: data}
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: no %s header", ErrCorrupt, magic)
	}
	d.b = d.b[len(magic):]
	s := newScheme(string(d.bytes()))
	for range d.count(4) {
		book := d.book()
		n := d.count(1)
		if d.err == nil && n > bible.MaxChapters {
			d.err = fmt.Errorf("%w: book %s has %d chapters", ErrCorrupt, book, n)
		}
		for c := range n {
			last := d.uint(bible.MaxVerses)
			if d.err == nil {
				s.setChapter(book, c+1, last)
			}
		}
		if d.err == nil && n == 0 {
			s.counts[book], s.books = []int{}, append(s.books, book)
		}
	}
	for range d.count(2 * 7) {
		l, r := d.rng(), d.rng()
		if d.err != nil {
			break
		}
		if s.pairs+max(l.len(), r.len()) > MaxPairs {
			return nil, fmt.Errorf("%w: more than %d verse pairs", ErrCorrupt, MaxPairs)
		}
		s.addMapping(Mapping{Local: l, Org: r})
	}
	for range d.count(7) {
		r := d.rng()
		if d.err == nil {
			s.addExcluded(r.verse(0))
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) > 0 {
		return nil, fmt.Errorf("%w: %d bytes after the end", ErrCorrupt, len(d.b))
	}
	return s, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uint(limit int) int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > uint64(limit) {
		d.err = fmt.Errorf("%w: bad number", ErrCorrupt)
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

// count reads a count of items of at least minSize bytes each, refusing
// one the rest of the data cannot hold.
func (d *decoder) count(minSize int) int {
	n := d.uint(MaxVRSBytes)
	if d.err == nil && n*minSize > len(d.b) {
		d.err = fmt.Errorf("%w: %d items in %d bytes", ErrCorrupt, n, len(d.b))
		return 0
	}
	return n
}

func (d *decoder) bytes() []byte {
	n := d.uint(MaxVRSBytes)
	if d.err == nil && n > len(d.b) {
		d.err = fmt.Errorf("%w: truncated", ErrCorrupt)
	}
	if d.err != nil {
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) book() bible.BookID {
	if d.err != nil {
		return ""
	}
	if len(d.b) < 3 || !bible.ValidBookID(string(d.b[:3])) {
		d.err = fmt.Errorf("%w: bad book id", ErrCorrupt)
		return ""
	}
	id := bible.BookID(d.b[:3])
	d.b = d.b[3:]
	return id
}

func (d *decoder) rng() Range {
	r := Range{Book: d.book()}
	r.Chapter = d.uint(bible.MaxChapters)
	r.First = d.uint(bible.MaxVerses)
	r.Last = r.First + d.uint(bible.MaxVerses)
	if d.err != nil {
		return Range{}
	}
	if len(d.b) < 1 {
		d.err = fmt.Errorf("%w: truncated", ErrCorrupt)
		return Range{}
	}
	r.Seg, d.b = d.b[0], d.b[1:]
	switch {
	case r.Chapter < 1 || r.Last > bible.MaxVerses:
		d.err = fmt.Errorf("%w: bad range", ErrCorrupt)
	case r.Seg != 0 && (r.Seg < 'a' || r.Seg > 'z' || r.First != r.Last):
		d.err = fmt.Errorf("%w: bad segment", ErrCorrupt)
	}
	return r
}
