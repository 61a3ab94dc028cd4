package versification

import (
	"strconv"

	"github.com/bibleplatform/platform/bible"
)

// maxIdentityChapters bounds the chapters Identity looks at; a longer
// range goes through Map.
const maxIdentityChapters = 200

// Identity reports whether Map(from, to, r) would answer r itself: the
// two are one numbering, or neither scheme (nor the original's aliases)
// has a mapping line or an excluded verse in the chapters r spans, and
// from has them. It allocates nothing, so that a request whose passage no
// scheme renumbers (John 3:16 from eng to org) costs no more than one
// that names no other numbering.
func Identity(from, to *Scheme, r bible.Ref) bool {
	switch r.Kind() {
	case bible.KindInvalid, bible.KindIntro:
		return false
	}
	if sameNumbering(from, to) {
		return true
	}
	c1, err := chapterNumber(r.Chapter)
	if err != nil {
		return false
	}
	c2 := c1
	if r.IsRange() {
		if c2, err = chapterNumber(r.EndChapter); err != nil || c2 < c1 || c2-c1 > maxIdentityChapters {
			return false
		}
	}
	hub, _ := Standard(Org)
	for c := c1; c <= c2; c++ {
		k := chapterKey{r.Book, c}
		if from.touched[k] || to.touched[k] || hub.touched[k] || from.LastVerse(r.Book, c) == 0 {
			return false
		}
	}
	return true
}

// Books finds a book of a Bible's index; *bible.Index is one.
type Books interface {
	Book(id bible.BookID) *bible.Book
}

// AppendInto appends to dst the passages of the Bible x (numbered by to)
// that hold the text of r (a verse, range or chapter of from's
// numbering), and returns the extended slice. They are Map's runs, each
// trimmed to the verses b has, with b's own ids: a title counted as verse
// 0 by the scheme is no verse of a Bible that prints it as a heading (the
// WEB's psalms), and a verse the translation omits (the BSB's MAT 17:21)
// is none either; a run of which b has no verse is left out. A chapter
// of from that is exactly one chapter of b answers that chapter's id
// (lxx PSA.22 is PSA.23 of an English Bible). A run in a book x lacks is
// left out too (vul DAG.3.24 is org S3Y.1.1 and DAG.3.24: a Bible with
// either book answers it).
//
// A bridge of x (\v 15-16, one verse of its index) that holds any verse
// of r is answered whole, with its range as id: 16 is SIR.11.15-16 of a
// Bible that bridges 15-16.
//
// When Identity holds and x has r as it is (its chapter; its first and
// last verse, neither in a bridge), r itself is appended and nothing is
// allocated (given a dst with room: a caller passes a stack buffer).
func AppendInto(dst []bible.Ref, from, to *Scheme, r bible.Ref, x Books) ([]bible.Ref, error) {
	if Identity(from, to, r) && hasAsIs(x, r) {
		return append(dst, r), nil
	}
	runs, err := Map(from, to, r)
	if err != nil {
		return dst, err
	}
	n := len(dst)
	for _, run := range runs {
		if t, ok := trim(x.Book(run.Book), run); ok {
			dst = append(dst, t)
		}
	}
	if r.Kind() == bible.KindChapter && len(dst) == n+1 {
		if c, ok := wholeChapter(x.Book(dst[n].Book), dst[n]); ok {
			dst[n] = bible.Ref{Book: dst[n].Book, Chapter: c}
		}
	}
	return dst, nil
}

// hasAsIs reports whether x has r as it is: the chapter r names, or the
// verses r starts and ends with, neither inside a bridge nor one whose
// other numbers r leaves out.
func hasAsIs(x Books, r bible.Ref) bool {
	b := x.Book(r.Book)
	if b == nil || b.ID != r.Book {
		return false
	}
	sp, err := b.Span(r)
	if err != nil {
		return false
	}
	return r.Kind() == bible.KindChapter || sp.Ref() == r
}

// trim narrows run to the first and last verses b has within it.
func trim(b *bible.Book, run bible.Ref) (bible.Ref, bool) {
	if b == nil || b.ID != run.Book {
		return bible.Ref{}, false
	}
	first, last := refVerse(run.Start()), refVerse(run.End())
	out := bible.Ref{Book: b.ID}
	var endC, endV string
	for _, ch := range b.Chapters {
		c, err := chapterNumber(ch.ID)
		if err != nil || c < first.Chapter || c > last.Chapter {
			continue
		}
		for _, v := range ch.Verses {
			n, seg, err := verseNumber(v.ID)
			if err != nil {
				continue
			}
			// A bridge (\v 15-16) is in the run when any number it covers
			// is, and is kept whole.
			m, mseg, err := verseNumber(v.LastID())
			if err != nil {
				m, mseg = n, seg
			}
			x, y := Verse{Book: b.ID, Chapter: c, Verse: n, Seg: seg}, Verse{Book: b.ID, Chapter: c, Verse: m, Seg: mseg}
			if compare(y, first) < 0 || compare(x, last) > 0 {
				continue
			}
			if out.Chapter == "" {
				out.Chapter, out.Verse = ch.ID, v.ID
			}
			endC, endV = ch.ID, v.LastID()
		}
	}
	if out.Chapter == "" {
		return bible.Ref{}, false
	}
	if endC != out.Chapter || endV != out.Verse {
		out.EndChapter, out.EndVerse = endC, endV
	}
	return out, true
}

// refVerse is the verse a numbered verse id names (the runs Map answers
// are numbered).
func refVerse(r bible.Ref) Verse {
	c, _ := strconv.Atoi(r.Chapter)
	n, seg, _ := verseNumber(r.Verse)
	return Verse{Book: r.Book, Chapter: c, Verse: n, Seg: seg}
}

// wholeChapter reports whether r runs from the first to the last verse
// of one chapter of b.
func wholeChapter(b *bible.Book, r bible.Ref) (string, bool) {
	end := r.End()
	if b == nil || end.Chapter != r.Chapter {
		return "", false
	}
	for _, ch := range b.Chapters {
		if ch.ID == r.Chapter && len(ch.Verses) > 0 {
			return ch.ID, ch.Verses[0].ID == r.Verse && ch.Verses[len(ch.Verses)-1].LastID() == end.Verse
		}
	}
	return "", false
}
