package render

import (
	"strconv"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/usfm"
	"github.com/bibleplatform/platform/versification"
)

// TestUHBNumbers: the UHB's 2,038 \va and 38 \ca numbers show in the
// HTML of its verses (the \ca one with the next verse's number), and no
// number is text: the Hebrew text has no ASCII digit at all.
func TestUHBNumbers(t *testing.T) {
	va, ca := 0, 0
	for _, b := range renderBible(t, "hbo-uhb", "hbo") {
		for ci, ch := range b.Chapters {
			for vi, v := range ch.Verses {
				for _, s := range v {
					va += strings.Count(s.HTML, `<span class="va">`)
					ca += strings.Count(s.HTML, `<span class="ca">`)
					if n := strings.Count(s.Notes, `<span class="va">`) + strings.Count(s.Notes, `<span class="ca">`); n != strings.Count(s.HTML, `<span class="va">`)+strings.Count(s.HTML, `<span class="ca">`) {
						t.Errorf("%s: the notes version shows %d numbers, the HTML another count", b.Index.Chapters[ci].Verses[vi].PassageID, n)
					}
					if strings.ContainsAny(s.Text, "0123456789") {
						t.Errorf("%s: a number in the text %q", b.Index.Chapters[ci].Verses[vi].PassageID, s.Text)
					}
				}
			}
		}
	}
	if va != 2038 || ca != 38 {
		t.Errorf("%d va and %d ca numbers in the HTML, want the source's 2038 and 38", va, ca)
	}
}

// TestVerseHTMLAlternate: small cases of the alternate numbering.
func TestVerseHTMLAlternate(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"title verses", "\\id PSA\n\\c 3\n\\d \\va 1\\va* A psalm.\n\\p \\v 1 \\va 2\\va* Lord.\n\\v 2 \\va 3\\va* Many.",
			`PSA.3.1:<div class="d"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>A psalm.</div>` +
				`|PSA.3.2:<div class="p"><span class="yv-v" v="2"></span><span class="yv-vlbl">2</span><span class="va">1</span>Lord.</div>` +
				`|PSA.3.3:<div class="p"><span class="yv-v" v="3"></span><span class="yv-vlbl">3</span><span class="va">2</span>Many.</div>`},
		{"a chapter continued", "\\id MAL\n\\c 3\n\\p \\v 1 One.\n\\c 4\n\\p \\v 1 \\va 3:2\\va* Two.",
			`MAL.3.1:<div class="p"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>One.</div>` +
				`|MAL.3.2:<div class="p"><span class="yv-v" v="2"></span><span class="yv-vlbl">2</span><span class="va">4:1</span>Two.</div>`},
		{"a chapter started by ca", "\\id GEN\n\\c 31\n\\p \\v 1 One.\n\\ca 32\\ca*\n\\p \\v 2 \\va 32:1\\va* Two.\n\\c 32\n\\p \\v 1 \\va 2\\va* Three.",
			`GEN.31.1:<div class="p"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>One.</div>` +
				`|GEN.32.1:<div class="p"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span><span class="ca">31</span><span class="va">31:2</span>Two.</div>` +
				`|GEN.32.2:<div class="p"><span class="yv-v" v="2"></span><span class="yv-vlbl">2</span><span class="va">1</span>Three.</div>`},
		{"a chapter started inside a paragraph", "\\id JOL\n\\c 2\n\\p \\v 1 One. \\v 2 \\va 3:1\\va* Two.",
			`JOL.2.1:<div class="p"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>One.</div>` +
				`|JOL.3.1:<div class="p"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span><span class="ca">2</span><span class="va">2:2</span>Two.</div>`},
	} {
		b, err := usfm.Parse("t.usfm", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		rb, err := Render(b, Options{Language: "en", File: "t.usfm", Alternate: true})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got []string
		for ci, ch := range rb.Chapters {
			for vi, v := range ch.Verses {
				got = append(got, rb.Index.Chapters[ci].Verses[vi].PassageID+":"+bible.ComposeHTML(v, false, false)[len("<div>"):len(bible.ComposeHTML(v, false, false))-len("</div>")])
			}
		}
		if g := strings.Join(got, "|"); g != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, g, tc.want)
		}
	}
}

// TestUHBAlternate publishes the UHB in the numbering of its \va and \ca
// markers: every chapter then has the verses org.vrs gives it (the
// Hebrew numbering), "Create in me a clean heart" is PSA 51:12, Malachi
// has three chapters, and Joel four.
func TestUHBAlternate(t *testing.T) {
	org, _ := versification.Standard(versification.Org)
	eng := map[string]string{} // passage id → text, in the \v numbering
	for _, b := range renderBible(t, "hbo-uhb", "hbo") {
		for ci, ch := range b.Chapters {
			for vi, v := range ch.Verses {
				eng[b.Index.Chapters[ci].Verses[vi].PassageID] = bible.ComposeText(v)
			}
		}
	}
	heb := map[string]string{}
	hebIndex := &bible.Index{}
	chapters := 0
	for _, pb := range parseBible(t, "hbo-uhb") {
		b, err := Render(pb, Options{Language: "hbo", File: pb.ID, Alternate: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range b.Warnings {
			if w.Sev == usfm.Damage {
				t.Errorf("%v", w)
			}
		}
		hebIndex.Books = append(hebIndex.Books, b.Index)
		if n, want := len(b.Index.Chapters), org.Chapters(b.Index.ID); n != want {
			t.Errorf("%s: %d chapters, org.vrs has %d", b.Index.ID, n, want)
		}
		for ci, ch := range b.Index.Chapters {
			chapters++
			c, _ := strconv.Atoi(ch.ID)
			want := org.LastVerse(b.Index.ID, c)
			for i, v := range ch.Verses {
				if v.ID != strconv.Itoa(i+1) {
					t.Errorf("%s: verse %d is %s", ch.PassageID, i+1, v.ID)
					break
				}
			}
			if len(ch.Verses) != want {
				t.Errorf("%s: %d verses, org.vrs gives it %d", ch.PassageID, len(ch.Verses), want)
			}
			for vi, v := range b.Chapters[ci].Verses {
				heb[ch.Verses[vi].PassageID] = bible.ComposeText(v)
			}
		}
	}
	if chapters != 929 {
		t.Errorf("%d chapters, want the Hebrew Bible's 929", chapters)
	}
	for _, tc := range []struct{ heb, eng string }{
		{"PSA.51.12", "PSA.51.10"}, {"PSA.51.3", "PSA.51.1"}, {"MAL.3.19", "MAL.4.1"}, {"MAL.3.24", "MAL.4.6"},
		{"JOL.3.1", "JOL.2.28"}, {"JOL.4.21", "JOL.3.21"}, {"GEN.32.1", "GEN.31.55"}, {"GEN.1.1", "GEN.1.1"},
	} {
		if heb[tc.heb] == "" || heb[tc.heb] != eng[tc.eng] {
			t.Errorf("Hebrew %s = %q, want the \\v numbering's %s %q", tc.heb, heb[tc.heb], tc.eng, eng[tc.eng])
		}
	}
	// The title's two verses are the heading of the \v numbering.
	if !strings.Contains(heb["PSA.51.1"], "מִזְמ֥וֹר") {
		t.Errorf("PSA.51.1 = %q, want the title", heb["PSA.51.1"])
	}
	if _, ok := heb["MAL.4.1"]; ok {
		t.Error("MAL.4.1 exists in the Hebrew numbering")
	}
	// An English Bible's passages map to these through the schemes.
	engScheme, _ := versification.Standard(versification.Eng)
	for _, tc := range []struct{ from, want string }{
		{"PSA.51.10", "PSA.51.12"}, {"PSA.51.1", "PSA.51.3"}, {"PSA.51.0", "PSA.51.1-2"}, {"PSA.51", "PSA.51"},
		{"MAL.4", "MAL.3.19-24"}, {"JOL.2.28-32", "JOL.3.1-5"}, {"JOL.3", "JOL.4"},
	} {
		got, err := versification.AppendInto(nil, engScheme, org, bible.MustParseRef(tc.from), hebIndex)
		var ids []string
		for _, r := range got {
			ids = append(ids, r.String())
		}
		if err != nil || strings.Join(ids, ",") != tc.want {
			t.Errorf("English %s in the Hebrew numbering = %v (%v), want %s", tc.from, ids, err, tc.want)
		}
	}
}
