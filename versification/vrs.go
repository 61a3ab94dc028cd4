package versification

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/bibleplatform/platform/bible"
)

// Caps on a .vrs file, which may come with a bundle from anywhere. The
// shared files stay far below them (the largest, lxx.vrs, is 77 KB with
// 3,911 mapped verse pairs).
const (
	MaxVRSBytes = 1 << 20 // bytes of one file
	MaxPairs    = 100_000 // verse pairs its mapping lines expand to
)

// SyntaxError is a line of a .vrs file that cannot be read: File:Line:Col
// and what is wrong with it.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ParseVRS reads a Paratext versification file. file names it in errors;
// name becomes the Scheme's Name.
//
// The format, as Paratext writes and reads it: '#' starts a comment,
// except that a line starting "#!" is read as what follows (lines older
// Paratext versions should skip). Other lines are
//
//	GEN 1:31 2:25 …            the last verse of each chapter (a custom
//	                           file may end a book early with END)
//	GEN 31:55 = GEN 32:1       a mapping: this scheme's verse or run of
//	PSA 51:1-19 = PSA 51:3-21  verses of one chapter holds the text of the
//	ESG 1:1 = ESG 1:1a         original numbering's; verse 0 is a title,
//	&ACT 19:40-41 = ACT 19:40  a letter a segment ('&' marks a run mapped
//	                           to one verse, read like any mapping here)
//	-PSA 115:5                 a verse the scheme does not have
//	*JOS 9:2,-,a,b             the segments of a verse (checked, not kept)
//
// A run written backwards (vul.vrs's DAG 3:52-23) is read as its first
// verse, as Paratext does, and reported among the warnings.
func ParseVRS(file, name string, data []byte) (*Scheme, []error, error) {
	if len(data) > MaxVRSBytes {
		return nil, nil, &SyntaxError{File: file, Line: 1, Col: 1, Msg: fmt.Sprintf("the file is larger than %d bytes", MaxVRSBytes)}
	}
	p := &vrsParser{file: file, s: newScheme(name)}
	for n := 1; len(data) > 0; n++ {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		if err := p.line(n, string(line)); err != nil {
			return nil, nil, err
		}
	}
	if len(p.s.counts) == 0 {
		return nil, nil, &SyntaxError{File: file, Line: 1, Col: 1, Msg: "no book lists its chapters"}
	}
	return p.s, p.warnings, nil
}

type vrsParser struct {
	file     string
	s        *Scheme
	warnings []error
}

// field is a token of a line with its 1-based column.
type field struct {
	text string
	col  int
}

func fields(s string, col int) []field {
	var out []field
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		if j > i {
			out = append(out, field{s[i:j], col + i})
		}
		i = j
	}
	return out
}

func (p *vrsParser) fail(n, col int, format string, args ...any) error {
	return &SyntaxError{File: p.file, Line: n, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *vrsParser) line(n int, raw string) error {
	raw = strings.TrimSuffix(raw, "\r")
	col := 1
	text := raw
	if t := strings.TrimLeft(text, " \t"); strings.HasPrefix(t, "#!") {
		col += len(text) - len(t) + 2
		text = t[2:]
	}
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text = text[:i]
	}
	lead := len(text) - len(strings.TrimLeft(text, " \t"))
	col += lead
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return nil
	case strings.Contains(text, "="):
		return p.mapping(n, col, text)
	case text[0] == '-':
		v, err := p.verse(n, col+1, fields(text[1:], col+1))
		if err != nil {
			return err
		}
		p.s.addExcluded(v)
		return nil
	case text[0] == '*':
		return p.segments(n, col, text)
	}
	return p.chapters(n, fields(text, col))
}

func (p *vrsParser) book(n int, f field) (bible.BookID, error) {
	if !bible.ValidBookID(f.text) {
		return "", p.fail(n, f.col, "%q is not a book id (three upper-case letters or digits)", f.text)
	}
	return bible.BookID(f.text), nil
}

// number reads a chapter or verse number in [min, max].
func (p *vrsParser) number(n, col int, s, what string, lo, hi int) (int, error) {
	if s == "" || len(s) > 4 || strings.Trim(s, "0123456789") != "" {
		return 0, p.fail(n, col, "%s %q is not a number", what, s)
	}
	v, _ := strconv.Atoi(s)
	if v < lo || v > hi {
		return 0, p.fail(n, col, "%s %d is outside %d–%d", what, v, lo, hi)
	}
	return v, nil
}

func (p *vrsParser) chapters(n int, fs []field) error {
	book, err := p.book(n, fs[0])
	if err != nil {
		return err
	}
	if len(fs) == 1 {
		return p.fail(n, fs[0].col, "book %s lists no chapter", book)
	}
	last := 0
	for _, f := range fs[1:] {
		if f.text == "END" {
			p.s.truncate(book, last)
			break
		}
		c, v, ok := strings.Cut(f.text, ":")
		if !ok {
			return p.fail(n, f.col, "%q is not CHAPTER:LASTVERSE", f.text)
		}
		ch, err := p.number(n, f.col, c, "chapter", 1, bible.MaxChapters)
		if err != nil {
			return err
		}
		vs, err := p.number(n, f.col+len(c)+1, v, "last verse", 0, bible.MaxVerses)
		if err != nil {
			return err
		}
		p.s.setChapter(book, ch, vs)
		last = ch
	}
	return nil
}

// ref reads BOOK CHAPTER:VERSE[a][-VERSE].
func (p *vrsParser) ref(n int, fs []field, side string) (Range, error) {
	if len(fs) != 2 {
		col := 0
		if len(fs) > 0 {
			col = fs[0].col
		}
		return Range{}, p.fail(n, max(col, 1), "the %s side is not BOOK CHAPTER:VERSE[-VERSE]", side)
	}
	book, err := p.book(n, fs[0])
	if err != nil {
		return Range{}, err
	}
	f := fs[1]
	c, vs, ok := strings.Cut(f.text, ":")
	if !ok {
		return Range{}, p.fail(n, f.col, "%q is not CHAPTER:VERSE", f.text)
	}
	r := Range{Book: book}
	if r.Chapter, err = p.number(n, f.col, c, "chapter", 1, bible.MaxChapters); err != nil {
		return Range{}, err
	}
	vcol := f.col + len(c) + 1
	first, last, isRange := strings.Cut(vs, "-")
	if k := len(first); k > 1 && first[k-1] >= 'a' && first[k-1] <= 'z' {
		r.Seg, first = first[k-1], first[:k-1]
	}
	if r.First, err = p.number(n, vcol, first, "verse", 0, bible.MaxVerses); err != nil {
		return Range{}, err
	}
	r.Last = r.First
	if !isRange {
		return r, nil
	}
	lcol := vcol + len(first) + 1
	if r.Seg != 0 {
		return Range{}, p.fail(n, lcol, "a run of verses cannot start with a segment")
	}
	if strings.Contains(last, ":") {
		return Range{}, p.fail(n, lcol, "a run of verses stays within one chapter")
	}
	if r.Last, err = p.number(n, lcol, last, "verse", 0, bible.MaxVerses); err != nil {
		return Range{}, err
	}
	if r.Last < r.First {
		p.warnings = append(p.warnings, p.fail(n, lcol, "the run %s runs backwards; read as its first verse, as Paratext does", f.text))
		r.Last = r.First
	}
	return r, nil
}

func (p *vrsParser) mapping(n, col int, text string) error {
	if text[0] == '&' {
		text, col = text[1:], col+1
	}
	left, right, _ := strings.Cut(text, "=")
	if strings.Contains(right, "=") {
		return p.fail(n, col+len(left)+1+strings.IndexByte(right, '='), "a mapping has one '='")
	}
	l, err := p.ref(n, fields(left, col), "left")
	if err != nil {
		return err
	}
	r, err := p.ref(n, fields(right, col+len(left)+1), "right")
	if err != nil {
		return err
	}
	if p.s.pairs+max(l.len(), r.len()) > MaxPairs {
		return p.fail(n, col, "the mappings expand to more than %d verse pairs", MaxPairs)
	}
	p.s.addMapping(Mapping{Local: l, Org: r, Line: n})
	return nil
}

// verse reads BOOK CHAPTER:VERSE (an excluded verse).
func (p *vrsParser) verse(n, col int, fs []field) (Verse, error) {
	r, err := p.ref(n, fs, "verse")
	if err != nil {
		return Verse{}, err
	}
	if r.First != r.Last {
		return Verse{}, p.fail(n, col, "an excluded verse is one verse")
	}
	return r.verse(0), nil
}

// segments checks *BOOK CHAPTER:VERSE,SEG,SEG… (segment lists are not
// needed to map verses).
func (p *vrsParser) segments(n, col int, text string) error {
	ref, segs, ok := strings.Cut(text[1:], ",")
	if !ok {
		return p.fail(n, col, "a segment line is *BOOK CHAPTER:VERSE,SEGMENT,…")
	}
	if _, err := p.verse(n, col+1, fields(ref, col+1)); err != nil {
		return err
	}
	for _, s := range strings.Split(segs, ",") {
		if s = strings.TrimSpace(s); s != "" && s != "-" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") != "" {
			return p.fail(n, col, "segment %q is not a letter", s)
		}
	}
	return nil
}
