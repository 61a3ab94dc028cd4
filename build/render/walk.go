package render

import (
	"fmt"
	"strings"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/usfm"
)

// ownerKind says where a segment goes when it is finished.
type ownerKind uint8

const (
	toPending ownerKind = iota // waits for the next verse that gets content
	toIntro
	toVerse
)

type owner struct {
	kind        ownerKind
	chap, verse int
}

// renderer walks the blocks of one book in source order. It builds one
// segment at a time; a segment ends at the end of its paragraph or where a
// verse starts.
type renderer struct {
	opt Options
	id  bible.BookID
	out *Book

	seq      int // source paragraph sequence number (bible.Segment.Para)
	chap     int // index of the current chapter; -1 before the first \c
	verse    int // index of the current verse in the chapter; -1 before its first \v
	lastChap int // last chapter that got a verse; -1 if none
	verseIdx []map[string]int
	chapIdx  map[string]int
	chapNode *usfm.Node // the current chapter's \c, for warnings
	segNode  *usfm.Node // the paragraph of the segment in progress
	// orphan is the paragraph of the first verse text met in the chapter
	// before any verse; lastNum the largest verse number seen in it.
	orphan  *usfm.Node
	lastNum int
	tooBig  *usfm.Node // where a verse grew beyond MaxVerseBytes
	sizeOwn owner      // the verse whose rendered size is size
	size    int
	pending []bible.Segment

	mts        []string // \mt texts before the first \c
	mainTitle  string   // the \mt or \mt1 text
	introTitle string

	// The segment in progress.
	own       owner
	class     string
	heading   bool
	html      []byte
	notes     []byte
	text      []byte
	stack     []string // character styles open in the paragraph (classes)
	openHTML  int      // how many of stack have their <span> written to html
	openNotes int      // likewise for notes
	trimLead  bool     // drop leading spaces of the next text (after a marker)
	altChap   string   // a \ca number not yet shown: it shows with the next verse's or \va's number
	delivered int      // segments delivered so far
}

func (r *renderer) warn(n *usfm.Node, format string, args ...any) {
	d := usfm.Diag{File: r.opt.File, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		d.Pos = n.Pos
	}
	r.out.Warnings = append(r.out.Warnings, d)
}

// damage reports structure that would be published damaged.
func (r *renderer) damage(n *usfm.Node, format string, args ...any) {
	r.warn(n, format, args...)
	r.out.Warnings[len(r.out.Warnings)-1].Sev = usfm.Damage
}

// repair reports a known source habit read as meant, counted by class.
func (r *renderer) repair(n *usfm.Node, class, format string, args ...any) {
	r.warn(n, format, args...)
	d := &r.out.Warnings[len(r.out.Warnings)-1]
	d.Sev, d.Class = usfm.Repaired, class
}

func (r *renderer) errorf(n *usfm.Node, format string, args ...any) error {
	d := usfm.Diag{File: r.opt.File, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		d.Pos = n.Pos
	}
	return d
}

func (r *renderer) blocks(nodes []*usfm.Node) error {
	for _, n := range nodes {
		switch n.Kind {
		case usfm.Chapter:
			if err := r.chapter(n); err != nil {
				return err
			}
		case usfm.Para:
			if err := r.para(n); err != nil {
				return err
			}
		case usfm.Table:
			for _, row := range n.Children {
				if err := r.row(row); err != nil {
					return err
				}
			}
		case usfm.Row:
			if err := r.row(n); err != nil {
				return err
			}
		default:
			r.warn(n, "%s outside a paragraph ignored", n.Kind)
		}
	}
	return nil
}

func (r *renderer) chapter(n *usfm.Node) error {
	r.finishChapter()
	r.chapNode = n
	id, title := n.Number, n.Number
	if n.Pub != "" {
		// The live service indexes the WEB's PS2 "\c 1 \cp 151" as chapter
		// "1_1" titled "151".
		id, title = n.Number+"_1", n.Pub
	}
	if !bible.ValidSegment(id) {
		return r.errorf(n, "chapter number %q cannot be a chapter id", n.Number)
	}
	if r.chapIdx == nil {
		r.chapIdx = make(map[string]int)
	}
	r.verse = -1
	r.altChap = n.Alt
	if i, ok := r.chapIdx[id]; ok {
		r.damage(n, "chapter %s repeated: merged into the first", id)
		r.chap = i
		return nil
	}
	if len(r.out.Chapters) >= bible.MaxChapters {
		return r.errorf(n, "more than %d chapters in the book", bible.MaxChapters)
	}
	r.chap = len(r.out.Chapters)
	r.chapIdx[id] = r.chap
	r.verseIdx = append(r.verseIdx, make(map[string]int))
	r.out.Chapters = append(r.out.Chapters, Chapter{})
	r.out.Index.Chapters = append(r.out.Index.Chapters, bible.Chapter{
		ID:        id,
		PassageID: string(r.id) + "." + id,
		Title:     title,
		Verses:    []bible.Verse{},
	})
	return nil
}

func (r *renderer) finishChapter() {
	if r.chap >= 0 && len(r.out.Chapters[r.chap].Verses) == 0 {
		if r.orphan != nil {
			r.damage(r.orphan, "text in chapter %s, which has no verse", r.out.Index.Chapters[r.chap].ID)
		} else {
			r.warn(r.chapNode, "chapter %s has no verses", r.out.Index.Chapters[r.chap].ID)
		}
	}
	if r.chap >= 0 {
		r.orphan = nil // text before the first \c waits for chapter 1's first verse
	}
	r.lastNum = -1
}

// Paragraph markers by role. Numbered forms (s1, mt2, is1) match their
// unnumbered base.
var (
	headingMarkers = set("s", "ms", "mr", "r", "sr", "sp", "d", "qa", "qd", "cl", "lit", "mte", "sd", "mt")
	introHeadings  = set("imt", "is", "iot", "imte")
	skipMarkers    = set("rem", "sts", "restore", "pb", "periph", "ie", "h", "toc", "toca", "id", "ide", "usfm", "cat")
)

func set(ss ...string) map[string]bool {
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

// baseMarker strips a trailing level number: "s1" → "s", "toc2" → "toc".
func baseMarker(m string) string {
	return strings.TrimRight(m, "0123456789")
}

func (r *renderer) para(n *usfm.Node) error {
	r.segNode = n
	base := baseMarker(n.Marker)
	switch {
	case skipMarkers[base]:
		return nil
	case r.chap < 0 && (base == "mt" || base == "mte"):
		t := plainText(n)
		if t != "" {
			r.mts = append(r.mts, t)
			if r.mainTitle == "" && (n.Marker == "mt" || n.Marker == "mt1") {
				r.mainTitle = t
			}
		}
		return nil
	case r.chap < 0 && base == "cl":
		// A \cl before the first chapter labels every chapter; it is not a
		// heading of chapter 1.
		return nil
	case r.chap < 0 && strings.HasPrefix(base, "i"):
		heading := introHeadings[base]
		if heading && r.introTitle == "" {
			r.introTitle = plainText(n)
		}
		return r.block(n, owner{kind: toIntro}, heading)
	case strings.HasPrefix(base, "i") || headingMarkers[base]:
		if hasVerse(n) {
			break
		}
		return r.block(n, owner{kind: toPending}, true)
	}
	r.seq++
	r.beginPara(n.Marker)
	before := r.delivered
	if err := r.inline(n.Children); err != nil {
		return err
	}
	r.endSegment()
	if r.delivered == before {
		r.blank()
	}
	return nil
}

// block renders a paragraph that holds no verse as one segment.
func (r *renderer) block(n *usfm.Node, own owner, heading bool) error {
	r.segNode = n
	r.seq++
	r.class, r.heading = n.Marker, heading
	if heading {
		r.class += " yv-h"
	}
	r.begin(own)
	r.trimLead = true
	if err := r.inline(n.Children); err != nil {
		return err
	}
	r.endSegment()
	return nil
}

// beginPara starts the first segment of a paragraph that may hold verses:
// it continues the verse in progress, or waits for the chapter's first
// verse.
func (r *renderer) beginPara(marker string) {
	r.class, r.heading = marker, false
	own := owner{kind: toPending}
	if r.chap >= 0 && r.verse >= 0 {
		own = owner{kind: toVerse, chap: r.chap, verse: r.verse}
	}
	r.begin(own)
	r.trimLead = true
}

// blank records a paragraph without content (\b): it separates what is
// around it, so it waits for the next verse.
func (r *renderer) blank() {
	r.deliver(bible.Segment{Para: r.seq, Class: r.class}, owner{kind: toPending})
}

func (r *renderer) row(n *usfm.Node) error {
	r.segNode = n
	if n.Kind != usfm.Row {
		r.warn(n, "%s in a table ignored", n.Kind)
		return nil
	}
	r.seq++
	r.beginPara("tr")
	before := r.delivered
	for i, cell := range n.Children {
		if cell.Kind != usfm.Cell {
			if err := r.inline([]*usfm.Node{cell}); err != nil {
				return err
			}
			continue
		}
		if i > 0 && len(r.text) > 0 && r.text[len(r.text)-1] != ' ' {
			// Cells are separated by a space, in text and in HTML alike.
			r.html = append(r.html, ' ')
			r.notes = append(r.notes, ' ')
			r.text = append(r.text, ' ')
		}
		r.push(cell.Marker)
		r.trimLead = true
		if err := r.inline(cell.Children); err != nil {
			return err
		}
		r.pop()
	}
	r.endSegment()
	if r.delivered == before {
		r.blank()
	}
	return nil
}

func (r *renderer) begin(own owner) {
	r.own = own
	r.html = r.html[:0]
	r.notes = r.notes[:0]
	r.text = r.text[:0]
	r.openHTML, r.openNotes = 0, 0
}

// endSegment closes the character styles open in the segment (they are
// reopened in the next one) and delivers it unless it is empty.
func (r *renderer) endSegment() {
	for ; r.openHTML > 0; r.openHTML-- {
		r.html = append(r.html, "</span>"...)
	}
	for ; r.openNotes > 0; r.openNotes-- {
		r.notes = append(r.notes, "</span>"...)
	}
	if len(r.html) == 0 && len(r.notes) == 0 {
		return
	}
	if r.own.kind == toPending && !r.heading && len(r.text) > 0 && r.orphan == nil {
		r.orphan = r.segNode
	}
	r.deliver(bible.Segment{
		Para:    r.seq,
		Class:   r.class,
		Heading: r.heading,
		HTML:    string(r.html),
		Notes:   string(r.notes),
		Text:    string(r.text),
	}, r.own)
}

func (r *renderer) deliver(s bible.Segment, own owner) {
	r.delivered++
	switch own.kind {
	case toIntro:
		r.out.Intro = append(r.out.Intro, s)
	case toPending:
		r.pending = append(r.pending, s)
	case toVerse:
		r.addToVerse(own, &s)
	}
}

// addToVerse appends what is pending, then s unless it is nil, to a verse,
// keeping count of the verse's rendered size.
func (r *renderer) addToVerse(own owner, s *bible.Segment) {
	v := &r.out.Chapters[own.chap].Verses[own.verse]
	if own != r.sizeOwn {
		r.sizeOwn, r.size = own, 0
		for _, p := range *v {
			r.size += len(p.Notes)
		}
	}
	for _, p := range r.pending {
		r.size += len(p.Notes)
	}
	if s != nil {
		r.size += len(s.Notes)
	}
	if r.size > bible.MaxVerseBytes && r.tooBig == nil {
		r.tooBig = r.segNode
	}
	if len(r.pending) > 0 {
		*v = append(*v, r.pending...)
		r.pending = r.pending[:0]
	}
	if s != nil {
		*v = append(*v, *s)
	}
}

func (r *renderer) inline(nodes []*usfm.Node) error {
	for _, n := range nodes {
		switch n.Kind {
		case usfm.Text:
			r.write(n.Text)
		case usfm.Verse:
			if err := r.startVerse(n); err != nil {
				return err
			}
		case usfm.Char:
			switch m := n.Marker; {
			case m == "ca":
				// Where the other numbering's chapter starts: shown with
				// the next verse's number.
				r.altChap = childText(n)
			case m == "va" || m == "vp":
				// A number without a verse (a psalm title that is verse 1
				// in another numbering, or the start of one within a
				// verse): shown, never text.
				r.showAltChapter()
				r.number(m, childText(n))
			case m == "cp":
			case m == "w" || isMilestone(m):
				if err := r.inline(n.Children); err != nil {
					return err
				}
			default:
				r.push(m)
				if err := r.inline(n.Children); err != nil {
					return err
				}
				r.pop()
			}
		case usfm.Note:
			r.note(n)
		case usfm.Cell:
			r.push(n.Marker)
			if err := r.inline(n.Children); err != nil {
				return err
			}
			r.pop()
		default:
			r.warn(n, "%s inside a paragraph ignored", n.Kind)
		}
	}
	return nil
}

func isMilestone(m string) bool {
	return strings.HasSuffix(m, "-s") || strings.HasSuffix(m, "-e")
}

// startVerse ends the segment in progress and starts the verse's own.
func (r *renderer) startVerse(n *usfm.Node) error {
	if r.chap < 0 || r.own.kind == toIntro || r.heading {
		r.warn(n, "verse %s outside a chapter's text ignored", n.Number)
		return nil
	}
	label := n.Pub
	if label == "" {
		label = n.Number
	}
	id := verseID(n.Number)
	if !bible.ValidSegment(id) {
		return r.errorf(n, "verse number %q cannot be a verse id", n.Number)
	}
	if id != n.Number && !validRange(n.Number) {
		// A defect such as the BSB's "\v 14... for this reason": keep the
		// number, show it as the label.
		r.warn(n, "verse number %q read as %q", n.Number, id)
		if n.Pub == "" {
			label = id
		}
	}
	r.endSegment()
	num := leadingInt(id)
	if r.orphan != nil {
		if num > 1 {
			r.impliedVerse1(id)
		} else {
			r.chapterTitle(id)
		}
	}
	ch := &r.out.Chapters[r.chap]
	idx, dup := r.verseIdx[r.chap][id]
	switch {
	case dup:
		r.damage(n, "verse %s repeated in chapter %s: merged into the first", id, r.out.Index.Chapters[r.chap].ID)
	case num >= 0 && num < r.lastNum:
		r.damage(n, "verse %s after verse %d in chapter %s: out of order", id, r.lastNum, r.out.Index.Chapters[r.chap].ID)
	case len(ch.Verses) >= bible.MaxVerses:
		return r.errorf(n, "more than %d verses in chapter %s", bible.MaxVerses, r.out.Index.Chapters[r.chap].ID)
	}
	r.lastNum = max(r.lastNum, num)
	if !dup {
		idx = r.addVerse(id)
		if end, ok := bridgeEnd(n.Number); ok {
			r.out.Index.Chapters[r.chap].Verses[idx].End = end
		}
	}
	r.verse, r.lastChap = idx, r.chap
	r.begin(owner{kind: toVerse, chap: r.chap, verse: idx})
	r.html = appendVerseLabel(r.html, id, label, n.Pub != "")
	r.notes = appendVerseLabel(r.notes, id, label, n.Pub != "")
	r.showAltChapter()
	if n.Alt != "" {
		r.number("va", n.Alt)
	}
	r.trimLead = true
	return nil
}

// showAltChapter shows the \ca number waiting for the next number.
func (r *renderer) showAltChapter() {
	if r.altChap != "" {
		r.number("ca", r.altChap)
		r.altChap = ""
	}
}

// number shows an alternate or published number (class va, vp or ca) in
// both HTML versions; it is never text.
func (r *renderer) number(class, num string) {
	if num == "" {
		return
	}
	r.openAllHTML()
	r.openAllNotes()
	for _, b := range []*[]byte{&r.html, &r.notes} {
		*b = appendOpen(*b, class)
		*b = appendEscaped(*b, num, false)
		*b = append(*b, "</span>"...)
	}
}

// childText is the text of a character style's Text children (a number).
func childText(n *usfm.Node) string {
	var s string
	for _, c := range n.Children {
		if c.Kind == usfm.Text {
			s += c.Text
		}
	}
	return strings.TrimSpace(s)
}

// addVerse adds verse id to the current chapter and returns its index.
func (r *renderer) addVerse(id string) int {
	ch := &r.out.Chapters[r.chap]
	idx := len(ch.Verses)
	r.verseIdx[r.chap][id] = idx
	ch.Verses = append(ch.Verses, nil)
	ic := &r.out.Index.Chapters[r.chap]
	ic.Verses = append(ic.Verses, bible.Verse{
		ID:        id,
		PassageID: ic.PassageID + "." + id,
		Title:     id,
	})
	return idx
}

// appendVerseLabel appends the start of a verse: its marker and its label,
// which has the class vp too when it is the source's published number.
func appendVerseLabel(b []byte, id, label string, published bool) []byte {
	b = append(b, `<span class="yv-v" v="`...)
	b = appendEscaped(b, id, true)
	if published {
		b = append(b, `"></span><span class="yv-vlbl vp">`...)
	} else {
		b = append(b, `"></span><span class="yv-vlbl">`...)
	}
	b = appendEscaped(b, label, false)
	return append(b, `</span>`...)
}

// Repair classes of text met before a chapter's first verse.
const (
	ImpliedVerse1 = "text before a chapter's first verse read as verse 1"
	ChapterTitle  = "text before verse 1 read as the chapter's title"
)

// impliedVerse1 makes the text waiting before a chapter's first verse
// (first, a number above 1) verse 1: the source left out the \v 1 of a
// verse whose text it gives (34 of the BSB's psalms). The verse starts at
// the first paragraph of that text; headings before it stay headings.
func (r *renderer) impliedVerse1(first string) {
	r.repair(r.orphan, ImpliedVerse1, "chapter %s has text before its first verse marker, \\v %s, and no \\v 1: that text read as verse 1", r.out.Index.Chapters[r.chap].ID, first)
	r.orphan = nil
	for i := range r.pending {
		if s := &r.pending[i]; !s.Heading && s.Text != "" {
			label := string(appendVerseLabel(nil, "1", "1", false))
			s.HTML, s.Notes = label+s.HTML, label+s.Notes
			break
		}
	}
	idx := r.addVerse("1")
	r.lastNum, r.lastChap = 1, r.chap
	r.addToVerse(owner{kind: toVerse, chap: r.chap, verse: idx}, nil)
}

// chapterTitle makes the text waiting before a chapter's verse 1 (first
// is the first verse's id, 1 or below) the chapter's title: it is no
// verse's text, so it is shown like a \d, as a heading of the chapter
// (WEB SIR 51: "\p A Prayer of Jesus the son of Sirach." before \v 1).
func (r *renderer) chapterTitle(first string) {
	r.repair(r.orphan, ChapterTitle, "text before verse %s of chapter %s read as the chapter's title", first, r.out.Index.Chapters[r.chap].ID)
	r.orphan = nil
	for i := range r.pending {
		if s := &r.pending[i]; !s.Heading && (s.HTML != "" || s.Notes != "") {
			s.Heading, s.Class = true, "d yv-h"
			if s.Para == r.seq {
				// The verse starts in the title's paragraph: what follows
				// is a paragraph of its own.
				r.seq++
			}
		}
	}
}

// leadingInt is the number a verse id starts with ("15" → 15, "3a" → 3),
// or -1 when it starts with no digit.
func leadingInt(id string) int {
	n, i := 0, 0
	for ; i < len(id) && i < 7 && '0' <= id[i] && id[i] <= '9'; i++ {
		n = n*10 + int(id[i]-'0')
	}
	if i == 0 {
		return -1
	}
	return n
}

// verseID is the id of the verse a \v number starts: the first number of a
// range ("15-16" → "15"), and of anything else the leading letters, digits
// and '_' ("14..." → "14").
func verseID(number string) string {
	i := 0
	for i < len(number) && isIDByte(number[i]) {
		i++
	}
	return number[:i]
}

// validRange reports whether a \v number is a range of two ids ("15-16",
// "3a-4").
func validRange(number string) bool {
	a, b, ok := strings.Cut(number, "-")
	return ok && bible.ValidSegment(a) && bible.ValidSegment(b)
}

// bridgeEnd is the last number of a bridge \v 15-16 ("16"), when the
// number is a range of numbered verses that runs forwards; the index
// records it so that verse 16 is found in the bridge.
func bridgeEnd(number string) (string, bool) {
	a, b, ok := strings.Cut(number, "-")
	if !ok || !bible.ValidBridge(a, b) {
		return "", false
	}
	return b, true
}

func isIDByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

func (r *renderer) push(class string) {
	r.stack = append(r.stack, class)
}

func (r *renderer) pop() {
	if r.openHTML == len(r.stack) {
		r.html = append(r.html, "</span>"...)
		r.openHTML--
	}
	if r.openNotes == len(r.stack) {
		r.notes = append(r.notes, "</span>"...)
		r.openNotes--
	}
	r.stack = r.stack[:len(r.stack)-1]
}

// Character styles open lazily, when content comes, so that no empty span
// is left where a style ends or starts at a verse boundary.
func (r *renderer) openAllHTML() {
	for ; r.openHTML < len(r.stack); r.openHTML++ {
		r.html = appendOpen(r.html, r.stack[r.openHTML])
	}
}

func (r *renderer) openAllNotes() {
	for ; r.openNotes < len(r.stack); r.openNotes++ {
		r.notes = appendOpen(r.notes, r.stack[r.openNotes])
	}
}

func (r *renderer) write(s string) {
	if r.trimLead {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" {
			return
		}
		r.trimLead = false
	}
	if n := len(r.text); n > 0 && r.text[n-1] == ' ' {
		// The source's space before a marker and the one after it ("sake.
		// \wj* \v 12") would show as two.
		s = strings.TrimLeft(s, " ")
	}
	if s == "" {
		return
	}
	r.openAllHTML()
	r.openAllNotes()
	r.html = appendEscaped(r.html, s, false)
	r.notes = appendEscaped(r.notes, s, false)
	r.text = append(r.text, s...)
}

// note renders a footnote or cross reference into the notes version only.
func (r *renderer) note(n *usfm.Node) {
	r.openAllNotes()
	kind := "f"
	if n.Marker == "x" || n.Marker == "ex" {
		kind = "x"
	}
	r.notes = append(r.notes, `<span class="yv-n `...)
	r.notes = append(r.notes, kind...)
	r.notes = append(r.notes, `">`...)
	r.notes = appendNoteBody(r.notes, n.Children)
	r.notes = append(r.notes, "</span>"...)
}

func appendNoteBody(b []byte, nodes []*usfm.Node) []byte {
	for _, n := range nodes {
		switch n.Kind {
		case usfm.Text:
			b = appendEscaped(b, n.Text, false)
		case usfm.Char:
			if n.Marker == "w" || isMilestone(n.Marker) {
				b = appendNoteBody(b, n.Children)
				continue
			}
			b = appendOpen(b, n.Marker)
			b = appendNoteBody(b, n.Children)
			b = append(b, "</span>"...)
		case usfm.Note:
			b = appendNoteBody(b, n.Children)
		}
	}
	return b
}

func appendOpen(b []byte, class string) []byte {
	b = append(b, `<span class="`...)
	b = appendEscaped(b, class, true)
	return append(b, `">`...)
}

// appendEscaped escapes & < > (and " in an attribute value).
func appendEscaped(b []byte, s string, attr bool) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			if !attr {
				continue
			}
			esc = "&quot;"
		default:
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, esc...)
		last = i + 1
	}
	return append(b, s[last:]...)
}

// hasVerse reports whether a verse starts anywhere inside n.
func hasVerse(n *usfm.Node) bool {
	for _, c := range n.Children {
		if c.Kind == usfm.Verse || c.Kind != usfm.Note && hasVerse(c) {
			return true
		}
	}
	return false
}

// plainText is n's text without notes, with runs of spaces made one.
func plainText(n *usfm.Node) string {
	var b strings.Builder
	var walk func([]*usfm.Node)
	walk = func(ns []*usfm.Node) {
		for _, c := range ns {
			switch c.Kind {
			case usfm.Text:
				b.WriteString(c.Text)
			case usfm.Char:
				if c.Marker != "va" && c.Marker != "vp" && c.Marker != "ca" {
					walk(c.Children)
				}
			}
		}
	}
	walk(n.Children)
	return strings.Join(strings.Fields(b.String()), " ")
}
