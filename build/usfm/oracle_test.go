package usfm

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var oracleReport = flag.Bool("oracle.report", false, "print every verse where the parser and the expected USX disagree")

// The oracle compares, verse by verse, the plain text our parser extracts
// from each test vector's origin.usfm with the text of its expected USX
// (origin.xml). Both sides go through the same rules:
//
//   - a verse runs from its \v (or <verse number>) to the next verse or
//     chapter; end-of-verse milestones are ignored;
//   - text counts only inside paragraphs whose style holds Scripture text
//     (verseTextStyle), and table cells;
//   - notes, figures and the alternate/published numbers (\va, \vp, \ca)
//     are left out;
//   - whitespace runs are one space, and the result is trimmed.
//
// The USX side has one rule more: what the converter kept as text of a
// marker it could not read (unreadText) is not text.

// verseTextStyle reports whether a paragraph style holds verse text, as
// opposed to identification, titles, headings and introductions.
func verseTextStyle(style string) bool {
	base := strings.TrimRight(style, "0123456789")
	switch base {
	case "id", "ide", "h", "toc", "toca", "rem", "sts", "usfm", "restore",
		"mt", "mte", "imt", "imte", "is", "ip", "ipi", "im", "imi", "ipq", "imq", "ipr", "ipc",
		"iq", "ib", "ili", "iot", "io", "iex", "ie", "ilit",
		"ms", "mse", "ms2e", "ms3e", "mr", "s", "se", "s1e", "s2e", "s3e", "s4e", "sr", "r", "sp", "sd",
		"cl", "cd", "cp", "qa", "lit", "periph":
		return false
	}
	return true
}

// excludedChar reports whether a character style's text is not verse text.
func excludedChar(style string) bool {
	switch style {
	case "va", "vp", "ca", "cat", "fig":
		return true
	}
	return false
}

// verseTexts collects text per verse key ("chapter:verse").
type verseTexts struct {
	order []string
	// unread holds the verses where the USX keeps text of a marker it
	// could not read that cannot be told from the verse's text.
	unread  map[string]bool
	text    map[string]*strings.Builder
	chapter string
	verse   string
}

func newVerseTexts() *verseTexts {
	return &verseTexts{text: map[string]*strings.Builder{}}
}

func (vt *verseTexts) setChapter(n string) { vt.chapter, vt.verse = n, "" }

func (vt *verseTexts) setVerse(n string) {
	vt.verse = n
	k := vt.key()
	if b, ok := vt.text[k]; ok {
		b.WriteByte(' ') // a repeated verse number continues the verse
		return
	}
	vt.order = append(vt.order, k)
	vt.text[k] = &strings.Builder{}
}

func (vt *verseTexts) key() string { return vt.chapter + ":" + vt.verse }

func (vt *verseTexts) markUnread() {
	if vt.verse == "" {
		return
	}
	if vt.unread == nil {
		vt.unread = map[string]bool{}
	}
	vt.unread[vt.key()] = true
}

func (vt *verseTexts) add(s string) {
	if vt.verse == "" {
		return
	}
	vt.text[vt.key()].WriteString(s)
}

func (vt *verseTexts) result() map[string]string {
	out := make(map[string]string, len(vt.text))
	for k, b := range vt.text {
		out[k] = collapse(b.String())
	}
	return out
}

// collapse turns runs of ASCII whitespace into one space and trims.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r'
	}), " ")
}

// treeVerses extracts the verse texts of a parsed book.
func treeVerses(b *Book) (map[string]string, []string) {
	vt := newVerseTexts()
	var inline func(n *Node, on *bool)
	inline = func(n *Node, on *bool) {
		switch n.Kind {
		case Verse:
			vt.setVerse(n.Number)
			*on = true
		case Text:
			if *on {
				vt.add(n.Text)
			}
		case Note:
		case Char:
			if excludedChar(n.Marker) {
				return
			}
			for _, c := range n.Children {
				inline(c, on)
			}
		}
	}
	var block func(n *Node)
	block = func(n *Node) {
		switch n.Kind {
		case Chapter:
			vt.setChapter(n.Number)
		case Para, Cell:
			on := n.Kind == Cell || verseTextStyle(n.Marker)
			if on {
				vt.add(" ")
			}
			for _, c := range n.Children {
				inline(c, &on)
			}
			if on {
				vt.add(" ")
			}
		case Table, Row:
			for _, c := range n.Children {
				block(c)
			}
		}
	}
	for _, n := range b.Nodes {
		block(n)
	}
	return vt.result(), vt.order
}

// attrPairs is the body of a USFM attribute list: name="value" pairs.
const attrPairs = `(?:[A-Za-z][\w-]*="(?:[^"\\]|\\.)*"\s*)+`

var (
	// unreadAttrs is the attribute list of a marker the converter could
	// not read, kept as the first text of its status="unknown" element.
	unreadAttrs = regexp.MustCompile(`^\s*\|\s*` + attrPairs)
	// rawMarker is a USFM marker the converter left verbatim in the text,
	// with its attribute list and closing \*.
	rawMarker = regexp.MustCompile(`\\\+?[a-z][a-z0-9-]*\*?(?:\s*\|\s*` + attrPairs + `)?(?:\\\*)?`)
)

// unreadText removes from a run of USX text what the converter kept of a
// marker it could not read: the attribute list that starts the text of a
// status="unknown" element (atUnknown), and markers left verbatim. It
// reports false when the text of an unknown element starts with an
// attribute list that is not one, so that the verse's text is unknown.
func unreadText(s string, atUnknown bool) (string, bool) {
	if atUnknown {
		if m := unreadAttrs.FindStringIndex(s); m != nil {
			s = s[m[1]:]
		} else if strings.HasPrefix(strings.TrimLeft(s, " \t\r\n"), "|") {
			return s, false
		}
	}
	return rawMarker.ReplaceAllString(s, ""), true
}

// usxVerses extracts the verse texts of a USX document, and the verses in
// which the converter kept text of a marker it did not know that cannot be
// told from the verse's text (see unreadText).
func usxVerses(src []byte) (map[string]string, []string, map[string]bool, error) {
	vt := newVerseTexts()
	dec := xml.NewDecoder(bytes.NewReader(src))
	type frame struct {
		on, skip bool
		para     *bool // the paragraph's on, which a verse inside it turns on
	}
	stack := []frame{{}}
	// Text is collected in runs that end at every element except
	// <optbreak/> (the converter reads "//" inside an attribute value as
	// one), so that an unread attribute list is seen whole; atUnknown is
	// true while the run is the first text of a status="unknown" element.
	var run strings.Builder
	atUnknown := false
	flush := func() {
		if run.Len() == 0 {
			return
		}
		s, ok := unreadText(run.String(), atUnknown)
		run.Reset()
		if !ok {
			vt.markUnread()
		}
		vt.add(s)
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, nil, err
		}
		top := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.StartElement:
			attr := func(name string) string {
				for _, a := range t.Attr {
					if a.Name.Local == name {
						return a.Value
					}
				}
				return ""
			}
			f := top
			if t.Name.Local != "optbreak" {
				flush()
				atUnknown = attr("status") == "unknown"
			}
			switch t.Name.Local {
			case "book", "note", "figure":
				f.skip = true
			case "chapter":
				if n := attr("number"); n != "" {
					vt.setChapter(n)
				}
			case "verse":
				if n := attr("number"); n != "" {
					vt.setVerse(n)
					if top.para != nil && !top.skip {
						*top.para, f.on = true, true
					}
				}
			case "para":
				f.on = verseTextStyle(attr("style"))
				f.para = new(bool)
				*f.para = f.on
				if f.on && !f.skip {
					vt.add(" ")
				}
			case "cell":
				f.on = true
				vt.add(" ")
			case "char":
				if excludedChar(attr("style")) {
					f.skip = true
				}
			}
			stack = append(stack, f)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if t.Name.Local != "optbreak" {
				flush()
				atUnknown = false
			}
			if top.on && !top.skip && (t.Name.Local == "para" || t.Name.Local == "cell") {
				vt.add(" ")
			}
		case xml.CharData:
			on := top.on || top.para != nil && *top.para
			if on && !top.skip && !isIndentation(t) {
				run.Write(t)
			}
		}
	}
	flush()
	return vt.result(), vt.order, vt.unread, nil
}

// isIndentation reports whether a text node is only the indentation of
// pretty-printed XML: whitespace with a line break in it (the rule
// build/usx reads USX by).
func isIndentation(t []byte) bool {
	return len(bytes.TrimLeft(t, " \t\r\n")) == 0 && bytes.ContainsAny(t, "\r\n")
}

type oracleDiff struct {
	test, key, got, want, why string
}

func TestOracle(t *testing.T) {
	root := filepath.Join(sharedDir(t), "bibles", "usfm-tests", "tcdocs", "tests")
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == "origin.usfm" {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 200 {
		t.Fatalf("found only %d test vectors under %s", len(dirs), root)
	}
	sort.Strings(dirs)
	var (
		agree, total, files, failed int
		notCompared, unreadAgree    int
		diffs                       []oracleDiff
	)
	for _, dir := range dirs {
		name, _ := filepath.Rel(root, dir)
		name = filepath.ToSlash(name)
		usfm, err := os.ReadFile(filepath.Join(dir, "origin.usfm"))
		if err != nil {
			t.Fatal(err)
		}
		files++
		book, perr := Parse(name+"/origin.usfm", usfm)
		if perr != nil {
			failed++
			var d Diag
			if !errors.As(perr, &d) {
				t.Errorf("%s: error %v is not a Diag", name, perr)
			}
		}
		usx, err := os.ReadFile(filepath.Join(dir, "origin.xml"))
		if errors.Is(err, fs.ErrNotExist) {
			continue // nothing to compare with; the parse still counts
		}
		if err != nil {
			t.Fatal(err)
		}
		want, order, unread, err := usxVerses(usx)
		if err != nil {
			t.Errorf("%s: origin.xml: %v", name, err)
			continue
		}
		got := map[string]string{}
		if perr == nil {
			var gotOrder []string
			got, gotOrder = treeVerses(book)
			for _, k := range gotOrder {
				if _, ok := want[k]; !ok {
					order = append(order, k)
				}
			}
		}
		for _, k := range order {
			if unread[k] {
				// The converter did not know a marker of this verse (the
				// old unclosed alignment milestones): its text is no oracle.
				notCompared++
				if g, ok := got[k]; ok && g == want[k] {
					unreadAgree++
				}
				continue
			}
			total++
			g, gok := got[k]
			w, wok := want[k]
			switch {
			case perr != nil:
				diffs = append(diffs, oracleDiff{name, k, "", w, "parse error: " + perr.Error()})
			case !gok:
				diffs = append(diffs, oracleDiff{name, k, "", w, "verse missing"})
			case !wok:
				diffs = append(diffs, oracleDiff{name, k, g, "", "verse not in USX"})
			case g != w:
				diffs = append(diffs, oracleDiff{name, k, g, w, "text differs"})
			default:
				agree++
			}
		}
	}
	if total == 0 {
		t.Fatal("no verses compared")
	}
	pct := 100 * float64(agree) / float64(total)
	fmt.Printf("usfm oracle: %d/%d verses agree (%.1f%%) in %d files (%d failed to parse); %d verses not compared where the USX marks a marker it could not read (%d/%d counting them: %.1f%%)\n",
		agree, total, pct, files, failed, notCompared, agree+unreadAgree, total+notCompared, 100*float64(agree+unreadAgree)/float64(total+notCompared))
	if *oracleReport {
		for _, d := range diffs {
			fmt.Printf("%s %s: %s\n    got:  %q\n    want: %q\n", d.test, d.key, d.why, clip(d.got), clip(d.want))
		}
	}
	// Every test with a disagreement left must be explained in the doc.
	if doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "usfm-oracle.md")); err != nil {
		t.Errorf("reading the list of disagreements: %v", err)
	} else {
		for _, d := range diffs {
			if !bytes.Contains(doc, []byte("`"+d.test+"`")) {
				t.Errorf("%s %s (%s) is not explained in docs/usfm-oracle.md", d.test, d.key, d.why)
			}
		}
	}
	if pct < 95 {
		t.Errorf("only %.1f%% of verses agree with the expected USX; want at least 95%%", pct)
	}
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// TestUSXVersesUnreadMarkers checks the oracle's reading of what the USX
// converter keeps of a marker it could not read.
func TestUSXVersesUnreadMarkers(t *testing.T) {
	src := `<usx version="3.0"><book code="TIT" style="id" /><chapter number="1" style="c" />
  <para style="p">
    <verse number="1" style="v" /></para>
  <para style="zaln-s" status="unknown">| x-lemma="a b" x-tw="rc:<optbreak />*/tw/x" <char style="w">Paul</char>, </para>
  <para style="zaln-e" status="unknown">
    <unmatched marker="*" />a servant</para>
  <para style="p"><verse number="2" style="v" />of \k-s| x-tw="rc:<optbreak />*/tw/jesus"
<char style="w">Jesus</char> <ms style="k-e" />Christ</para>
  <para style="k-s" status="unknown">|lemma broken <verse number="3" style="v" />kept | as text</para>
  <para style="ix" status="unknown">text of an unknown marker</para>
</usx>`
	got, order, unread, err := usxVerses([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"1:1": "Paul, a servant",
		"1:2": "of Jesus Christ |lemma broken", // unread: not compared
		"1:3": "kept | as text text of an unknown marker",
	}
	if len(order) != len(want) {
		t.Errorf("verses %v, want %d", order, len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
	// Only an attribute list that is not one leaves the text unknown; it
	// belongs to the verse being read when it starts (1:2 here).
	if len(unread) != 1 || !unread["1:2"] {
		t.Errorf("unread verses %v, want only 1:2", unread)
	}
}
