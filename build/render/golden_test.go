package render

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/usfm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenCases are small books written for these tests, one feature group
// each. The golden file shows the index entry, every segment of every verse,
// and the composed chapters.
var goldenCases = []struct {
	name, lang, src string
}{
	{"headings_notes", "en", `\id MAT test
\h Matthew
\toc1 The Good News According to Matthew
\toc2 Matthew
\toc3 Mat
\mt1 Matthew
\c 1
\s1 The Genealogy of Jesus
\r (Luke 3:23–38)
\p
\v 1 The book of the genealogy of Jesus Christ,\f + \fr 1:1 \ft Messiah (Hebrew) and Christ (Greek) both mean “Anointed One”\f* the son of David.\x - \xo 1:1 \xt Gen 22:18\x*
\v 2 Abraham became the father of Isaac & Jacob <sic>.
\s2 A second heading
\p
\v 3 Judah became the father of Perez.
\c 2
\ms BOOK II
\d A Psalm.\f + \fr 2:0 \ft Or, a song\f*
\p
\v 1 Now when Jesus was born.
`},
	{"poetry_wj", "en", `\id JHN test
\toc2 John
\c 3
\q1
\v 16 \wj “For God so loved the world,\wj*
\q2 \wj that he gave his \+nd only\+nd* Son.\wj*
\v 17 \wj For God didn’t send his Son\wj* into the world.
\b
\q1
\v 18 \w He|strong="G3588"\w* who believes \qs Selah.\qs*
\nb \add not\add* condemned.
\p Jesus said, \wj “Come.
\v 19 Go.”\wj*
`},
	{"numbers", "en", `\id PS2 test
\h Psalm 151
\c 1
\cp 151
\d This Psalm is a genuine one of David.
\q1
\v 1 I was small.
\v 2-3 My hands formed an instrument.
\v 4 \vp 4a\vp* Who shall tell my Lord?
\v 4 The Lord himself hears.
`},
	{"table", "en", `\id NUM test
\toc2 Numbers
\c 7
\p
\v 12 The offerings were:
\tr \th1 Tribe \th2 Leader
\tr \tc1 Judah \tc2 Nahshon
\tr \tc1 \v 13 Issachar \tc2 Nethanel
\p
\v 14 One golden ladle.
`},
	{"before_first_verse", "en", `\id PSA test
\toc2 Psalms
\c 1
\s1 The Two Paths
\b
\q1 Blessed is the man
\q2 who does not walk in the counsel of the \add wicked\add*,
\q1
\v 2 But his delight is in the Law.
\c 2
\p A Prayer.\f + \fr 2:0 \ft a title\f* \v 1 I will give thanks.
\c 3
\p
\v 1 a \f + \ft note \xt ref.\*b \bd c \+it d\* e\bd* f
`},
	{"intro", "es", `\id TOB test
\toc2 Tobías
\mt1 Tobías
\imt1 Introducción a Tobías
\is1 Autor
\ip El libro de \bk Tobías\bk* es deuterocanónico.\f + \fr 0 \ft nota\f*
\iot Contenido
\io1 Tobit 1–3
\ie
\c 1
\p
\v 1 El libro de las palabras de Tobit.
`},
	{"intro_untitled", "he", `\id RUT test
\toc2 רות
\ip מבוא קצר.
\c 1
\p
\v 1 ויהי.
`},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := usfm.Parse(tc.name+".usfm", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			rb, err := Render(b, Options{Language: tc.lang, File: tc.name + ".usfm"})
			if err != nil {
				t.Fatal(err)
			}
			got := dump(rb)
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs; run go test -run TestGolden -update and review the diff.\ngot:\n%s", path, got)
			}
			if errs := checkSegments(tc.name, rb.Intro); len(errs) > 0 {
				t.Error(errs)
			}
			for _, ch := range rb.Chapters {
				for _, v := range ch.Verses {
					if errs := append(checkSegments(tc.name, v), checkRun(tc.name, v)...); len(errs) > 0 {
						t.Error(errs)
					}
				}
			}
		})
	}
}

// dump prints a rendered book for review.
func dump(rb *Book) []byte {
	var b bytes.Buffer
	idx, _ := json.MarshalIndent(rb.Index, "", "  ")
	fmt.Fprintf(&b, "== index\n%s\n", idx)
	segs := func(segs []bible.Segment) {
		for _, s := range segs {
			fmt.Fprintf(&b, "-- para %d class %q heading %v\nhtml:  %s\nnotes: %s\ntext:  %q\n",
				s.Para, s.Class, s.Heading, s.HTML, s.Notes, s.Text)
		}
	}
	if rb.Intro != nil {
		fmt.Fprintf(&b, "\n== %s\n", rb.Index.Intro.PassageID)
		segs(rb.Intro)
		fmt.Fprintf(&b, "== html\n%s\n== text\n%s\n", bible.ComposeHTML(rb.Intro, true, true), bible.ComposeText(rb.Intro))
	}
	for ci, ch := range rb.Chapters {
		var all []bible.Segment
		for vi, v := range ch.Verses {
			fmt.Fprintf(&b, "\n== %s\n", rb.Index.Chapters[ci].Verses[vi].PassageID)
			segs(v)
			fmt.Fprintf(&b, "== html\n%s\n", bible.ComposeHTML(v, false, false))
			all = append(all, v...)
		}
		fmt.Fprintf(&b, "\n== %s html (headings, notes)\n%s\n", rb.Index.Chapters[ci].PassageID, bible.ComposeHTML(all, true, true))
		fmt.Fprintf(&b, "== %s text\n%s\n", rb.Index.Chapters[ci].PassageID, bible.ComposeText(all))
	}
	for _, w := range rb.Warnings {
		fmt.Fprintf(&b, "\nwarning: %s\n", w)
	}
	return b.Bytes()
}
