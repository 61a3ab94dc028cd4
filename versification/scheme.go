package versification

import (
	"slices"
	"strconv"

	"github.com/bibleplatform/platform/bible"
)

// Verse is one verse of a numbering. Verse 0 is a psalm's title where a
// scheme counts it apart from verse 1 (English Bibles); Seg is a segment
// letter ('a'…'z', 0 for none) for the few verses the original numbering
// splits (Greek Esther's 1:1a–1:1s).
type Verse struct {
	Book    bible.BookID
	Chapter int
	Verse   int
	Seg     byte
}

// String prints the verse as a .vrs file does: "PSA 51:10", "ESG 1:1a".
func (v Verse) String() string {
	return string(v.Book) + " " + strconv.Itoa(v.Chapter) + ":" + v.id()
}

// id is the verse part of a passage id: "10", "1a".
func (v Verse) id() string {
	s := strconv.Itoa(v.Verse)
	if v.Seg != 0 {
		s += string(rune(v.Seg))
	}
	return s
}

func (v Verse) base() Verse { v.Seg = 0; return v }

// compare orders verses as a Bible does: books in canonical order (books
// outside the spec's table after them, by id), then chapter, verse and
// segment.
func compare(a, b Verse) int {
	if a.Book != b.Book {
		if oa, ob := a.Book.Order(), b.Book.Order(); oa != ob {
			return oa - ob
		}
		if a.Book < b.Book {
			return -1
		}
		return 1
	}
	if a.Chapter != b.Chapter {
		return a.Chapter - b.Chapter
	}
	if a.Verse != b.Verse {
		return a.Verse - b.Verse
	}
	return int(a.Seg) - int(b.Seg)
}

// Range is one side of a mapping line: a verse, or a run of verses of one
// chapter (First ≤ Last). Only a single verse has a segment letter.
type Range struct {
	Book    bible.BookID
	Chapter int
	First   int
	Last    int
	Seg     byte
}

func (r Range) len() int { return r.Last - r.First + 1 }

func (r Range) verse(i int) Verse {
	return Verse{Book: r.Book, Chapter: r.Chapter, Verse: r.First + i, Seg: r.Seg}
}

// String prints the range as a .vrs file does: "PSA 51:1-19".
func (r Range) String() string {
	s := r.verse(0).String()
	if r.Last != r.First {
		s += "-" + strconv.Itoa(r.Last)
	}
	return s
}

// Mapping is one mapping line: Local, in the scheme's numbering, holds the
// text Org holds in the original numbering. Line is its line in the .vrs
// file (0 when decoded from a compiled table).
type Mapping struct {
	Local, Org Range
	Line       int
}

// Pairs calls yield with every verse pair the line maps. Runs of the same
// length map verse by verse; a run against a single verse maps every verse
// of the run to it (a merged or split verse: PSA 51:0 = PSA 51:1 and
// PSA 51:0 = PSA 51:2 say the English title is Hebrew verses 1 and 2).
// Runs of different lengths (rso's PSA 89:2-6 = PSA 90:1-6) map verse by
// verse from their starts and the longer run's tail to the shorter run's
// last verse, which is what the neighbouring lines of the shared files
// mean where the other Russian scheme spells it out (rsc: PSA 89:2-6 =
// PSA 90:1-5 and PSA 89:6 = PSA 90:6). Paratext reads such a line by
// stepping both sides along the left run, leaving the right run's tail
// unmapped.
func (m Mapping) Pairs(yield func(local, org Verse)) {
	nl, nr := m.Local.len(), m.Org.len()
	switch {
	case nl == 1:
		for i := range nr {
			yield(m.Local.verse(0), m.Org.verse(i))
		}
	case nr == 1:
		for i := range nl {
			yield(m.Local.verse(i), m.Org.verse(0))
		}
	default:
		for i := range max(nl, nr) {
			yield(m.Local.verse(min(i, nl-1)), m.Org.verse(min(i, nr-1)))
		}
	}
}

// Scheme is one versification: how many verses each chapter has, and
// which verses hold the text of which verses of the original numbering.
type Scheme struct {
	// Name is the scheme's short name: one of Names for a standard
	// scheme, "custom" for a Bible's own, or what the caller called it.
	Name string

	books    []bible.BookID         // in the order the scheme lists them
	counts   map[bible.BookID][]int // chapter n's last verse at n-1
	mappings []Mapping              // in file order
	excluded []Verse                // verses the scheme lists as absent
	isExcl   map[Verse]bool         // the same, as a set
	toOrg    map[Verse][]Verse      // a local verse's org verses
	fromOrg  map[Verse][]Verse      // an org verse's local verses
	fromSeg  map[Verse][]Verse      // an org verse (no segment)'s local verses through its segments
	pairs    int                    // verse pairs of all mappings
	seen     map[pairKey]bool       // the pairs recorded in toOrg, fromOrg and fromSeg
	touched  map[chapterKey]bool    // chapters a mapping line (either side) or an excluded verse names
	hub      bool                   // org: the hub itself; its mappings are aliases
}

func newScheme(name string) *Scheme {
	return &Scheme{
		Name:    name,
		counts:  map[bible.BookID][]int{},
		isExcl:  map[Verse]bool{},
		toOrg:   map[Verse][]Verse{},
		fromOrg: map[Verse][]Verse{},
		fromSeg: map[Verse][]Verse{},
		seen:    map[pairKey]bool{},
		touched: map[chapterKey]bool{},
		hub:     name == Org,
	}
}

// setChapter records chapter's last verse, growing the book as needed; a
// chapter the scheme skips has one verse, as in Paratext.
func (s *Scheme) setChapter(book bible.BookID, chapter, last int) {
	c, ok := s.counts[book]
	if !ok {
		s.books = append(s.books, book)
	}
	for len(c) < chapter {
		c = append(c, 1)
	}
	c[chapter-1] = last
	s.counts[book] = c
}

// truncate drops the chapters of book after chapter (a custom file's END).
func (s *Scheme) truncate(book bible.BookID, chapter int) {
	if c := s.counts[book]; len(c) > chapter {
		s.counts[book] = c[:chapter]
	}
}

// pairKey is a verse pair a mapping recorded; seg marks the pair of a
// local verse and an org verse's base recorded in fromSeg.
type pairKey struct {
	local, org Verse
	seg        bool
}

// chapterKey is a chapter of a book.
type chapterKey struct {
	book    bible.BookID
	chapter int
}

func (s *Scheme) addMapping(m Mapping) {
	s.mappings = append(s.mappings, m)
	s.touched[chapterKey{m.Local.Book, m.Local.Chapter}] = true
	s.touched[chapterKey{m.Org.Book, m.Org.Chapter}] = true
	m.Pairs(func(local, org Verse) {
		s.pairs++
		// A set, not a scan of the lists: a hostile file may map
		// thousands of verses to one.
		if k := (pairKey{local, org, false}); !s.seen[k] {
			s.seen[k] = true
			s.toOrg[local] = append(s.toOrg[local], org)
			s.fromOrg[org] = append(s.fromOrg[org], local)
		}
		if k := (pairKey{local, org.base(), true}); org.Seg != 0 && !s.seen[k] {
			s.seen[k] = true
			s.fromSeg[org.base()] = append(s.fromSeg[org.base()], local)
		}
	})
}

func (s *Scheme) addExcluded(v Verse) {
	if !s.isExcl[v] {
		s.isExcl[v] = true
		s.touched[chapterKey{v.Book, v.Chapter}] = true
		s.excluded = append(s.excluded, v)
	}
}

// Mappings returns the scheme's mapping lines in file order.
func (s *Scheme) Mappings() []Mapping { return slices.Clone(s.mappings) }

// LastVerse is the last verse of a chapter, or 0 when the scheme does not
// have the chapter.
func (s *Scheme) LastVerse(book bible.BookID, chapter int) int {
	c := s.counts[book]
	if chapter < 1 || chapter > len(c) {
		return 0
	}
	return c[chapter-1]
}

// Chapters is the number of chapters the scheme gives book (0 when it
// does not list the book).
func (s *Scheme) Chapters(book bible.BookID) int { return len(s.counts[book]) }

// ToOrg returns the verses of the original numbering that hold the text
// of v: those its mapping lines name, else v itself.
func (s *Scheme) ToOrg(v Verse) []Verse {
	if s.hub {
		return []Verse{v}
	}
	if o := s.toOrg[v]; len(o) > 0 {
		return slices.Clone(o)
	}
	if v.Seg != 0 {
		if o := s.toOrg[v.base()]; len(o) > 0 {
			return slices.Clone(o)
		}
	}
	return []Verse{v}
}

// FromOrg returns the scheme's verses that hold the text of the original
// numbering's verse o: those whose mapping lines name o (or, for a verse
// without a segment, one of its segments), else the verse of the same
// number when the scheme maps that verse nowhere else and does not
// exclude it. It answers nothing when no verse of the scheme holds o.
func (s *Scheme) FromOrg(o Verse) []Verse { return s.fromOrgAppend(nil, o) }

func (s *Scheme) fromOrgAppend(out []Verse, o Verse) []Verse {
	if s.hub {
		return append(out, o)
	}
	if l := s.fromOrg[o]; len(l) > 0 {
		return append(out, l...)
	}
	if o.Seg == 0 {
		if l := s.fromSeg[o]; len(l) > 0 {
			return append(out, l...)
		}
	} else {
		o = o.base()
		if l := s.fromOrg[o]; len(l) > 0 {
			return append(out, l...)
		}
	}
	if len(s.toOrg[o]) > 0 || s.isExcl[o] {
		// The scheme's own verse o holds other text: nothing of the
		// scheme is o.
		return out
	}
	return append(out, o)
}

// equal reports whether a and b number every verse alike (their names
// aside).
func equal(a, b *Scheme) bool {
	if len(a.counts) != len(b.counts) || len(a.toOrg) != len(b.toOrg) || len(a.isExcl) != len(b.isExcl) {
		return false
	}
	for book, c := range a.counts {
		if !slices.Equal(c, b.counts[book]) {
			return false
		}
	}
	for v := range a.isExcl {
		if !b.isExcl[v] {
			return false
		}
	}
	for v, o := range a.toOrg {
		if len(o) != len(b.toOrg[v]) {
			return false
		}
		for _, x := range o {
			if !b.seen[pairKey{v, x, false}] {
				return false
			}
		}
	}
	return true
}
