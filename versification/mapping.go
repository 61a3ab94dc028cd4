package versification

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bibleplatform/platform/bible"
)

// MaxMapVerses caps the verses one Map expands its reference to: more than
// any book has (the Psalms have 2,461 verses and 116 titles).
const MaxMapVerses = 5000

// Errors of Map besides *MissingError.
var (
	// ErrNotNumbered is a chapter or verse id that is not a number (with
	// an optional segment letter), such as the WEB's Psalm 151 "1_1":
	// no scheme numbers it.
	ErrNotNumbered = errors.New("the chapter or verse id is not a number")
	// ErrIntro is an introduction, which has no verses to map.
	ErrIntro = bible.ErrIntro
	// ErrTooLong is a reference beyond MaxMapVerses verses.
	ErrTooLong = fmt.Errorf("the passage has more than %d verses", MaxMapVerses)
)

// MissingError is a chapter the source scheme does not have, so that the
// verses of a chapter or a range through it are not known.
type MissingError struct {
	Scheme  string
	Book    bible.BookID
	Chapter int
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("the %s numbering has no chapter %s %d", e.Scheme, e.Book, e.Chapter)
}

// Map answers r (a verse, a range or a chapter of from's numbering) in
// to's numbering: the runs of consecutive verses of to that hold the text
// of r, in canonical order. A verse whose text is several verses of to
// answers all of them (eng PSA.51.0, the title, is org PSA.51.1-2); verses
// that are one verse of to answer it once (org PSA.51.1-2 is eng
// PSA.51.0). A chapter of from answers what holds its verses, which need
// not be a chapter of to (eng MAL.4 is org MAL.3.19-24). Verses of r that
// no verse of to holds are left out; r answers nothing when none is held.
//
// Verse 0 is a title; a chapter includes it when from counts it apart
// (see firstVerse). The
// original numbering names some verses twice (org.vrs: S3Y 1:1 is DAG
// 3:24); a verse mapped through such a verse answers both names, so that
// a Bible with either book finds it.
//
// Two schemes of the same standard name (a Bible's compiled copy of eng
// and eng) are one numbering: Map answers r's verses as they are.
func Map(from, to *Scheme, r bible.Ref) ([]bible.Ref, error) {
	local, err := from.expand(r)
	if err != nil {
		return nil, err
	}
	if sameNumbering(from, to) {
		return runs(to, local), nil
	}
	var out []Verse
	for _, v := range local {
		out = appendMapped(out, from, to, v)
	}
	return runs(to, out), nil
}

// sameNumbering reports whether from and to are one numbering: a Bible's
// compiled table of a standard scheme is that scheme.
func sameNumbering(from, to *Scheme) bool {
	return from == to || from.hub && to.hub || from.Name == to.Name && from.Name != Custom && Valid(from.Name)
}

// expand lists the verses r covers in s.
func (s *Scheme) expand(r bible.Ref) ([]Verse, error) {
	switch r.Kind() {
	case bible.KindInvalid:
		return nil, &bible.ParseError{Input: r.String(), Msg: "not a passage"}
	case bible.KindIntro:
		return nil, ErrIntro
	}
	c1, err := chapterNumber(r.Chapter)
	if err != nil {
		return nil, err
	}
	if r.Kind() == bible.KindChapter {
		last := s.LastVerse(r.Book, c1)
		if last == 0 {
			return nil, &MissingError{Scheme: s.Name, Book: r.Book, Chapter: c1}
		}
		return s.chapterVerses(nil, r.Book, c1, s.firstVerse(r.Book, c1), last), nil
	}
	v1, seg1, err := verseNumber(r.Verse)
	if err != nil {
		return nil, err
	}
	if !r.IsRange() {
		return []Verse{{Book: r.Book, Chapter: c1, Verse: v1, Seg: seg1}}, nil
	}
	c2, err := chapterNumber(r.EndChapter)
	if err != nil {
		return nil, err
	}
	v2, seg2, err := verseNumber(r.EndVerse)
	if err != nil {
		return nil, err
	}
	if c2 < c1 || c2 == c1 && (v2 < v1 || v2 == v1 && seg2 < seg1) {
		return nil, bible.ErrBackwards
	}
	if c1 == c2 && seg1 == 0 && seg2 == 0 {
		if v2-v1 >= MaxMapVerses {
			return nil, ErrTooLong
		}
		return s.chapterVerses(nil, r.Book, c1, v1, v2), nil
	}
	out := []Verse{{Book: r.Book, Chapter: c1, Verse: v1, Seg: seg1}}
	for c := c1; c <= c2; c++ {
		from, to := s.firstVerse(r.Book, c), s.LastVerse(r.Book, c)
		if c == c1 {
			from = v1 + 1
		}
		if c == c2 {
			to = v2 - 1
		} else if to == 0 {
			return nil, &MissingError{Scheme: s.Name, Book: r.Book, Chapter: c}
		}
		if len(out)+to-from > MaxMapVerses {
			return nil, ErrTooLong
		}
		out = s.chapterVerses(out, r.Book, c, from, to)
	}
	return append(out, Verse{Book: r.Book, Chapter: c2, Verse: v2, Seg: seg2}), nil
}

func (s *Scheme) chapterVerses(out []Verse, book bible.BookID, c, from, to int) []Verse {
	for v := from; v <= to; v++ {
		out = append(out, Verse{Book: book, Chapter: c, Verse: v})
	}
	return out
}

// firstVerse is 0 when the chapter's title is a verse of the scheme
// apart from verse 1 (the scheme maps it to verses of the original that
// are not titles themselves: eng PSA 51:0 = PSA 51:1-2), else 1. Mapping
// lines that only shift a psalm's numbers (lxx: PSA 22:0-6 = PSA 23:0-6)
// start at 0 without making the title a verse.
func (s *Scheme) firstVerse(book bible.BookID, c int) int {
	for _, o := range s.toOrg[Verse{Book: book, Chapter: c}] {
		if o.Verse > 0 {
			return 0
		}
	}
	return 1
}

func chapterNumber(id string) (int, error) {
	if id == "" || len(id) > 4 || strings.Trim(id, "0123456789") != "" {
		return 0, ErrNotNumbered
	}
	n, _ := strconv.Atoi(id)
	if n < 1 {
		return 0, ErrNotNumbered
	}
	return n, nil
}

func verseNumber(id string) (int, byte, error) {
	var seg byte
	if k := len(id); k > 1 && id[k-1] >= 'a' && id[k-1] <= 'z' {
		seg, id = id[k-1], id[:k-1]
	}
	if id == "" || len(id) > 4 || strings.Trim(id, "0123456789") != "" {
		return 0, 0, ErrNotNumbered
	}
	n, _ := strconv.Atoi(id)
	return n, seg, nil
}

// runs sorts vs, drops repeats and joins consecutive verses of s into
// ranges: verses of one chapter that follow each other, and a chapter's
// last verse with the next chapter's first (0 or 1).
func runs(s *Scheme, vs []Verse) []bible.Ref {
	if len(vs) == 0 {
		return nil
	}
	vs = slices.Clone(vs)
	slices.SortFunc(vs, compare)
	vs = slices.Compact(vs)
	var out []bible.Ref
	start := 0
	for i := 1; i <= len(vs); i++ {
		if i < len(vs) && s.follows(vs[i-1], vs[i]) {
			continue
		}
		out = append(out, runRef(vs[start], vs[i-1]))
		start = i
	}
	return out
}

func (s *Scheme) follows(a, b Verse) bool {
	if a.Book != b.Book {
		return false
	}
	if a.Chapter == b.Chapter {
		return b.Verse == a.Verse || b.Verse == a.Verse+1
	}
	last := s.LastVerse(a.Book, a.Chapter)
	return b.Chapter == a.Chapter+1 && b.Verse <= 1 && last > 0 && a.Verse >= last
}
