package usfm

import (
	"fmt"
	"strings"

	"github.com/bibleplatform/platform/bible"
)

// BookAliases maps book codes that real sources use instead of the USFM
// code to that code. The KJV 1611 transcription files the Additions to
// Esther under \id ADE; USFM calls them ESG (Esther Greek). Parse reads
// an alias as its code and reports the repair.
var BookAliases = map[string]string{"ADE": "ESG"}

// Parse parses one USFM file. file names the source in diagnostics only.
//
// A file that cannot be read as one book (no \id, an invalid book code, a
// second \id) is an error of type Diag. Everything else is added to
// Book.Warnings with its severity: damage (a \c or \v without a number or
// with one that is not a number, a verse lost into an unknown marker),
// which an import refuses; repairs of known habits, counted by class; and
// plain warnings, such as an unknown character style.
//
// Node.Attrs maps are shared between nodes with the same attribute list
// (the same Strong's number repeats thousands of times); treat them as
// read-only.
func Parse(file string, src []byte) (*Book, error) {
	p := &parser{file: file, src: string(src), line: 1}
	return p.parse()
}

type parser struct {
	file string
	src  string
	i    int // read offset in src

	// pos cache: the line number and line start of offset posOff. Offsets
	// are asked for in increasing order, so counting lines is linear.
	posOff, line, lineStart int

	book *Book
	// stack holds the open containers: stack[0] is the block (Para or
	// Cell) receiving inline content, then open Char and Note nodes.
	stack []*Node
	// heading is true when stack[0] is a paragraph that cannot hold verses.
	heading bool
	// header is the marker of a header paragraph (\h, \toc1, \rem…) being
	// read in stack[0]; its text goes to Book.Headers, not to Nodes.
	header string
	drop   bool // the header paragraph is dropped (\rem)

	table, row     *Node
	chapter, verse *Node
	diags          Diags

	joined *Node           // the text node being extended by join
	join   strings.Builder // its text

	// closing memoises, per unknown marker name, the offset of the next
	// \name* (-1: none), and nextVC the offset of the next \v or \c, so
	// that closedSoon stays linear.
	closing map[string]int
	nextVC  int

	slab  []Node                        // see node
	ptrs  []*Node                       // see add
	attrs map[attrKey]map[string]string // see setAttrs
}

type attrKey struct{ marker, raw string }

func (p *parser) parse() (*Book, error) {
	s := p.src
	p.book = &Book{Headers: map[string]string{}}
	i := 0
	if strings.HasPrefix(s, "\uFEFF") {
		i = len("\uFEFF")
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if !isMarkerAt(s, i, "id") {
		if j := findMarker(s, "id"); j >= 0 {
			return nil, p.diag(i, `content before \id`)
		}
		return nil, p.diag(i, `missing \id marker`)
	}
	if err := p.readID(i); err != nil {
		return nil, err
	}
	for p.i < len(s) {
		if s[p.i] != '\\' {
			end := len(s)
			if j := strings.IndexByte(s[p.i:], '\\'); j >= 0 {
				end = p.i + j
			}
			p.addText(s[p.i:end], p.i)
			p.i = end
			continue
		}
		if err := p.marker(); err != nil {
			return nil, err
		}
	}
	p.closeBlock(len(s))
	p.book.Warnings = p.diags.Close(p.diag(len(s), ""))
	return p.book, nil
}

// readID reads the \id line at offset i: the book code and free text.
func (p *parser) readID(i int) error {
	s := p.src
	start := i
	i += len(`\id`)
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	j := i
	for j < len(s) && !isSpace(s[j]) && s[j] != '\\' {
		j++
	}
	code := strings.ToUpper(s[i:j])
	if code == "" {
		return p.diag(start, `\id without a book code`)
	}
	if !validCode(code) {
		return p.diag(i, fmt.Sprintf(`invalid book code %q in \id`, s[i:j]))
	}
	if std, ok := BookAliases[code]; ok {
		p.repair(i, "non-standard book code", fmt.Sprintf("book code %s read as %s", code, std))
		code = std
	}
	k := j
	for k < len(s) && s[k] != '\n' && s[k] != '\\' {
		k++
	}
	p.book.ID = code
	p.book.IDText = strings.TrimSpace(norm(s[j:k]))
	p.i = k
	return nil
}

func validCode(code string) bool {
	if len(code) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		c := code[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// marker handles the marker at p.i.
func (p *parser) marker() error {
	s := p.src
	start := p.i
	name, plus, closing, end := scanMarker(s, start)
	switch {
	case name == "" && closing && !plus:
		p.closeBare(start)
		p.i = end
		return nil
	case name == "":
		// A backslash is never text in USFM: one that starts no marker
		// (a stray "\\v" or "\ ") is a marker without a name, dropped like
		// an unknown marker; the text around it is kept.
		p.warn(start, "backslash not followed by a marker name ignored")
		p.i = start + 1
		return nil
	case name[0] >= 'A' && name[0] <= 'Z':
		// Markers are lower case; "\Canst" is a stray backslash in text.
		p.warn(start, fmt.Sprintf(`unknown marker \%s kept as text`, name))
		p.i = end
		p.addText(s[start+1:end], start+1)
		return nil
	}
	p.i = end
	if closing {
		p.closeMarker(name, start)
		return nil
	}
	// \ts\*, \qt-e\*, \zfoo\*: a milestone with no attributes.
	if strings.HasPrefix(s[end:], `\*`) {
		p.i = end + 2
		return nil
	}
	// The whitespace after a marker belongs to it (USFM 3: one space, and
	// runs of whitespace count as one).
	p.skipSpace()

	switch c := classify(name); c {
	case clID:
		return p.diag(start, `second \id marker: one book per file`)
	case clHeader, clDrop:
		p.closeBlock(start)
		p.endTable()
		p.stack = append(p.stack[:0], p.node(Para, name, start))
		p.header, p.drop = name, c == clDrop
	case clPara, clHeading, clPeriph:
		p.closeBlock(start)
		p.endTable()
		p.newPara(name, start, c != clPara)
	case clBreak:
		p.closeBlock(start)
		p.endTable()
	case clChapter:
		p.closeBlock(start)
		p.endTable()
		num := p.readNumber()
		if num == "" {
			p.damage(start, `\c without a chapter number`)
			return nil
		}
		if msg := ChapterNumberProblem(num); msg != "" {
			p.damage(start, msg)
		}
		n := p.node(Chapter, "", start)
		n.Number = num
		p.book.Nodes = append(p.book.Nodes, n)
		p.chapter, p.verse = n, nil
	case clChapterPub:
		j := p.i
		for j < len(s) && s[j] != '\n' && s[j] != '\\' {
			j++
		}
		pub := strings.TrimSpace(norm(s[p.i:j]))
		p.i = j
		if p.chapter == nil {
			p.warn(start, `\cp before any \c`)
		} else {
			p.chapter.Pub = pub
		}
	case clVerse:
		p.closeInline(start)
		at := p.i
		num := p.readNumber()
		if num == "" {
			p.damage(start, `\v without a verse number`)
			return nil
		}
		if num[0] < '0' || num[0] > '9' {
			p.damage(start, fmt.Sprintf("verse number %q is not a number", num))
		} else if n := VerseNumberLen(num); n < len(num) {
			// \v 7And, \v 14...: the text lost its space after the number.
			p.repair(start, GluedVerseText, GluedVerseMessage(num, n))
			num, p.i = num[:n], at+n
		}
		block := p.verseBlock(start)
		v := p.node(Verse, "", start)
		v.Number = num
		p.add(block, v)
		p.verse = v
	case clAltNumber:
		val := p.readUntilClose(name, start)
		// The space after \va …\va* separates it from the text, like the
		// space after a verse number.
		p.skipSpace()
		switch {
		case name == "ca" && p.chapter != nil && p.verse == nil:
			p.chapter.Alt = val
		case name == "va" && p.verseJustStarted():
			p.verse.Alt = val
		case name == "vp" && p.verse != nil:
			p.verse.Pub = val
		case val != "" && (name != "ca" || p.chapter != nil):
			// \d \va 1\va*: a psalm title that is verse 1 in another
			// versification has no \v to hang the number on; keep it inline.
			// So is a \ca after the chapter's verses began: the UHB marks
			// where the other numbering's chapter starts (GEN 31:55 is
			// 32:1 in Hebrew) with one before that verse.
			parent := p.container(start)
			c := p.node(Char, name, start)
			p.add(parent, c)
			t := p.node(Text, "", start)
			t.Text = val
			p.add(c, t)
		default:
			p.warn(start, fmt.Sprintf(`\%s with no chapter or verse to apply to`, name))
		}
	case clSkipChar:
		p.readUntilClose(name, start)
	case clNote:
		p.openNote(name, start)
	case clNoteChar:
		if !plus {
			if k := p.noteIndex(); k >= 0 {
				p.stack = p.stack[:k+1]
			} else {
				p.warn(start, fmt.Sprintf(`\%s outside a note`, name))
			}
		}
		p.openChar(name, start)
	case clNoteNested, clChar:
		p.openChar(name, start)
	case clRow:
		p.closeBlock(start)
		if p.table == nil {
			p.table = p.node(Table, "", start)
			p.book.Nodes = append(p.book.Nodes, p.table)
		}
		p.row = p.node(Row, "", start)
		p.add(p.table, p.row)
	case clCell:
		p.closeBlock(start)
		p.newCell(name, start)
	case clMilestone:
		p.skipMilestone(name, start)
	default:
		if strings.HasPrefix(name, "z") {
			// Custom \z markers are legal; keep their text as a Char.
			p.openChar(name, start)
			return nil
		}
		if plus || p.closedSoon(name) {
			p.warn(start, fmt.Sprintf(`unknown character marker \%s`, name))
			p.openChar(name, start)
			return nil
		}
		if p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			// \vv 5: the number of a mistyped \v or \c would join the text
			// of the verse before it.
			p.damage(start, fmt.Sprintf(`unknown marker \%s before the number %q: a verse or chapter would be lost`, name, peekWord(s[p.i:])))
			return nil
		}
		p.warn(start, fmt.Sprintf(`unknown marker \%s ignored`, name))
	}
	return nil
}

// atoi reads a run of at most 7 digits.
func atoi(digits string) int {
	n := 0
	for i := 0; i < len(digits); i++ {
		n = n*10 + int(digits[i]-'0')
	}
	return n
}

// peekWord returns the run of s up to the first space or marker.
func peekWord(s string) string {
	j := 0
	for j < len(s) && j < 20 && !isSpace(s[j]) && s[j] != '\\' {
		j++
	}
	return s[:j]
}

// ChapterNumberProblem says what is wrong with a chapter number, or "".
func ChapterNumberProblem(num string) string {
	switch {
	case !isDigits(num):
		return fmt.Sprintf("chapter number %q is not a number", num)
	case len(num) > 7 || atoi(num) > bible.MaxChapters:
		return fmt.Sprintf("chapter number %s is beyond the cap of %d", num, bible.MaxChapters)
	}
	return ""
}

// GluedVerseText is the repair class of a verse number glued to its text.
const GluedVerseText = "verse number glued to its text"

// GluedVerseMessage describes the repair of number, whose first n bytes
// are the verse number.
func GluedVerseMessage(number string, n int) string {
	return fmt.Sprintf("verse number %q read as verse %s followed by %q", number, number[:n], number[n:])
}

// VerseNumberLen returns how much of a \v number (starting with a digit)
// is the number: digits with an optional one-letter part ("3a"), and an
// optional range ("15-16", "3b-4a"). What follows is text that lost its
// space ("7And", "14..."), unless it is something else that the renderer
// judges (a dash or comma list such as "3–4" or "1,2").
func VerseNumberLen(num string) int {
	part := func(i int) int {
		for i < len(num) && num[i] >= '0' && num[i] <= '9' {
			i++
		}
		if i < len(num) && num[i] >= 'a' && num[i] <= 'z' && (i+1 == len(num) || num[i+1] == '-') {
			i++
		}
		return i
	}
	n := part(0)
	if n+1 < len(num) && num[n] == '-' && num[n+1] >= '0' && num[n+1] <= '9' {
		n = part(n + 1)
	}
	for _, sep := range []string{"-", ",", "\u2013", "\u2014"} {
		if strings.HasPrefix(num[n:], sep) {
			return len(num)
		}
	}
	return n
}

// closedSoon reports whether \name* follows before the next verse or
// chapter, which makes an unknown \name a character style.
func (p *parser) closedSoon(name string) bool {
	if p.closing == nil {
		p.closing = map[string]int{}
	}
	at, ok := p.closing[name]
	if !ok || at >= 0 && at < p.i {
		at = -1
		if k := strings.Index(p.src[p.i:], `\`+name+`*`); k >= 0 {
			at = p.i + k
		}
		p.closing[name] = at
	}
	if at < 0 {
		return false
	}
	if p.nextVC < p.i {
		p.nextVC = len(p.src)
		rest := p.src[p.i:]
		if k := strings.Index(rest, `\v `); k >= 0 {
			p.nextVC = p.i + k
		}
		if k := strings.Index(p.src[p.i:p.nextVC], `\c `); k >= 0 {
			p.nextVC = p.i + k
		}
	}
	return at < p.nextVC
}

// scanMarker reads the marker at s[i] == '\\'. It returns the name without
// '+' or '*', whether it had '+', whether it is a closing marker, and the
// offset after it.
func scanMarker(s string, i int) (name string, plus, closing bool, end int) {
	j := i + 1
	if j < len(s) && s[j] == '+' {
		plus = true
		j++
	}
	k := j
	for k < len(s) && isNameByte(s[k]) {
		k++
	}
	name = s[j:k]
	if k < len(s) && s[k] == '*' {
		closing = true
		k++
	}
	return name, plus, closing, k
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// isMarkerAt reports whether \name (as a whole marker) starts at s[i].
func isMarkerAt(s string, i int, name string) bool {
	if i >= len(s) || s[i] != '\\' || !strings.HasPrefix(s[i+1:], name) {
		return false
	}
	k := i + 1 + len(name)
	return k == len(s) || !isNameByte(s[k]) && s[k] != '*'
}

// findMarker returns the offset of the first \name marker in s, or -1.
func findMarker(s, name string) int {
	for off := 0; ; {
		j := strings.Index(s[off:], `\`+name)
		if j < 0 {
			return -1
		}
		if isMarkerAt(s, off+j, name) {
			return off + j
		}
		off += j + 1
	}
}

func (p *parser) skipSpace() {
	for p.i < len(p.src) && isSpace(p.src[p.i]) {
		p.i++
	}
}

// readNumber reads a chapter or verse number and the space after it.
func (p *parser) readNumber() string {
	s := p.src
	j := p.i
	for j < len(s) && !isSpace(s[j]) && s[j] != '\\' {
		j++
	}
	num := s[p.i:j]
	p.i = j
	p.skipSpace()
	return num
}

// maxInline bounds the search for the end of \va, \vp, \ca, \fig and
// \cat, so that unclosed ones cannot make parsing quadratic.
const maxInline = 4 << 10

// maxDepth bounds the nesting of character styles and notes.
const maxDepth = 32

// readUntilClose reads the content of \name up to \name* (for \va, \vp,
// \ca, \fig, \cat) and returns it as plain text; character markers inside
// (\vp \it 1b\it*\vp*) are dropped. When \name* does not come before
// another kind of marker, the content is only the text up to the next
// marker, and the rest is parsed as usual.
func (p *parser) readUntilClose(name string, start int) string {
	s := p.src[:min(len(p.src), p.i+maxInline)]
	var b strings.Builder
	for i := p.i; i < len(s); {
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 {
			break
		}
		b.WriteString(s[i : i+j])
		i += j
		n, _, closing, end := scanMarker(s, i)
		if closing && n == name {
			p.i = end
			return strings.TrimSpace(norm(b.String()))
		}
		if n == "" && !closing {
			// An escaped character such as \" in a \fig attribute.
			b.WriteString(s[i : i+min(2, len(s)-i)])
			i += 2
			continue
		}
		if c := classify(n); !(c == clChar || c == clNoteChar || c == clNoteNested) {
			break
		}
		i = end
		if !closing {
			for i < len(s) && isSpace(s[i]) {
				i++
			}
		}
	}
	p.warn(start, fmt.Sprintf(`\%s not closed with \%s*`, name, name))
	j := strings.IndexByte(p.src[p.i:], '\\')
	if j < 0 {
		j = len(p.src) - p.i
	}
	val := strings.TrimSpace(norm(p.src[p.i : p.i+j]))
	p.i += j
	return val
}

// skipMilestone skips the attributes of a milestone (\qt-s |sid="1"\*,
// \zaln-s |x-lemma="…"\*). Old files end the attributes at the end of the
// line without \*; that is accepted with a warning.
func (p *parser) skipMilestone(name string, start int) {
	s := p.src
	rest := s[p.i:]
	j := strings.IndexByte(rest, '\\')
	if j < 0 {
		j = len(rest)
	}
	body := rest[:j]
	if strings.HasPrefix(rest[j:], `\*`) && (strings.TrimSpace(body) == "" || body[0] == '|' || strings.Contains(body, "=")) {
		p.i += j + 2
		return
	}
	if body != "" && (body[0] == '|' || strings.Contains(body, `="`)) {
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			body = body[:nl+1]
		}
		p.i += len(body)
		p.warn(start, fmt.Sprintf(`milestone \%s not closed with \*`, name))
		return
	}
	if !strings.HasSuffix(name, "-e") && !strings.HasSuffix(name, "-s") && name != "ts" {
		p.warn(start, fmt.Sprintf(`milestone \%s not closed with \*`, name))
	}
}

// closeMarker handles \name*.
func (p *parser) closeMarker(name string, start int) {
	if classify(name) == clNote {
		if k := p.noteIndex(); k >= 0 {
			if p.stack[k].Marker != name {
				p.warn(start, fmt.Sprintf(`\%s* closes \%s`, name, p.stack[k].Marker))
			}
			p.stack = p.stack[:k]
			return
		}
		p.warn(start, fmt.Sprintf(`\%s* without an open note`, name))
		return
	}
	for k := len(p.stack) - 1; k >= 1; k-- {
		n := p.stack[k]
		if n.Kind == Note {
			break
		}
		if n.Marker == name {
			p.stack = p.stack[:k]
			return
		}
	}
	switch classify(name) {
	case clCell, clMilestone:
		return // \tc1* and the like carry nothing
	}
	p.warn(start, fmt.Sprintf(`\%s* without an open \%s`, name, name))
}

// BareClose is the repair class of a \* that names no marker and closes
// the open note or character style.
const BareClose = "bare \\* closing a note or style"

// closeBare handles a \* that names no marker (milestones consume their own
// \*). Outside a milestone it can only be the end of what is open, its name
// left out (KJV 1611 EST 2:21: "\f + \fr 2:21 \ft Or, Bigthana. \xt chap.
// 6.2.\*Bigthan and Teresh"): it closes the innermost open note or
// character style. A note's sections (\ft, \xt …) are not styles that
// close: they end where the next section or the note ends, so a \* in one
// closes the note.
func (p *parser) closeBare(start int) {
	for k := len(p.stack) - 1; k >= 1; k-- {
		n := p.stack[k]
		if n.Kind == Char && classify(n.Marker) == clNoteChar && p.stack[k-1].Kind == Note {
			continue
		}
		p.repair(start, BareClose, fmt.Sprintf(`\* read as the end of the \%s at %d:%d`, n.Marker, n.Pos.Line, n.Pos.Col))
		p.stack = p.stack[:k]
		return
	}
	p.warn(start, `\* without a milestone`)
}

// noteIndex returns the stack index of the open note, or -1.
func (p *parser) noteIndex() int {
	for k := len(p.stack) - 1; k >= 1; k-- {
		if p.stack[k].Kind == Note {
			return k
		}
	}
	return -1
}

func (p *parser) newPara(name string, start int, heading bool) {
	n := p.node(Para, name, start)
	p.book.Nodes = append(p.book.Nodes, n)
	p.stack = append(p.stack[:0], n)
	p.heading = heading
}

func (p *parser) newCell(name string, start int) {
	if p.row == nil {
		p.warn(start, fmt.Sprintf(`\%s outside a table row`, name))
		p.endTable()
		p.table = p.node(Table, "", start)
		p.row = p.node(Row, "", start)
		p.add(p.table, p.row)
		p.book.Nodes = append(p.book.Nodes, p.table)
	}
	c := p.node(Cell, name, start)
	p.add(p.row, c)
	p.stack = append(p.stack[:0], c)
	p.heading = false
}

func (p *parser) endTable() { p.table, p.row = nil, nil }

// container returns the innermost open node, opening an implicit paragraph
// (or table cell) when text comes outside any.
func (p *parser) container(start int) *Node {
	if len(p.stack) == 0 {
		if p.row != nil {
			p.warn(start, `text in a table row outside a cell; assuming \tc1`)
			p.newCell("tc1", start)
		} else {
			p.warn(start, `text outside a paragraph; assuming \p`)
			p.newPara("p", start, false)
		}
	}
	return p.stack[len(p.stack)-1]
}

// verseBlock returns the block a verse goes into. A verse cannot sit in a
// heading or title (USFM: \v occurs under verse paragraphs), so it starts
// an implicit \p there.
func (p *parser) verseBlock(start int) *Node {
	switch {
	case len(p.stack) == 0 && p.row == nil:
		p.warnOnce(start, `verse outside a paragraph; assuming \p`)
		p.newPara("p", start, false)
	case len(p.stack) > 0 && p.stack[0].Kind == Para && p.stack[0].Marker == "d" && len(p.stack[0].Children) > 0:
		// \d A Psalm of David. \v 1 …: the title is not verse 1's text.
		p.repair(start, "psalm title before its first verse", `\d title ended before the verse; the verse starts a \p`)
		p.closeBlock(start)
		p.newPara("p", start, false)
	case len(p.stack) > 0 && (p.heading || p.header != ""):
		p.warnOnce(start, fmt.Sprintf(`verse in \%s; assuming \p`, p.stack[0].Marker))
		p.closeBlock(start)
		p.newPara("p", start, false)
	}
	return p.container(start)
}

func (p *parser) openChar(name string, start int) {
	if len(p.stack) >= maxDepth {
		p.warn(start, fmt.Sprintf(`\%s nested too deep; ignored`, name))
		return
	}
	parent := p.container(start)
	n := p.node(Char, name, start)
	p.add(parent, n)
	p.stack = append(p.stack, n)
}

func (p *parser) openNote(name string, start int) {
	if k := p.noteIndex(); k >= 0 {
		p.warn(start, fmt.Sprintf(`\%s inside an open \%s; closing it`, name, p.stack[k].Marker))
		p.stack = p.stack[:k]
	}
	parent := p.container(start)
	s := p.src
	j := p.i
	for j < len(s) && !isSpace(s[j]) && s[j] != '\\' {
		j++
	}
	caller := s[p.i:j]
	if caller == "" {
		p.warn(start, fmt.Sprintf(`\%s without a caller`, name))
	}
	p.i = j
	p.skipSpace()
	n := p.node(Note, name, start)
	n.Caller = caller
	p.add(parent, n)
	p.stack = append(p.stack, n)
}

// closeInline closes the open character styles and notes of the current
// block, for a verse or the end of the block.
func (p *parser) closeInline(start int) {
	for k := len(p.stack) - 1; k >= 1; k-- {
		if n := p.stack[k]; n.Kind == Note {
			p.warn(start, fmt.Sprintf(`\%s at %d:%d not closed`, n.Marker, n.Pos.Line, n.Pos.Col))
		}
	}
	if len(p.stack) > 1 {
		p.stack = p.stack[:1]
	}
}

// closeBlock ends the current block.
func (p *parser) closeBlock(start int) {
	if len(p.stack) == 0 {
		return
	}
	p.closeInline(start)
	b := p.stack[0]
	p.stack = p.stack[:0]
	trimTrailingSpace(b)
	if p.header != "" {
		if !p.drop {
			text := strings.TrimSpace(plain(b))
			if _, dup := p.book.Headers[p.header]; dup {
				p.warn(start, fmt.Sprintf(`duplicate \%s ignored`, p.header))
			} else {
				p.book.Headers[p.header] = text
			}
		}
		p.header, p.drop = "", false
	}
	p.heading = false
}

// trimTrailingSpace drops the space at the end of a block: it is the line
// break before the next marker.
func trimTrailingSpace(b *Node) {
	if len(b.Children) == 0 {
		return
	}
	last := b.Children[len(b.Children)-1]
	if last.Kind == Char {
		trimTrailingSpace(last) // a style left open to the end of the block
		return
	}
	if last.Kind != Text {
		return
	}
	last.Text = strings.TrimRight(last.Text, " ")
	if last.Text == "" {
		b.Children = b.Children[:len(b.Children)-1]
	}
}

// plain is the text of n and its descendants, notes left out.
func plain(n *Node) string {
	var b strings.Builder
	var walk func(*Node)
	walk = func(n *Node) {
		if n.Kind == Note {
			return
		}
		b.WriteString(n.Text)
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// addText adds raw source text at offset off to the innermost open node.
func (p *parser) addText(raw string, off int) {
	if len(p.stack) == 0 && isBlank(raw) {
		return
	}
	top := p.container(off)
	if bar := strings.IndexByte(raw, '|'); bar >= 0 {
		if target := p.attrTarget(); target != nil && p.setAttrs(target, raw[bar+1:], off+bar+1) {
			raw = raw[:bar]
		}
	}
	t := norm(raw)
	last := len(top.Children) - 1
	if last < 0 || top.Children[last].Kind == Verse {
		// No leading space right after a paragraph, style or verse marker.
		n := len(t)
		t = strings.TrimLeft(t, " ")
		off += skipLeadingSpace(raw, n-len(t))
	}
	if t == "" {
		return
	}
	if last >= 0 && top.Children[last].Kind == Text {
		// Text split by a dropped marker (a milestone, \fig, an unknown
		// marker) joins the text before it. A builder keeps a run of such
		// joins linear.
		prev := top.Children[last]
		if strings.HasSuffix(prev.Text, " ") && t[0] == ' ' {
			t = t[1:]
		}
		if p.joined != prev {
			p.joined = prev
			p.join = strings.Builder{}
			p.join.WriteString(prev.Text)
		}
		p.join.WriteString(t)
		prev.Text = p.join.String()
		return
	}
	n := p.node(Text, "", off)
	n.Text = t
	p.add(top, n)
}

// skipLeadingSpace returns how many bytes of raw make up its first n
// leading normalised spaces (0 or 1: runs collapse).
func skipLeadingSpace(raw string, n int) int {
	if n == 0 {
		return 0
	}
	i := 0
	for i < len(raw) && (isSpace(raw[i]) || strings.HasPrefix(raw[i:], "//")) {
		if raw[i] == '/' {
			i += 2
		} else {
			i++
		}
	}
	return i
}

// attrTarget is the node that a '|' attribute list belongs to: the
// innermost character style, or a \periph paragraph.
func (p *parser) attrTarget() *Node {
	top := p.stack[len(p.stack)-1]
	if top.Kind == Char || len(p.stack) == 1 && top.Kind == Para && top.Marker == "periph" {
		return top
	}
	return nil
}

// setAttrs sets the attributes in raw on n. It reports false when raw
// holds no usable attribute at all (\em caption|no default attr\em*): that
// text is then kept as text, as Paratext does, rather than lost.
//
// Identical attribute lists of the same marker share one map (a Bible
// repeats the same Strong's numbers hundreds of thousands of times), so
// Attrs must be treated as read-only.
func (p *parser) setAttrs(n *Node, raw string, off int) bool {
	key := attrKey{n.Marker, raw}
	if m, ok := p.attrs[key]; ok && n.Attrs == nil {
		n.Attrs = m
		return true
	}
	attrs, err := parseAttrs(raw, defaultAttr[n.Marker])
	if len(attrs) == 0 && strings.TrimSpace(raw) != "" {
		p.warn(off, fmt.Sprintf(`\%s: %s; kept as text`, n.Marker, err))
		return false
	}
	if err != "" {
		p.warn(off, fmt.Sprintf(`\%s: %s`, n.Marker, err))
	}
	if n.Attrs == nil {
		n.Attrs = attrs
		if err == "" {
			if p.attrs == nil {
				p.attrs = map[attrKey]map[string]string{}
			}
			p.attrs[key] = attrs
		}
		return true
	}
	for k, v := range attrs {
		n.Attrs[k] = v
	}
	return true
}

func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			return false
		}
	}
	return true
}

func (p *parser) warn(off int, msg string) { p.diags.Add(p.diag(off, msg)) }

// damage reports structure that would be published damaged (Diag.Sev).
func (p *parser) damage(off int, msg string) { p.diags.Damage(p.diag(off, msg)) }

// repair reports a known source habit read as meant, counted by class.
func (p *parser) repair(off int, class, msg string) { p.diags.Repair(p.diag(off, msg), class) }

// warnOnce warns about a systematic habit of a file only the first time.
func (p *parser) warnOnce(off int, msg string) { p.diags.Once(p.diag(off, msg)) }

func (p *parser) diag(off int, msg string) Diag {
	return Diag{File: p.file, Pos: p.pos(off), Msg: msg}
}

// node returns a new node. Nodes are carved from blocks: a Bible has
// millions of them, and one allocation each dominated the parse time.
func (p *parser) node(k Kind, marker string, off int) *Node {
	if len(p.slab) == 0 {
		p.slab = make([]Node, 200) // under 32 KB: the small-object allocator
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	n.Kind, n.Marker, n.Pos = k, marker, p.pos(off)
	return n
}

// add appends child to parent. A first child goes into a one-element slice
// carved from a block, since most character styles hold a single text.
// verseJustStarted reports whether nothing but spaces follows the verse in
// progress: a \va there is its alternate number, one after its text the
// start of a verse of the other numbering within it (the UHB's 1KI 22:43
// holds Hebrew 22:43 and 44).
func (p *parser) verseJustStarted() bool {
	if p.verse == nil || len(p.stack) == 0 {
		return false
	}
	c := p.stack[len(p.stack)-1].Children
	for k := len(c) - 1; k >= 0; k-- {
		switch {
		case c[k] == p.verse:
			return true
		case c[k].Kind != Text || strings.TrimSpace(c[k].Text) != "":
			return false
		}
	}
	return false
}

func (p *parser) add(parent, child *Node) {
	if parent.Children != nil {
		parent.Children = append(parent.Children, child)
		return
	}
	if len(p.ptrs) == 0 {
		p.ptrs = make([]*Node, 512)
	}
	parent.Children = p.ptrs[0:1:1]
	parent.Children[0] = child
	p.ptrs = p.ptrs[1:]
}

// pos turns a byte offset into a line and column.
func (p *parser) pos(off int) Pos {
	if off > len(p.src) {
		off = len(p.src)
	}
	if off < p.posOff {
		// Rare (a text node placed after a warning inside it): step back.
		p.line -= strings.Count(p.src[off:p.posOff], "\n")
		p.lineStart = strings.LastIndexByte(p.src[:off], '\n') + 1
		p.posOff = off
	}
	for {
		j := strings.IndexByte(p.src[p.posOff:off], '\n')
		if j < 0 {
			break
		}
		p.line++
		p.lineStart = p.posOff + j + 1
		p.posOff = p.lineStart
	}
	p.posOff = off
	return Pos{Line: p.line, Col: off - p.lineStart + 1}
}
