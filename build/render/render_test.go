package render

import (
	"errors"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/usfm"
)

func renderSrc(t *testing.T, src string, opt Options) *Book {
	t.Helper()
	b, err := usfm.Parse("test.usfm", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := Render(b, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

func TestTitles(t *testing.T) {
	for _, tc := range []struct {
		name, src        string
		title, full, abb string
	}{
		{"toc", "\\id GEN\n\\h Gen H\n\\toc1 Long\n\\toc2 Short\n\\toc3 Gn\n\\mt1 MT\n\\c 1\n\\p\n\\v 1 x\n", "Short", "Long", "Gn"},
		{"h", "\\id GEN\n\\h Genesis\n\\mt1 MT\n\\c 1\n\\p\n\\v 1 x\n", "Genesis", "Genesis", "Genesis"},
		{"mt", "\\id GEN\n\\mt2 The First Book of\n\\mt1 Genesis\n\\c 1\n\\p\n\\v 1 x\n", "Genesis", "The First Book of Genesis", "Genesis"},
		{"toc1 only", "\\id GEN\n\\h Genesis\n\\toc1 The Book of Genesis\n\\c 1\n\\p\n\\v 1 x\n", "Genesis", "The Book of Genesis", "Genesis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := renderSrc(t, tc.src, Options{}).Index
			if ix.Title != tc.title || ix.FullTitle != tc.full || ix.Abbreviation != tc.abb {
				t.Errorf("got %q %q %q, want %q %q %q", ix.Title, ix.FullTitle, ix.Abbreviation, tc.title, tc.full, tc.abb)
			}
			if ix.Canon != bible.OldTestament {
				t.Errorf("canon %q", ix.Canon)
			}
		})
	}
}

func TestPeripheralBook(t *testing.T) {
	b, err := usfm.Parse("frt.usfm", []byte("\\id FRT\n\\h Preface\n\\is1 What\n\\ip Text.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(b, Options{}); !errors.Is(err, ErrPeripheral) {
		t.Errorf("got %v, want ErrPeripheral", err)
	}
}

// TestStructure checks chapter and verse ids and titles, written as
// "chapter(title): verse verse …" per chapter.
func TestStructure(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       string
	}{
		{"plain", "\\c 1\n\\p\n\\v 1 a\n\\v 2 b\n\\c 2\n\\p\n\\v 1 c\n", "GEN.1(1): 1 2 | GEN.2(2): 1"},
		{"range", "\\c 1\n\\p\n\\v 1 a\n\\v 2-3 b\n\\v 4 c\n", "GEN.1(1): 1 2-3 4"},
		{"lettered range", "\\c 1\n\\p\n\\v 1-2a a\n\\v 2b b\n", "GEN.1(1): 1-2a 2b"},
		{"backwards range: no bridge", "\\c 1\n\\p\n\\v 1 a\n\\v 3-2 b\n", "GEN.1(1): 1 3"},
		{"cp", "\\c 1\n\\cp 151\n\\p\n\\v 1 a\n\\v 2 b\n", "GEN.1_1(151): 1 2"},
		{"repeated verse", "\\c 1\n\\p\n\\v 1 a\n\\v 2 b\n\\v 2 c\n\\v 3 d\n", "GEN.1(1): 1 2 3"},
		{"no verse 1", "\\c 1\n\\q1 text before\n\\q1\n\\v 2 b\n", "GEN.1(1): 1 2"},
		{"no verse 1, only headings before verse 2", "\\c 1\n\\s1 Head\n\\q1\n\\v 2 b\n", "GEN.1(1): 2"},
		{"title before verse 1", "\\c 1\n\\p A title.\n\\q1\n\\v 1 b\n", "GEN.1(1): 1"},
		{"lettered", "\\c 1\n\\p\n\\v 1a a\n\\v 1b b\n", "GEN.1(1): 1a 1b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rb := renderSrc(t, "\\id GEN\n\\toc2 Genesis\n"+tc.body, Options{})
			var parts []string
			for ci, c := range rb.Index.Chapters {
				var ids []string
				for _, v := range c.Verses {
					if v.Title != v.ID || v.PassageID != c.PassageID+"."+v.ID {
						t.Errorf("verse %+v", v)
					}
					if v.End != "" {
						ids = append(ids, v.ID+"-"+v.End) // a bridge
					} else {
						ids = append(ids, v.ID)
					}
				}
				if c.PassageID != "GEN."+c.ID {
					t.Errorf("chapter passage id %q", c.PassageID)
				}
				if len(rb.Chapters[ci].Verses) != len(c.Verses) {
					t.Errorf("%d segment lists for %d verses", len(rb.Chapters[ci].Verses), len(c.Verses))
				}
				parts = append(parts, c.PassageID+"("+c.Title+"): "+strings.Join(ids, " "))
			}
			if got := strings.Join(parts, " | "); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestVerseHTML pins the markup of single verses (DESIGN.md).
func TestVerseHTML(t *testing.T) {
	const pre = "\\id JHN\n\\toc2 John\n\\c 3\n"
	for _, tc := range []struct {
		name, body, ref string
		headings, notes bool
		html, text      string
	}{
		{"plain", "\\p\n\\v 16 For God.\n", "16", false, false,
			`<div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span>For God.</div></div>`, "For God."},
		{"range label", "\\p\n\\v 15-16 Both.\n", "15", false, false,
			`<div><div class="p"><span class="yv-v" v="15"></span><span class="yv-vlbl">15-16</span>Both.</div></div>`, "Both."},
		{"vp label", "\\p\n\\v 16 \\vp 16b\\vp* Text.\n", "16", false, false,
			`<div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl vp">16b</span>Text.</div></div>`, "Text."},
		{"alternate verse", "\\p\n\\v 16 \\va 17\\va* Text.\n", "16", false, false,
			`<div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span><span class="va">17</span>Text.</div></div>`, "Text."},
		{"alternate chapter after c", "\\ca 4\\ca*\n\\p\n\\v 16 \\va 4:1\\va* Text.\n", "16", false, false,
			`<div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span><span class="ca">4</span><span class="va">4:1</span>Text.</div></div>`, "Text."},
		{"alternate chapter where it starts", "\\p\n\\v 15 One.\n\\ca 4\\ca*\n\\p\n\\v 16 \\va 4:1\\va* Text.\n", "16", false, false,
			`<div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span><span class="ca">4</span><span class="va">4:1</span>Text.</div></div>`, "Text."},
		{"title numbered elsewhere", "\\d \\va 1\\va* A Psalm.\n\\p\n\\v 16 \\va 2\\va* Text.\n", "16", true, false,
			`<div><div class="d yv-h"><span class="va">1</span>A Psalm.</div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span><span class="va">2</span>Text.</div></div>`, "Text."},
		{"wj and w", "\\p\n\\v 16 \\wj \\w For|strong=\"G1\"\\w* God\\wj* so.\n", "16", false, false,
			`<div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span><span class="wj">For God</span> so.</div></div>`, "For God so."},
		{"heading hidden", "\\s1 Love\n\\p\n\\v 16 For God.\n", "16", false, false,
			`<div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span>For God.</div></div>`, "For God."},
		{"heading shown", "\\s1 Love\n\\p\n\\v 16 For God.\n", "16", true, false,
			`<div><div class="s1 yv-h">Love</div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span>For God.</div></div>`, "For God."},
		{"footnote", "\\p\n\\v 16 God\\f + \\fr 3:16 \\ft or, only\\f* so.\n", "16", false, true,
			`<div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span>God<span class="yv-n f"><span class="fr">3:16 </span><span class="ft">or, only</span></span> so.</div></div>`, "God so."},
		{"cross reference", "\\p\n\\v 16 God\\x - \\xo 3:16 \\xt Rom 5:8\\x* so.\n", "16", false, true,
			`<div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span>God<span class="yv-n x"><span class="xo">3:16 </span><span class="xt">Rom 5:8</span></span> so.</div></div>`, "God so."},
		{"escapes", "\\p\n\\v 16 a < b & c > d\n", "16", false, false,
			`<div><div class="p"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span>a &lt; b &amp; c &gt; d</div></div>`, "a < b & c > d"},
		{"poetry", "\\q1\n\\v 16 one\n\\q2 two\n\\b\n\\q1\n\\v 17 three\n", "16", false, false,
			`<div><div class="q1"><span class="yv-v" v="16"></span><span class="yv-vlbl">16</span>one</div><div class="q2">two</div></div>`, "one\ntwo"},
		{"implied verse 1", "\\s1 Paths\n\\q1 Blessed is the man\n\\q2 who walks not\n\\q1\n\\v 2 But his delight\n", "1", true, false,
			`<div><div class="s1 yv-h">Paths</div><div class="q1"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>Blessed is the man</div><div class="q2">who walks not</div></div>`, "Blessed is the man\nwho walks not"},
		{"the verse after an implied verse 1", "\\s1 Paths\n\\q1 Blessed is the man\n\\q1\n\\v 2 But his delight\n", "2", true, false,
			`<div><div class="q1"><span class="yv-v" v="2"></span><span class="yv-vlbl">2</span>But his delight</div></div>`, "But his delight"},
		{"implied verse 1 opening in a style", "\\q1 \\wj Blessed\\wj* is\n\\v 2 But\n", "1", false, false,
			`<div><div class="q1"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span><span class="wj">Blessed</span> is</div></div>`, "Blessed is"},
		{"title before verse 1", "\\p A Prayer.\\f + \\ft a note\\f*\n\\q1\n\\v 1 I will\n", "1", true, true,
			`<div><div class="d yv-h">A Prayer.<span class="yv-n f"><span class="ft">a note</span></span></div><div class="q1"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>I will</div></div>`, "I will"},
		{"title before verse 1 hidden", "\\p A Prayer.\n\\q1\n\\v 1 I will\n", "1", false, false,
			`<div><div class="q1"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>I will</div></div>`, "I will"},
		{"title in verse 1's paragraph", "\\p A Prayer. \\v 1 I will\n", "1", true, false,
			`<div><div class="d yv-h">A Prayer.</div><div class="p"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>I will</div></div>`, "I will"},
		{"blank dropped at the edge", "\\q1\n\\v 16 one\n\\b\n\\q1\n\\v 17 three\n", "17", false, false,
			`<div><div class="q1"><span class="yv-v" v="17"></span><span class="yv-vlbl">17</span>three</div></div>`, "three"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rb := renderSrc(t, pre+tc.body, Options{})
			i := rb.Index.Chapters[0].VerseIndex(tc.ref)
			if i < 0 {
				t.Fatalf("no verse %s in %+v", tc.ref, rb.Index.Chapters[0].Verses)
			}
			segs := rb.Chapters[0].Verses[i]
			if got := bible.ComposeHTML(segs, tc.headings, tc.notes); got != tc.html {
				t.Errorf("html\n got %s\nwant %s", got, tc.html)
			}
			if got := bible.ComposeText(segs); got != tc.text {
				t.Errorf("text %q, want %q", got, tc.text)
			}
		})
	}
}

func TestIntro(t *testing.T) {
	for _, tc := range []struct {
		lang, src, title string
	}{
		{"en", "\\id TOB\n\\toc2 Tobit\n\\ip Tobit is deuterocanonical.\n\\c 1\n\\p\n\\v 1 a\n", "Introduction"},
		{"es-419", "\\id TOB\n\\toc2 Tobías\n\\ip Texto.\n\\c 1\n\\p\n\\v 1 a\n", "Introducción"},
		{"hbo", "\\id RUT\n\\toc2 רות\n\\ip טקסט.\n\\c 1\n\\p\n\\v 1 a\n", "מבוא"},
		{"he", "\\id RUT\n\\toc2 רות\n\\ip טקסט.\n\\c 1\n\\p\n\\v 1 a\n", "מבוא"},
		{"xx", "\\id RUT\n\\toc2 Ruth\n\\ip Text.\n\\c 1\n\\p\n\\v 1 a\n", "Introduction"},
		{"en", "\\id RUT\n\\toc2 Ruth\n\\imt1 About Ruth\n\\is1 Author\n\\ip Text.\n\\c 1\n\\p\n\\v 1 a\n", "About Ruth"},
		{"en", "\\id RUT\n\\toc2 Ruth\n\\is1 Author\n\\ip Text.\n\\c 1\n\\p\n\\v 1 a\n", "Author"},
	} {
		rb := renderSrc(t, tc.src, Options{Language: tc.lang})
		in := rb.Index.Intro
		if in == nil {
			t.Errorf("%s %q: no intro", tc.lang, tc.title)
			continue
		}
		want := bible.Intro{ID: "INTRO", PassageID: string(rb.Index.ID) + ".INTRO", Title: tc.title}
		if *in != want {
			t.Errorf("%s: intro %+v, want %+v", tc.lang, *in, want)
		}
		if len(rb.Intro) == 0 {
			t.Errorf("%s: no intro segments", tc.lang)
		}
	}
	rb := renderSrc(t, "\\id GEN\n\\toc2 Genesis\n\\mt1 Genesis\n\\c 1\n\\p\n\\v 1 a\n", Options{Language: "en"})
	if rb.Index.Intro != nil || rb.Intro != nil {
		t.Errorf("a book without intro got %+v, %v", rb.Index.Intro, rb.Intro)
	}
}

// TestGenesis1_1 renders the WEB's first verse from the real file.
func TestGenesis1_1(t *testing.T) {
	b := findBook(renderBible(t, "eng-web", "en"), "GEN")
	if b == nil {
		t.Fatal("no GEN")
	}
	segs := b.Chapters[0].Verses[0]
	want := `<div><div class="p"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>In the beginning, God created the heavens and the earth.</div></div>`
	if got := bible.ComposeHTML(segs, false, false); got != want {
		t.Errorf("html\n got %s\nwant %s", got, want)
	}
	if got, want := bible.ComposeText(segs), "In the beginning, God created the heavens and the earth."; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	withNotes := bible.ComposeHTML(segs, false, true)
	if !strings.Contains(withNotes, `<span class="yv-n f"><span class="fr">1:1 </span><span class="ft">The Hebrew word rendered “God” is “<span class="wh">אֱלֹהִ֑ים</span>” (Elohim).</span></span>`) {
		t.Errorf("footnote missing or changed:\n%s", withNotes)
	}
}

func BenchmarkRenderWEB(b *testing.B) {
	books := parseBible(b, "eng-web")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, bk := range books {
			rb, err := Render(bk, Options{Language: "en"})
			if errors.Is(err, ErrPeripheral) {
				continue
			}
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range rb.Chapters {
				n += len(c.Verses)
			}
		}
		if n < 37000 {
			b.Fatalf("rendered %d verses", n)
		}
	}
}
