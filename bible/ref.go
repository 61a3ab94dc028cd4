package bible

import (
	"strconv"
	"strings"
)

// IntroChapter is the chapter part of a book introduction's passage id:
// GEN.INTRO.
const IntroChapter = "INTRO"

// Ref is a USFM passage reference: a book introduction (GEN.INTRO), a chapter
// (JHN.3), a verse (JHN.3.16) or a verse range within one book (JHN.3.16-18,
// JHN.3.16-4.2). Chapter and verse ids are kept as the strings the source
// uses, because not all of them are numbers (the WEB's Psalm 151 is PS2.1_1).
//
// The zero Ref is invalid. Ref is comparable; a parsed Ref holds substrings of
// its input, so parsing an upper-case id does not allocate.
type Ref struct {
	Book       BookID
	Chapter    string // IntroChapter for an introduction
	Verse      string // "" for a chapter or an introduction
	EndChapter string // "" unless the Ref is a range
	EndVerse   string // "" unless the Ref is a range
}

// Kind says what a Ref addresses.
type Kind uint8

const (
	KindInvalid Kind = iota
	KindIntro
	KindChapter
	KindVerse
	KindRange
)

// Kind reports what r addresses.
func (r Ref) Kind() Kind {
	switch {
	case r.Book == "" || r.Chapter == "":
		return KindInvalid
	case r.Chapter == IntroChapter:
		return KindIntro
	case r.Verse == "":
		return KindChapter
	case r.EndVerse != "":
		return KindRange
	}
	return KindVerse
}

// IsRange reports whether r spans more than one verse id.
func (r Ref) IsRange() bool { return r.EndVerse != "" }

// Start returns the first verse of a range, or r itself.
func (r Ref) Start() Ref { return Ref{Book: r.Book, Chapter: r.Chapter, Verse: r.Verse} }

// End returns the last verse of a range, or r itself.
func (r Ref) End() Ref {
	if !r.IsRange() {
		return r
	}
	return Ref{Book: r.Book, Chapter: r.EndChapter, Verse: r.EndVerse}
}

// ChapterRef returns the chapter r starts in.
func (r Ref) ChapterRef() Ref { return Ref{Book: r.Book, Chapter: r.Chapter} }

// String prints the canonical passage id: a range within one chapter as
// JHN.3.16-18, across chapters as JHN.3.16-4.2.
func (r Ref) String() string {
	switch r.Kind() {
	case KindInvalid:
		return ""
	case KindIntro, KindChapter:
		return string(r.Book) + "." + r.Chapter
	case KindVerse:
		return string(r.Book) + "." + r.Chapter + "." + r.Verse
	}
	if r.EndChapter == r.Chapter {
		return string(r.Book) + "." + r.Chapter + "." + r.Verse + "-" + r.EndVerse
	}
	return string(r.Book) + "." + r.Chapter + "." + r.Verse + "-" + r.EndChapter + "." + r.EndVerse
}

// MaxIDLen is the spec's limit on a chapter or verse id.
const MaxIDLen = 7

// ParseError reports a malformed passage id; its message quotes the input.
type ParseError struct {
	Input string
	Msg   string
}

func (e *ParseError) Error() string { return e.Message() }

// Message is the text for a client whose passage id was refused: the id
// as sent and which rule of the grammar it breaks, written for humans.
// Every error of ParseRef is a *ParseError; a nil one reads generically.
func (e *ParseError) Message() string {
	if e == nil {
		return "invalid passage id"
	}
	return "invalid passage id " + strconv.Quote(e.Input) + ": " + e.Msg
}

// ParseRef parses a passage id in any of the forms Ref documents, plus the
// long range form JHN.3.16-JHN.4.2 (the same book on both sides). The book id
// is accepted in any case and returned in upper case; INTRO likewise.
func ParseRef(s string) (Ref, error) {
	if len(s) > 64 {
		return failRef(s, "too long")
	}
	start, end, isRange := strings.Cut(s, "-")
	book, rest, ok := strings.Cut(start, ".")
	if !ok {
		return failRef(s, "want BOOK.CHAPTER[.VERSE]")
	}
	id, ok := ParseBookID(book)
	if !ok {
		return failRef(s, "book id must be 3 letters or digits")
	}
	r := Ref{Book: id}
	var hasVerse bool
	r.Chapter, r.Verse, hasVerse = strings.Cut(rest, ".")
	if strings.EqualFold(r.Chapter, IntroChapter) && r.Chapter != IntroChapter {
		r.Chapter = IntroChapter
	}
	if msg := checkSegment("chapter", r.Chapter); msg != "" {
		return failRef(s, msg)
	}
	if r.Chapter == IntroChapter {
		if r.Verse != "" || isRange {
			return failRef(s, "an introduction has no verses")
		}
		return r, nil
	}
	if strings.Contains(r.Verse, ".") {
		return failRef(s, "too many parts")
	}
	if hasVerse {
		if msg := checkSegment("verse", r.Verse); msg != "" {
			return failRef(s, msg)
		}
	}
	if !isRange {
		return r, nil
	}
	if r.Verse == "" {
		return failRef(s, "a range runs from a verse to a verse")
	}
	a, rest2, two := strings.Cut(end, ".")
	b, c, three := strings.Cut(rest2, ".")
	switch {
	case !two: // JHN.3.16-18
		r.EndChapter, r.EndVerse = r.Chapter, a
	case !three: // JHN.3.16-4.2
		r.EndChapter, r.EndVerse = a, rest2
	case !strings.Contains(c, "."): // JHN.3.16-JHN.4.2
		if id, ok := ParseBookID(a); !ok || id != r.Book {
			return failRef(s, "a range must stay within one book")
		}
		r.EndChapter, r.EndVerse = b, c
	default:
		return failRef(s, "too many parts after '-'")
	}
	if msg := checkSegment("end chapter", r.EndChapter); msg != "" {
		return failRef(s, msg)
	}
	if r.EndChapter == IntroChapter {
		return failRef(s, "a range cannot end in an introduction")
	}
	if msg := checkSegment("end verse", r.EndVerse); msg != "" {
		return failRef(s, msg)
	}
	if r.EndChapter == r.Chapter && r.EndVerse == r.Verse {
		r.EndChapter, r.EndVerse = "", ""
	}
	return r, nil
}

func failRef(s, msg string) (Ref, error) { return Ref{}, &ParseError{Input: s, Msg: msg} }

// MustParseRef is ParseRef for tests and tables; it panics on error.
func MustParseRef(s string) Ref {
	r, err := ParseRef(s)
	if err != nil {
		panic(err)
	}
	return r
}

// ParseBookID accepts a book id (three ASCII letters or digits) in any case
// and returns it in upper case. An upper-case id is returned as a substring
// of s and a canonical book in other cases as the table's own string, so
// neither allocates; only a peripheral book (FRT, GLO…) not in upper case
// is copied.
func ParseBookID(s string) (BookID, bool) {
	if ValidBookID(s) {
		return BookID(s), true
	}
	if len(s) != 3 {
		return "", false
	}
	var up [3]byte
	for i := 0; i < 3; i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return "", false
		}
		up[i] = c
	}
	if id, ok := bookByBytes[up]; ok {
		return id, true
	}
	return BookID(up[:]), true
}

// bookByBytes finds a canonical book's id from its upper-case bytes.
var bookByBytes = func() map[[3]byte]BookID {
	m := make(map[[3]byte]BookID, len(bookTable))
	for _, b := range bookTable {
		m[[3]byte{b.id[0], b.id[1], b.id[2]}] = b.id
	}
	return m
}()

// checkSegment applies the spec's rule for chapter and verse ids: 1 to 7
// characters. We further allow only ASCII letters, digits and '_', the
// characters USFM sources use (1_1, 16a), so that an id is always safe in a
// URL path and an object key.
func checkSegment(what, s string) string {
	if s == "" {
		return what + " is empty"
	}
	if len(s) > MaxIDLen {
		return what + " is longer than 7 characters"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_') {
			return what + " has a character other than a letter, digit or '_'"
		}
	}
	return ""
}

// ValidSegment reports whether s is acceptable as a chapter or verse id.
func ValidSegment(s string) bool { return checkSegment("", s) == "" }

// Label is the human-readable reference for r in the Bible's own language:
// bookName is the book's short title in that language ("Juan"), introTitle
// the title of the book's introduction. Chapter and verse are separated by
// ':' ("Juan 3:16", "Juan 3:16-4:2", "Juan 3").
func (r Ref) Label(bookName, introTitle string) string {
	switch r.Kind() {
	case KindIntro:
		return bookName + " " + introTitle
	case KindChapter:
		return bookName + " " + r.Chapter
	case KindVerse:
		return bookName + " " + r.Chapter + ":" + r.Verse
	case KindRange:
		if r.EndChapter == r.Chapter {
			return bookName + " " + r.Chapter + ":" + r.Verse + "-" + r.EndVerse
		}
		return bookName + " " + r.Chapter + ":" + r.Verse + "-" + r.EndChapter + ":" + r.EndVerse
	}
	return ""
}
