package citation

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bibleplatform/platform/bible"
)

// The grammar of a citation's numbers, after the book's name:
//
//	numbers = item { "," item }
//	item    = place [ "-" ( place | "end" ) ]
//	place   = number [ ( ":" | "." | " " ) number ]
//
// A place of two numbers is a chapter and a verse, and sets the chapter
// for the items after it; a lone number is a verse once a chapter is set,
// else a chapter (a verse of a single-chapter book: "Jude 3"). "end" is
// the chapter's last verse. A letter after a verse ("25a", "20c") names
// part of it and reads as the whole verse; parentheses and brackets
// (optional verses: "Luke 2:1-14 (15-20)") are read as if absent. A
// number with no chapter before it and one after a comma ("Juan 3,16")
// is a chapter and a verse, as Spanish and most of Europe write it.

// place is a chapter and a verse (0: none) as written.
type place struct{ chap, verse int }

// item is one piece of a citation's numbers.
type item struct {
	from place
	to   place // zero: no range
	end  bool  // to the end of from's (or to's) chapter
	// text is the piece as written, for errors.
	text string
}

// numbers is a citation's numbers, read.
type numbers struct {
	items []item
}

// token kinds of the numbers lexer.
const (
	tNum = iota
	tSep
	tSpace // a space between two numbers
	tDash
	tComma
	tEnd
)

type token struct {
	kind int
	n    int
	pos  int // byte offset in the numbers text
}

// lexNumbers splits the numbers text into tokens; ok is false for text
// that is not numbers.
func lexNumbers(s string) ([]token, bool) {
	var out []token
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j-i > 3 {
				return nil, false
			}
			n, _ := strconv.Atoi(s[i:j])
			// A part of a verse: "25a", "20c" (not "end" after a digit).
			if j < len(s) && s[j] >= 'a' && s[j] <= 'e' && (j+1 == len(s) || !isLetter(s[j+1:])) {
				j++
			}
			if space && len(out) > 0 && out[len(out)-1].kind == tNum {
				out = append(out, token{kind: tSpace, pos: i})
			}
			out = append(out, token{kind: tNum, n: n, pos: i})
			i = j
		case c == '(' || c == '[':
			// Optional verses after others: "Luke 2:1-14 (15-20)" is a
			// list.
			if len(out) > 0 && out[len(out)-1].kind == tNum {
				out = append(out, token{kind: tComma, pos: i})
			}
			i++
		case c == ' ' || c == '\t' || c == ')' || c == ']':
			i++
			space = true
			continue
		case c == ':' || c == '.':
			out = append(out, token{kind: tSep, pos: i})
			i++
		case c == ',':
			out = append(out, token{kind: tComma, pos: i})
			i++
		case c == '-':
			out = append(out, token{kind: tDash, pos: i})
			i++
		case strings.HasPrefix(s[i:], "–") || strings.HasPrefix(s[i:], "—"):
			out = append(out, token{kind: tDash, pos: i})
			i += len("–")
		default:
			w := i
			for w < len(s) && isWordByte(s[w]) {
				w++
			}
			if word := strings.ToLower(s[i:w]); word == "end" || word == "fin" || word == "final" {
				out = append(out, token{kind: tEnd, pos: i})
				i = w
				break
			}
			return nil, false
		}
		space = false
	}
	return out, len(out) > 0 && out[0].kind == tNum
}

func isLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// parseNumbers reads the numbers of one passage. single says the book
// has one chapter. It answers what it could not read as an error.
func parseNumbers(s string, single bool) (numbers, error) {
	toks, ok := lexNumbers(s)
	if !ok {
		return numbers{}, fmt.Errorf("%q is not chapter and verse numbers", strings.TrimSpace(s))
	}
	european := true
	for _, t := range toks {
		if t.kind == tSep || t.kind == tSpace {
			european = false
		}
	}
	if european && len(toks) >= 3 && toks[1].kind == tComma && toks[2].kind == tNum && !single {
		// "Juan 3,16" and "Juan 3,16-18": the comma is the chapter's.
		toks[1].kind = tSep
	}
	var out numbers
	chapter := 0 // the chapter set by a chapter and verse before
	if single {
		chapter = 1
	}
	for i := 0; i < len(toks); {
		start := i
		it, next, err := parseItem(toks, i, &chapter, single)
		text := itemText(s, toks, start, next)
		if err != nil {
			return numbers{}, fmt.Errorf("%q: %v", text, err)
		}
		it.text = text
		out.items = append(out.items, it)
		i = next
		if i < len(toks) {
			if toks[i].kind != tComma {
				return numbers{}, fmt.Errorf("%q: expected \",\" or \";\" before %q", strings.TrimSpace(s), strings.TrimSpace(s[toks[i].pos:]))
			}
			i++
			if i == len(toks) {
				return numbers{}, fmt.Errorf("%q: nothing after \",\"", strings.TrimSpace(s))
			}
		}
	}
	return out, nil
}

func itemText(s string, toks []token, from, to int) string {
	end := len(s)
	if to < len(toks) {
		end = toks[to].pos
	}
	return strings.TrimSpace(s[toks[from].pos:end])
}

// parseItem reads one item from toks[i:], returning the index after it.
func parseItem(toks []token, i int, chapter *int, single bool) (item, int, error) {
	var it item
	p, i, err := parsePlace(toks, i, *chapter)
	if err != nil {
		return it, i, err
	}
	if p.verse != 0 {
		*chapter = p.chap
	}
	it.from = p
	if i >= len(toks) || toks[i].kind != tDash {
		return it, i, nil
	}
	i++
	if i >= len(toks) {
		return it, i, fmt.Errorf("nothing after the dash")
	}
	if toks[i].kind == tEnd {
		if p.verse == 0 {
			return it, i, fmt.Errorf("\"end\" after a chapter: end of which verses?")
		}
		it.end = true
		return it, i + 1, nil
	}
	q, j, err := parsePlace(toks, i, *chapter)
	if err != nil {
		return it, j, err
	}
	switch {
	case q.verse == 0 && p.verse != 0:
		// "3:2-5": the end is a verse of the same chapter.
		q = place{chap: p.chap, verse: q.chap}
	case q.verse != 0 && p.verse == 0 && !single:
		// "3-4:2": from the chapter's first verse.
		it.from.verse = 1
	}
	if q.verse != 0 {
		*chapter = q.chap
	}
	if j < len(toks) && toks[j].kind == tDash {
		return it, j, fmt.Errorf("two dashes")
	}
	it.to = q
	return it, j, nil
}

// parsePlace reads a number, or a chapter and a verse, at toks[i]. A lone
// number is a verse of chapter when one is set (chapter > 0).
func parsePlace(toks []token, i, chapter int) (place, int, error) {
	if i >= len(toks) || toks[i].kind != tNum {
		return place{}, i, fmt.Errorf("expected a number")
	}
	a := toks[i].n
	i++
	if i+1 < len(toks) && (toks[i].kind == tSep || toks[i].kind == tSpace) && toks[i+1].kind == tNum {
		p := place{chap: a, verse: toks[i+1].n}
		if p.chap == 0 {
			return p, i, fmt.Errorf("there is no chapter 0")
		}
		return p, i + 2, nil
	}
	if i < len(toks) && (toks[i].kind == tSep || toks[i].kind == tSpace) {
		return place{}, i, fmt.Errorf("expected a verse after %d", a)
	}
	if chapter > 0 {
		return place{chap: chapter, verse: a}, i, nil
	}
	if a == 0 {
		return place{}, i, fmt.Errorf("there is no chapter 0")
	}
	return place{chap: a}, i, nil
}

// cutNumbers splits one passage of a citation into the book's name and
// its numbers: the numbers start at the first digit after a letter from
// which the rest reads as numbers ("1 Cor 13:4" → "1 Cor", "13:4"; "Jn3:16"
// → "Jn", "3:16"). A passage without a letter is all numbers.
func cutNumbers(s string) (name, nums string) {
	letter := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) {
			letter = true
		}
		if letter && r >= '0' && r <= '9' && (i == 0 || s[i-1] < '0' || s[i-1] > '9') {
			if _, ok := lexNumbers(s[i:]); ok {
				return s[:i], s[i:]
			}
		}
		i += n
	}
	if !letter {
		return "", s
	}
	return s, ""
}

// Lengths is what a resolver needs of the Bible besides its book names:
// the last verse of a chapter (0 when the Bible has no such chapter).
// bible.Index answers it through IndexLengths.
type Lengths interface {
	LastVerse(book bible.BookID, chapter int) int
}

// IndexLengths answers Lengths from a Bible's index: the highest numbered
// verse id of the chapter.
type IndexLengths struct{ Index *bible.Index }

// LastVerse implements Lengths.
func (x IndexLengths) LastVerse(book bible.BookID, chapter int) int {
	b := x.Index.Book(book)
	if b == nil {
		return 0
	}
	id := strconv.Itoa(chapter)
	for _, c := range b.Chapters {
		if c.ID != id {
			continue
		}
		last := 0
		for _, v := range c.Verses {
			last = max(last, leadingNumber(v.ID))
		}
		return last
	}
	return 0
}

func leadingNumber(id string) int {
	n := 0
	for i := 0; i < len(id) && id[i] >= '0' && id[i] <= '9' && i < 4; i++ {
		n = n*10 + int(id[i]-'0')
	}
	return n
}

// Resolved is a citation resolved to passages of one Bible.
type Resolved struct {
	// Passages are the canonical passage ids, in the citation's order:
	// "EPH.3.2-3", "EPH.3.5-6", "PSA.23", "ROM.7.14-25".
	Passages []bible.Ref
	// Reference is the citation written out with the Bible's book
	// names: "Ephesians 3:2-3, 5-6; Luke 2:1-14".
	Reference string
}

// IDs returns the passage ids.
func (r Resolved) IDs() []string {
	out := make([]string, len(r.Passages))
	for i, p := range r.Passages {
		out[i] = p.String()
	}
	return out
}

// Error is a citation, or the part of one, that could not be read or
// names what the Bible does not have.
type Error struct {
	Part   string // the passage of the citation (between ';') at fault
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("cannot read %q: %s", e.Part, e.Reason) }

// Caps on what Resolve reads.
const (
	MaxCitationBytes = 1000
	MaxPassages      = 100
)

// Resolve reads a citation as people write it, with lists, gaps, "-end"
// and several passages separated by ';' ("Eph 3:2-3, 5-6",
// "Rom 7:14-end", "Isa 9:2-7; Luke 2:1-14"), into passages of this
// Bible. A passage without a book name is of the book before it
// ("Isa 9:2-7; 11:1"). Chapters and verses are checked against lengths.
// An error is an *Error naming the passage it could not read.
func (r *Resolver) Resolve(s string, lengths Lengths) (Resolved, error) {
	if len(s) > MaxCitationBytes {
		return Resolved{}, &Error{Part: s[:40] + "…", Reason: fmt.Sprintf("longer than %d bytes", MaxCitationBytes)}
	}
	var out Resolved
	var ref strings.Builder
	var book bible.BookID
	parts := strings.Split(s, ";")
	if len(parts) > MaxPassages {
		return Resolved{}, &Error{Part: s, Reason: fmt.Sprintf("more than %d passages", MaxPassages)}
	}
	for _, part := range parts {
		part = strings.TrimSpace(part)
		if part == "" {
			return Resolved{}, &Error{Part: s, Reason: "an empty passage between \";\""}
		}
		name, nums := cutNumbers(part)
		if strings.TrimSpace(name) != "" {
			b, _, ok := r.book(name)
			if !ok {
				return Resolved{}, &Error{Part: part, Reason: fmt.Sprintf("%q is not a book of this Bible", strings.TrimSpace(name))}
			}
			book = b
		} else if book == "" {
			return Resolved{}, &Error{Part: part, Reason: "no book named"}
		}
		if strings.TrimSpace(nums) == "" {
			return Resolved{}, &Error{Part: part, Reason: "no chapter named (a whole book is not a passage)"}
		}
		n, err := parseNumbers(nums, r.chapters[book] == 1)
		if err != nil {
			return Resolved{}, &Error{Part: part, Reason: err.Error()}
		}
		refs, err := r.refs(book, n, lengths)
		if err != nil {
			return Resolved{}, &Error{Part: part, Reason: err.Error()}
		}
		if len(out.Passages)+len(refs) > MaxPassages {
			return Resolved{}, &Error{Part: part, Reason: fmt.Sprintf("more than %d passages", MaxPassages)}
		}
		if ref.Len() > 0 {
			ref.WriteString("; ")
		}
		writeReference(&ref, r.title(book), refs)
		out.Passages = append(out.Passages, refs...)
	}
	out.Reference = ref.String()
	return out, nil
}

// title is the book's name in references: the Bible's own, else the
// first of the readers' names, else its id.
func (r *Resolver) title(book bible.BookID) string {
	if t := r.titles[book]; t != "" {
		return t
	}
	return string(book)
}

// refs turns a passage's items into passage ids, checked against the
// Bible's chapters and verses.
func (r *Resolver) refs(book bible.BookID, n numbers, lengths Lengths) ([]bible.Ref, error) {
	var out []bible.Ref
	chapters := r.chapters[book]
	last := func(c int) (int, error) {
		if c < 1 || c > chapters {
			return 0, fmt.Errorf("%s has %d chapters, not %d", r.title(book), chapters, c)
		}
		v := lengths.LastVerse(book, c)
		if v == 0 {
			return 0, fmt.Errorf("this Bible has no %s %d", r.title(book), c)
		}
		return v, nil
	}
	for _, it := range n.items {
		from, to := it.from, it.to
		lf, err := last(from.chap)
		if err != nil {
			return nil, err
		}
		if from.verse > lf {
			return nil, fmt.Errorf("%s %d has %d verses, not %d", r.title(book), from.chap, lf, from.verse)
		}
		switch {
		case it.end:
			to = place{chap: from.chap, verse: lf}
		case to == place{} && from.verse == 0:
			out = append(out, bible.Ref{Book: book, Chapter: strconv.Itoa(from.chap)})
			continue
		case to == place{}:
			out = append(out, verseRef(book, from))
			continue
		}
		if to.verse == 0 {
			// A run of chapters: from the first's start to the last's end.
			if to.chap < from.chap {
				return nil, fmt.Errorf("%q runs backwards", it.text)
			}
			lt, err := last(to.chap)
			if err != nil {
				return nil, err
			}
			from.verse, to.verse = 1, lt
		}
		lt, err := last(to.chap)
		if err != nil {
			return nil, err
		}
		if to.verse > lt {
			return nil, fmt.Errorf("%s %d has %d verses, not %d", r.title(book), to.chap, lt, to.verse)
		}
		if from.verse == 0 {
			from.verse = 1
		}
		if to.chap < from.chap || to.chap == from.chap && to.verse < from.verse {
			return nil, fmt.Errorf("%q runs backwards", it.text)
		}
		if from == to {
			out = append(out, verseRef(book, from))
			continue
		}
		ref := verseRef(book, from)
		ref.EndChapter, ref.EndVerse = strconv.Itoa(to.chap), strconv.Itoa(to.verse)
		out = append(out, ref)
	}
	return out, nil
}

func verseRef(book bible.BookID, p place) bible.Ref {
	return bible.Ref{Book: book, Chapter: strconv.Itoa(p.chap), Verse: strconv.Itoa(p.verse)}
}

// writeReference writes one book's passages as people write them: the
// book once, a chapter once for the verses after it ("Ephesians 3:2-3,
// 5-6").
func writeReference(b *strings.Builder, title string, refs []bible.Ref) {
	b.WriteString(title)
	b.WriteByte(' ')
	chapter := ""
	for i, r := range refs {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case r.Verse == "":
			b.WriteString(r.Chapter)
			chapter = ""
			continue
		case r.Chapter != chapter || i == 0:
			b.WriteString(r.Chapter + ":")
		}
		b.WriteString(r.Verse)
		chapter = r.Chapter
		if r.IsRange() {
			b.WriteByte('-')
			if r.EndChapter != r.Chapter {
				b.WriteString(r.EndChapter + ":")
				chapter = r.EndChapter
			}
			b.WriteString(r.EndVerse)
		}
	}
}
