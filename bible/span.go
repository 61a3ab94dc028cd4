package bible

import (
	"errors"
	"strconv"
	"strings"
)

// Span is the run of verses a Ref covers in one book's index: from verse
// FirstVerse of chapter FirstChapter to verse LastVerse of chapter
// LastChapter, inclusive, as positions in Book.Chapters and
// Chapter.Verses. The edge composes a range from it and dynamic expands a
// highlight with it, so the two cannot disagree on what JHN.3.16-4.2 is.
type Span struct {
	Book                     *Book
	FirstChapter, FirstVerse int
	LastChapter, LastVerse   int
}

// Errors of Book.Span besides *MissingError and *BackwardsError.
var (
	// ErrBackwards is a range whose end comes before its start in the
	// book's order; every *BackwardsError is one (errors.Is).
	ErrBackwards = errors.New("the range ends before it starts")
	// ErrIntro is an introduction, which has no verses.
	ErrIntro = errors.New("an introduction has no verses")
)

// MissingError names the book, the chapter or the verse of a Ref that a
// Bible does not have.
type MissingError struct {
	Book    BookID
	Chapter string // "" when the book is missing
	Verse   string // "" when the book or the chapter is missing
}

func (e *MissingError) Error() string {
	what, id := e.what()
	return what + " " + id + " not found"
}

// Message is the text for a client who asked for what is missing: it
// names the book, chapter or verse as a passage id, so that a reader of
// the answer sees which part of a range was not found.
func (e *MissingError) Message() string {
	what, id := e.what()
	return strings.ToUpper(what[:1]) + what[1:] + " " + id + " is not in this Bible."
}

// what is the missing part ("book", "chapter" or "verse") and its id.
func (e *MissingError) what() (what, id string) {
	switch {
	case e.Chapter == "":
		return "book", string(e.Book)
	case e.Verse == "":
		return "chapter", string(e.Book) + "." + e.Chapter
	}
	return "verse", string(e.Book) + "." + e.Chapter + "." + e.Verse
}

// BackwardsError is a range whose end comes before its start.
type BackwardsError struct{ Ref Ref }

func (e *BackwardsError) Error() string { return ErrBackwards.Error() }

// Is makes a *BackwardsError an ErrBackwards.
func (e *BackwardsError) Is(target error) bool { return target == ErrBackwards }

// Message is the text for a client who sent the range.
func (e *BackwardsError) Message() string {
	return "The passage range " + e.Ref.String() + " ends before it starts."
}

// Span locates r (a verse, a range or a whole chapter; r.Book is not
// checked) in b. A verse inside a bridge (16 of \v 15-16) is the
// bridge's. A missing chapter or verse is a *MissingError, a range
// running backwards a *BackwardsError, an introduction ErrIntro. It does
// not allocate on success.
func (b *Book) Span(r Ref) (Span, error) {
	switch r.Kind() {
	case KindIntro:
		return Span{}, ErrIntro
	case KindInvalid:
		return Span{}, &MissingError{Book: r.Book, Chapter: r.Chapter}
	case KindChapter:
		c := b.chapterIndex(r.Chapter)
		if c < 0 {
			return Span{}, &MissingError{Book: r.Book, Chapter: r.Chapter}
		}
		return Span{Book: b, FirstChapter: c, FirstVerse: 0, LastChapter: c, LastVerse: len(b.Chapters[c].Verses) - 1}, nil
	}
	c1, v1, err := b.locate(r.Book, r.Chapter, r.Verse)
	if err != nil {
		return Span{}, err
	}
	c2, v2 := c1, v1
	if r.IsRange() {
		if c2, v2, err = b.locate(r.Book, r.EndChapter, r.EndVerse); err != nil {
			return Span{}, err
		}
	}
	if c2 < c1 || c2 == c1 && v2 < v1 {
		return Span{}, &BackwardsError{Ref: r}
	}
	return Span{Book: b, FirstChapter: c1, FirstVerse: v1, LastChapter: c2, LastVerse: v2}, nil
}

func (b *Book) chapterIndex(id string) int {
	for i := range b.Chapters {
		if b.Chapters[i].ID == id {
			return i
		}
	}
	return -1
}

func (b *Book) locate(book BookID, chapter, verse string) (int, int, error) {
	c := b.chapterIndex(chapter)
	if c < 0 {
		return 0, 0, &MissingError{Book: book, Chapter: chapter}
	}
	v := b.Chapters[c].VerseIndex(verse)
	if v < 0 {
		v = b.Chapters[c].Bridge(verse)
	}
	if v < 0 {
		return 0, 0, &MissingError{Book: book, Chapter: chapter, Verse: verse}
	}
	return c, v, nil
}

// Verses returns the positions of the span's first and last verse in
// chapter c (FirstChapter ≤ c ≤ LastChapter).
func (s Span) Verses(c int) (from, to int) {
	from, to = 0, len(s.Book.Chapters[c].Verses)-1
	if c == s.FirstChapter {
		from = s.FirstVerse
	}
	if c == s.LastChapter {
		to = s.LastVerse
	}
	return from, to
}

// Len is the number of verses in the span.
func (s Span) Len() int {
	n := 0
	for c := s.FirstChapter; c <= s.LastChapter; c++ {
		from, to := s.Verses(c)
		n += to - from + 1
	}
	return n
}

// PassageIDs lists the span's verses as single-verse passage ids
// (JHN.3.16), in the book's order.
func (s Span) PassageIDs() []string {
	out := make([]string, 0, s.Len())
	for c := s.FirstChapter; c <= s.LastChapter; c++ {
		ch := &s.Book.Chapters[c]
		from, to := s.Verses(c)
		for _, v := range ch.Verses[from : to+1] {
			out = append(out, string(s.Book.ID)+"."+ch.ID+"."+v.ID)
		}
	}
	return out
}

// Ref is the passage of the span's verses with b's own ids: a verse, or
// a range from the first verse's id to the last verse's last number, so
// that a bridge at either end is whole (SIR.11.15-16 for the bridge
// itself, SIR.11.14-16 for 14 and 15 of a book that bridges 15-16). It
// allocates nothing.
func (s Span) Ref() Ref {
	first := &s.Book.Chapters[s.FirstChapter]
	last := &s.Book.Chapters[s.LastChapter]
	r := Ref{Book: s.Book.ID, Chapter: first.ID, Verse: first.Verses[s.FirstVerse].ID}
	if end := last.Verses[s.LastVerse].LastID(); last.ID != first.ID || end != r.Verse {
		r.EndChapter, r.EndVerse = last.ID, end
	}
	return r
}

// String prints the span's first and last verse positions, for tests and
// logs.
func (s Span) String() string {
	return strconv.Itoa(s.FirstChapter) + ":" + strconv.Itoa(s.FirstVerse) + "-" +
		strconv.Itoa(s.LastChapter) + ":" + strconv.Itoa(s.LastVerse)
}
