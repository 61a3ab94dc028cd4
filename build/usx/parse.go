// Package usx reads USX 3 (the XML form of USFM) into the same tree as
// package usfm, so that rendering, building and indexing are shared.
//
// Decisions:
//
//   - Elements map to nodes one to one: <para style> is a Para, <chapter
//     number> a Chapter (pubnumber and altnumber its Pub and Alt), <verse
//     number> a Verse, <char style> a Char whose attributes other than
//     style and closed are its Attrs, <note style caller> a Note, <table>,
//     <row>, <cell style> a Table, Row and Cell. The end milestones
//     <chapter eid>, <verse eid> carry nothing.
//   - <ms> milestones, <optbreak>, <figure> and <category> are dropped with
//     their content; <ref>, <link>, <sidebar> and <periph> are transparent:
//     their content is read as if they were not there (a <ref> is a link
//     Paratext adds inside cross references; USFM has no marker for it).
//   - Identification paragraphs (h, toc1…, ide) go to Book.Headers; rem is
//     dropped, as in USFM.
//   - Whitespace: a text node made only of whitespace with a line break in
//     it is indentation (USX is often pretty-printed) and is dropped; any
//     other run of whitespace is one space, with no space at the start of a
//     paragraph, after a verse or at the end of a paragraph, as in USFM. A
//     '~' is text (USX writes the no-break space itself).
//   - The same repairs and damage as USFM: a verse in a heading starts an
//     implicit p, a d title followed by a verse ends before it, a chapter
//     number that is not a number is damage, and a verse number glued to a
//     word (number="7And") is verse 7 followed by "And".
package usx

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/bibleplatform/platform/build/usfm"
)

// Parse parses one USX document. file names the source in diagnostics.
// A document that is not well-formed XML or has no valid <book code> is an
// error of type usfm.Diag; recoverable problems are Book.Warnings.
func Parse(file string, src []byte) (*usfm.Book, error) {
	p := &parser{file: file, src: src, book: &usfm.Book{Headers: map[string]string{}}}
	for i, c := range src {
		if c == '\n' {
			p.lines = append(p.lines, i+1)
		}
	}
	err := p.parse()
	p.book.Warnings = p.diags.Close(p.diag(len(src), ""))
	if err != nil {
		return nil, err
	}
	if p.book.ID == "" {
		return nil, p.diag(0, "no <book code> element")
	}
	return p.book, nil
}

// maxDepth bounds element nesting.
const maxDepth = 64

type frame uint8

const (
	fNone   frame = iota // transparent or ignored element
	fBlock               // para or cell: ends the block
	fInline              // char or note: pops the inline stack
	fSkip                // content dropped
	fBook                // <book>: its text is IDText
	fHeader              // identification paragraph
	fTable               // <table>
)

type parser struct {
	file  string
	src   []byte
	lines []int // offsets of the starts of lines 2, 3, …

	book   *usfm.Book
	frames []frame
	// opened is parallel to frames: the char or note an fInline frame
	// pushed, so that its end tag pops it only if it is still open (a
	// verse inside a char closes it).
	opened []*usfm.Node
	stack  []*usfm.Node // open block, then open chars and notes
	skip   int          // depth inside dropped elements
	table  *usfm.Node
	row    *usfm.Node
	header strings.Builder
	hstyle string
	hdrop  bool
	idText strings.Builder
	verse  *usfm.Node
	diags  usfm.Diags
}

func (p *parser) parse() error {
	dec := xml.NewDecoder(bytes.NewReader(p.src))
	dec.Strict = true
	root := false
	for {
		off := int(dec.InputOffset())
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return usfm.Diag{File: p.file, Pos: usfm.Pos{Line: se.Line, Col: 1}, Msg: "not well-formed XML: " + se.Msg, Sev: usfm.Damage}
			}
			return p.diag(int(dec.InputOffset()), "not well-formed XML: "+err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !root {
				if t.Name.Local != "usx" {
					return p.diag(off, fmt.Sprintf("root element <%s> is not <usx>", t.Name.Local))
				}
				root = true
				p.frames = append(p.frames, fNone)
				p.opened = append(p.opened, nil)
				continue
			}
			if len(p.frames) >= maxDepth {
				return p.diag(off, "elements nested too deep")
			}
			top := len(p.stack)
			f, err := p.start(t, off)
			if err != nil {
				return err
			}
			var n *usfm.Node
			if f == fInline && len(p.stack) > top {
				n = p.stack[len(p.stack)-1]
			}
			p.frames = append(p.frames, f)
			p.opened = append(p.opened, n)
		case xml.EndElement:
			f, n := p.frames[len(p.frames)-1], p.opened[len(p.opened)-1]
			p.frames, p.opened = p.frames[:len(p.frames)-1], p.opened[:len(p.opened)-1]
			p.end(f, n, off)
		case xml.CharData:
			p.text(string(t), off)
		}
	}
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func hasAttr(t xml.StartElement, name string) bool {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return true
		}
	}
	return false
}

func (p *parser) start(t xml.StartElement, off int) (frame, error) {
	if p.skip > 0 {
		p.skip++
		return fSkip, nil
	}
	style := attr(t, "style")
	switch t.Name.Local {
	case "book":
		code := strings.ToUpper(attr(t, "code"))
		if p.book.ID != "" {
			return 0, p.diag(off, "second <book> element: one book per file")
		}
		if !usfm.ValidBookCode(code) {
			return 0, p.diag(off, fmt.Sprintf("invalid book code %q", attr(t, "code")))
		}
		if std, ok := usfm.BookAliases[code]; ok {
			p.repair(off, "non-standard book code", fmt.Sprintf("book code %s read as %s", code, std))
			code = std
		}
		p.book.ID = code
		return fBook, nil
	case "para":
		p.closeBlock()
		p.table, p.row = nil, nil
		if header, drop := usfm.HeaderStyle(style); header {
			p.hstyle, p.hdrop = style, drop
			p.header.Reset()
			return fHeader, nil
		}
		p.newPara(style, off)
		return fBlock, nil
	case "chapter":
		if !hasAttr(t, "number") {
			return fNone, nil // <chapter eid>
		}
		p.closeBlock()
		p.table, p.row = nil, nil
		n := p.node(usfm.Chapter, "", off)
		n.Number, n.Pub, n.Alt = attr(t, "number"), attr(t, "pubnumber"), attr(t, "altnumber")
		if msg := usfm.ChapterNumberProblem(n.Number); msg != "" {
			p.damage(off, msg)
		}
		p.book.Nodes = append(p.book.Nodes, n)
		p.verse = nil
		return fNone, nil
	case "verse":
		if !hasAttr(t, "number") {
			return fNone, nil // <verse eid>
		}
		p.verseAt(attr(t, "number"), attr(t, "pubnumber"), attr(t, "altnumber"), off)
		return fNone, nil
	case "char":
		n := p.node(usfm.Char, style, off)
		for _, a := range t.Attr {
			if k := a.Name.Local; k != "style" && k != "closed" {
				if n.Attrs == nil {
					n.Attrs = map[string]string{}
				}
				n.Attrs[k] = a.Value
			}
		}
		p.push(n, off)
		return fInline, nil
	case "note":
		for k := len(p.stack) - 1; k >= 1; k-- {
			if p.stack[k].Kind == usfm.Note {
				p.warn(off, "<note> inside a note")
				break
			}
		}
		n := p.node(usfm.Note, style, off)
		n.Caller = attr(t, "caller")
		p.push(n, off)
		return fInline, nil
	case "table":
		p.closeBlock()
		p.table = p.node(usfm.Table, "", off)
		p.row = nil
		p.book.Nodes = append(p.book.Nodes, p.table)
		return fTable, nil
	case "row":
		p.closeBlock()
		if p.table == nil {
			p.warn(off, "<row> outside a <table>")
			p.table = p.node(usfm.Table, "", off)
			p.book.Nodes = append(p.book.Nodes, p.table)
		}
		p.row = p.node(usfm.Row, "", off)
		p.table.Children = append(p.table.Children, p.row)
		return fNone, nil
	case "cell":
		p.closeBlock()
		if p.row == nil {
			p.warn(off, "<cell> outside a <row>")
			return fNone, nil
		}
		c := p.node(usfm.Cell, style, off)
		p.row.Children = append(p.row.Children, c)
		p.stack = append(p.stack[:0], c)
		return fBlock, nil
	case "ms", "optbreak", "figure", "category":
		p.skip = 1
		return fSkip, nil
	case "ref", "link", "sidebar", "periph", "usx":
		return fNone, nil
	}
	p.warnOnce(off, fmt.Sprintf("unknown element <%s>: its content is kept", t.Name.Local))
	return fNone, nil
}

func (p *parser) end(f frame, n *usfm.Node, off int) {
	switch f {
	case fSkip:
		p.skip--
	case fBook:
		p.book.IDText = strings.Join(strings.Fields(p.idText.String()), " ")
	case fHeader:
		if !p.hdrop {
			text := strings.Join(strings.Fields(p.header.String()), " ")
			if _, dup := p.book.Headers[p.hstyle]; dup {
				p.warn(off, fmt.Sprintf("duplicate %s ignored", p.hstyle))
			} else {
				p.book.Headers[p.hstyle] = text
			}
		}
		p.hstyle = ""
	case fBlock:
		p.closeBlock()
	case fInline:
		for k := len(p.stack) - 1; k >= 1; k-- {
			if p.stack[k] == n {
				p.stack = p.stack[:k]
				break
			}
		}
	case fTable:
		p.table, p.row = nil, nil
	}
}

func (p *parser) newPara(style string, off int) {
	n := p.node(usfm.Para, style, off)
	p.book.Nodes = append(p.book.Nodes, n)
	p.stack = append(p.stack[:0], n)
}

// verseAt adds a verse, with the repairs USFM makes: a verse cannot sit in
// a heading, and a d title that has text already ends before the verse.
func (p *parser) verseAt(num, pub, alt string, off int) {
	switch {
	case num == "":
		p.damage(off, "verse without a verse number")
		return
	case num[0] < '0' || num[0] > '9':
		p.damage(off, fmt.Sprintf("verse number %q is not a number", num))
	}
	var rest string
	if num != "" && num[0] >= '0' && num[0] <= '9' {
		if n := usfm.VerseNumberLen(num); n < len(num) {
			p.repair(off, usfm.GluedVerseText, usfm.GluedVerseMessage(num, n))
			num, rest = num[:n], num[n:]
		}
	}
	if len(p.stack) > 1 {
		p.stack = p.stack[:1] // a verse closes the open character styles
	}
	switch {
	case len(p.stack) == 0:
		p.warnOnce(off, "verse outside a paragraph; assuming p")
		p.newPara("p", off)
	case p.stack[0].Kind == usfm.Para && p.stack[0].Marker == "d" && len(p.stack[0].Children) > 0:
		p.repair(off, "psalm title before its first verse", "d title ended before the verse; the verse starts a p")
		p.closeBlock()
		p.newPara("p", off)
	case p.stack[0].Kind == usfm.Para && !usfm.HoldsVerses(p.stack[0].Marker):
		p.warnOnce(off, fmt.Sprintf("verse in %s; assuming p", p.stack[0].Marker))
		p.closeBlock()
		p.newPara("p", off)
	}
	v := p.node(usfm.Verse, "", off)
	v.Number, v.Pub, v.Alt = num, pub, alt
	p.stack[0].Children = append(p.stack[0].Children, v)
	p.verse = v
	if rest != "" {
		p.text(rest, off)
	}
}

func (p *parser) push(n *usfm.Node, off int) {
	if len(p.stack) == 0 {
		p.warn(off, fmt.Sprintf("<%s> outside a paragraph; assuming p", n.Kind))
		p.newPara("p", off)
	}
	top := p.stack[len(p.stack)-1]
	top.Children = append(top.Children, n)
	p.stack = append(p.stack, n)
}

// text adds character data.
func (p *parser) text(raw string, off int) {
	if p.skip > 0 || len(p.frames) == 0 {
		return
	}
	switch p.frames[len(p.frames)-1] {
	case fBook:
		p.idText.WriteString(raw)
		return
	case fHeader:
		p.header.WriteString(raw)
		return
	}
	blank := strings.TrimLeft(raw, " \t\r\n") == ""
	if blank && (len(p.stack) == 0 || strings.ContainsAny(raw, "\n\r")) {
		return // indentation
	}
	if len(p.stack) == 0 {
		p.warn(off, "text outside a paragraph; assuming p")
		p.newPara("p", off)
	}
	top := p.stack[len(p.stack)-1]
	t := collapse(raw)
	last := len(top.Children) - 1
	if last < 0 || top.Children[last].Kind == usfm.Verse {
		t = strings.TrimLeft(t, " ")
	}
	if t == "" {
		return
	}
	if last >= 0 && top.Children[last].Kind == usfm.Text {
		prev := top.Children[last]
		if strings.HasSuffix(prev.Text, " ") && t[0] == ' ' {
			t = t[1:]
		}
		prev.Text += t
		return
	}
	n := p.node(usfm.Text, "", off)
	n.Text = t
	top.Children = append(top.Children, n)
}

// collapse makes every run of XML whitespace one space.
func collapse(s string) string {
	if !strings.ContainsAny(s, "\t\r\n") && !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	space := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\r', '\n':
			space = true
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteByte(c)
		}
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

func (p *parser) closeBlock() {
	if len(p.stack) == 0 {
		return
	}
	trimTrailingSpace(p.stack[0])
	p.stack = p.stack[:0]
}

func trimTrailingSpace(b *usfm.Node) {
	if len(b.Children) == 0 {
		return
	}
	last := b.Children[len(b.Children)-1]
	if last.Kind == usfm.Char {
		trimTrailingSpace(last)
		return
	}
	if last.Kind != usfm.Text {
		return
	}
	last.Text = strings.TrimRight(last.Text, " ")
	if last.Text == "" {
		b.Children = b.Children[:len(b.Children)-1]
	}
}

func (p *parser) node(k usfm.Kind, marker string, off int) *usfm.Node {
	return &usfm.Node{Kind: k, Marker: marker, Pos: p.pos(off)}
}

func (p *parser) warn(off int, msg string)          { p.diags.Add(p.diag(off, msg)) }
func (p *parser) warnOnce(off int, msg string)      { p.diags.Once(p.diag(off, msg)) }
func (p *parser) damage(off int, msg string)        { p.diags.Damage(p.diag(off, msg)) }
func (p *parser) repair(off int, class, msg string) { p.diags.Repair(p.diag(off, msg), class) }

func (p *parser) diag(off int, msg string) usfm.Diag {
	return usfm.Diag{File: p.file, Pos: p.pos(off), Msg: msg}
}

// pos turns a byte offset into a 1-based line and column.
func (p *parser) pos(off int) usfm.Pos {
	off = min(max(off, 0), len(p.src))
	i := sort.SearchInts(p.lines, off+1) // lines starting at or before off
	start := 0
	if i > 0 {
		start = p.lines[i-1]
	}
	return usfm.Pos{Line: i + 1, Col: off - start + 1}
}
