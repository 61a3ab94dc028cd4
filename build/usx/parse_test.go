package usx

import (
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/build/usfm"
)

// dump writes a tree compactly: para[...] c1 v1 "text" char{…}[...].
func dump(nodes []*usfm.Node) string {
	var parts []string
	for _, n := range nodes {
		var s string
		switch n.Kind {
		case usfm.Text:
			s = `"` + n.Text + `"`
		case usfm.Chapter:
			s = "c" + n.Number
		case usfm.Verse:
			s = "v" + n.Number
		case usfm.Note:
			s = n.Marker + "(" + n.Caller + ")"
		default:
			s = n.Marker
		}
		if len(n.Children) > 0 {
			s += "[" + dump(n.Children) + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestParseTree(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"pretty-printed", "<usx version=\"3.0\">\n  <book code=\"JHN\" style=\"id\">x</book>\n  <chapter number=\"1\" style=\"c\"/>\n  <para style=\"p\"><verse number=\"1\" style=\"v\"/>In  the\n   beginning <char style=\"wj\">was</char>\n  <verse number=\"2\" style=\"v\"/>He</para>\n</usx>",
			`c1 p[v1 "In the beginning " wj["was"] v2 "He"]`},
		{"a verse inside a char closes it", `<usx><book code="JHN"/><chapter number="1"/><para style="p"><char style="wj"><verse number="1"/>a <char style="add">b</char></char> c</para></usx>`,
			`c1 p[wj v1 "a " add["b"] " c"]`},
		{"milestones and figures dropped, refs transparent", `<usx><book code="JHN"/><chapter number="1"/><para style="p"><verse number="1"/>a<ms style="qt-s"/>b<figure style="fig">cap</figure> <note style="x" caller="-"><char style="xt"><ref loc="MAT 1:1">Mt 1:1</ref></char></note></para></usx>`,
			`c1 p[v1 "ab " x(-)[xt["Mt 1:1"]]]`},
		{"headers", `<usx><book code="JHN" style="id">text</book><para style="h">John</para><para style="rem">x</para><chapter number="1"/><para style="p"><verse number="1"/>a</para></usx>`,
			`c1 p[v1 "a"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse("f.usx", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := dump(b.Nodes); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"not XML", "<usx><book code=\"JHN\"/>\n<para>", "f.usx:2:1: not well-formed XML"},
		{"not USX", "<html/>", "f.usx:1:1: root element <html> is not <usx>"},
		{"no book", "<usx><para style=\"p\">x</para></usx>", "f.usx:1:1: no <book code> element"},
		{"bad code", "<usx>\n  <book code=\"J\"/></usx>", "f.usx:2:3: invalid book code \"J\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.usx", []byte(tc.src))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v; want %q", err, tc.want)
			}
		})
	}
}

func TestDamageAndRepairs(t *testing.T) {
	b, err := Parse("f.usx", []byte("<usx><book code=\"ADE\"/>\n<chapter number=\"three\"/>\n<para style=\"d\">Title<verse number=\"7And\"/>x</para></usx>"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range b.Warnings {
		got = append(got, w.Sev.String()+" "+w.Error())
	}
	want := []string{
		"repaired f.usx:1:6: book code ADE read as ESG",
		`damage f.usx:2:1: chapter number "three" is not a number`,
		`repaired f.usx:3:22: verse number "7And" read as verse 7 followed by "And"`,
		"repaired f.usx:3:22: d title ended before the verse; the verse starts a p",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := dump(b.Nodes); d != `cthree d["Title"] p[v7 "Andx"]` {
		t.Errorf("tree %s", d)
	}
}

// TestTextBeforeFirstVerse shows that USX goes through the renderer's rules
// for text before a chapter's first verse, as USFM does: before a first
// verse above 1 it is verse 1; before verse 1 it is the chapter's title.
func TestTextBeforeFirstVerse(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		verses     string // the chapter's verse ids
		v1         string // verse 1's text
		class      string // the repair's class
	}{
		{"implied verse 1", `<para style="q1">Blessed is the man</para><para style="q1"><verse number="2"/>But</para>`,
			"1 2", "Blessed is the man", render.ImpliedVerse1},
		{"the chapter's title", `<para style="p">A Prayer.</para><para style="q1"><verse number="1"/>I will</para>`,
			"1", "I will", render.ChapterTitle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse("f.usx", []byte(`<usx><book code="PSA"/><chapter number="1"/>`+tc.body+`</usx>`))
			if err != nil {
				t.Fatal(err)
			}
			rb, err := render.Render(b, render.Options{File: "f.usx"})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, v := range rb.Index.Chapters[0].Verses {
				ids = append(ids, v.ID)
			}
			if got := strings.Join(ids, " "); got != tc.verses {
				t.Errorf("verses %s; want %s", got, tc.verses)
			}
			if got := bible.ComposeText(rb.Chapters[0].Verses[0]); got != tc.v1 {
				t.Errorf("verse 1 text %q; want %q", got, tc.v1)
			}
			if len(rb.Warnings) != 1 || rb.Warnings[0].Class != tc.class {
				t.Errorf("warnings %v; want one repair of %q", rb.Warnings, tc.class)
			}
		})
	}
}
