package render

import (
	"errors"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/usfm"
)

// Hand-built trees: these tests pin the renderer's rules without depending
// on the parser's choices.

func para(m string, kids ...*usfm.Node) *usfm.Node {
	return &usfm.Node{Kind: usfm.Para, Marker: m, Children: kids}
}
func chap(n string) *usfm.Node  { return &usfm.Node{Kind: usfm.Chapter, Number: n} }
func verse(n string) *usfm.Node { return &usfm.Node{Kind: usfm.Verse, Number: n} }
func text(s string) *usfm.Node  { return &usfm.Node{Kind: usfm.Text, Text: s} }
func char(m string, kids ...*usfm.Node) *usfm.Node {
	return &usfm.Node{Kind: usfm.Char, Marker: m, Children: kids}
}
func note(m string, kids ...*usfm.Node) *usfm.Node {
	return &usfm.Node{Kind: usfm.Note, Marker: m, Caller: "+", Children: kids}
}

func book(id string, nodes ...*usfm.Node) *usfm.Book {
	return &usfm.Book{ID: id, Headers: map[string]string{"toc2": "Name"}, Nodes: nodes}
}

func TestTreeSpanAcrossVerses(t *testing.T) {
	b := book("JHN",
		chap("1"),
		para("p", verse("1"), text("A "), char("wj", text("b "), verse("2"), text("c")), text(" d")),
	)
	got, err := Render(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	vs := got.Chapters[0].Verses
	if len(vs) != 2 {
		t.Fatalf("got %d verses, want 2", len(vs))
	}
	want1 := `<span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>A <span class="wj">b </span>`
	want2 := `<span class="yv-v" v="2"></span><span class="yv-vlbl">2</span><span class="wj">c</span> d`
	if vs[0][0].HTML != want1 {
		t.Errorf("verse 1 HTML\n got %s\nwant %s", vs[0][0].HTML, want1)
	}
	if vs[1][0].HTML != want2 {
		t.Errorf("verse 2 HTML\n got %s\nwant %s", vs[1][0].HTML, want2)
	}
	all := append(append([]bible.Segment(nil), vs[0]...), vs[1]...)
	if got, want := bible.ComposeText(all), "A b c d"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

func TestTreeOwnership(t *testing.T) {
	b := book("PSA",
		chap("1"),
		para("s1", text("Heading")),
		para("q1", text("Before the first verse")),
		para("q1", verse("2"), text("Two")),
		para("b"),
		para("q2", text("still two")),
		para("s1", text("Next")),
		para("b"),
		para("q1", verse("3"), text("Three")),
		para("s1", text("Trailing")),
	)
	got, err := Render(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	classes := func(segs []bible.Segment) []string {
		var out []string
		for _, s := range segs {
			out = append(out, s.Class)
		}
		return out
	}
	vs := got.Chapters[0].Verses
	if ids := got.Index.Chapters[0].Verses; len(ids) != 3 || ids[0].ID != "1" || ids[1].ID != "2" || ids[2].ID != "3" {
		t.Fatalf("verses %+v, want 1 (implied by the text before verse 2), 2 and 3", ids)
	}
	want := [][]string{
		{"s1 yv-h", "q1"},
		{"q1", "b", "q2"},
		{"s1 yv-h", "b", "q1", "s1 yv-h"},
	}
	for i := range want {
		if g := classes(vs[i]); !equal(g, want[i]) {
			t.Errorf("verse %d classes %q, want %q", i, g, want[i])
		}
	}
	if got, want := bible.ComposeHTML(vs[0], true, false),
		`<div><div class="s1 yv-h">Heading</div><div class="q1"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>Before the first verse</div></div>`; got != want {
		t.Errorf("implied verse 1 with headings\n got %s\nwant %s", got, want)
	}
	if got, want := bible.ComposeHTML(vs[2], false, false),
		`<div><div class="q1"><span class="yv-v" v="3"></span><span class="yv-vlbl">3</span>Three</div></div>`; got != want {
		t.Errorf("verse 3 without headings\n got %s\nwant %s", got, want)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTreeNotesAndEscapes(t *testing.T) {
	b := book("GEN",
		chap("1"),
		para("p", verse("1"), text("a<b & c"),
			note("f", char("fr", text("1:1 ")), char("ft", text("note "), char("w", text("w")))),
			note("x", char("xo", text("1:1 ")), char("xt", text("Jn 1:1"))),
			text(" end")),
	)
	got, err := Render(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := got.Chapters[0].Verses[0][0]
	if want := `<span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>a&lt;b &amp; c end`; s.HTML != want {
		t.Errorf("HTML\n got %s\nwant %s", s.HTML, want)
	}
	if want := `<span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>a&lt;b &amp; c` +
		`<span class="yv-n f"><span class="fr">1:1 </span><span class="ft">note w</span></span>` +
		`<span class="yv-n x"><span class="xo">1:1 </span><span class="xt">Jn 1:1</span></span> end`; s.Notes != want {
		t.Errorf("Notes\n got %s\nwant %s", s.Notes, want)
	}
	if want := "a<b & c end"; s.Text != want {
		t.Errorf("Text %q, want %q", s.Text, want)
	}
}

func TestPeripheral(t *testing.T) {
	_, err := Render(book("GLO", chap("1")), Options{})
	if !errors.Is(err, ErrPeripheral) {
		t.Fatalf("got %v, want ErrPeripheral", err)
	}
}
