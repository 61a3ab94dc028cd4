package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/usfm"
)

// TestDamageAndRepairs checks the structural defects the renderer finds:
// damage an import refuses, repairs it counts, with their places.
func TestDamageAndRepairs(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		sev       usfm.Severity
		at, msg   string
	}{
		{"repeated verse", "\\id JHN\n\\c 1\n\\p \\v 1 a \\v 2 b\n\\p \\v 2 c", usfm.Damage, "4:4", "verse 2 repeated in chapter 1"},
		{"verse out of order", "\\id JHN\n\\c 1\n\\p \\v 1 a \\v 3 b\n\\p \\v 2 c", usfm.Damage, "4:4", "verse 2 after verse 3 in chapter 1: out of order"},
		{"repeated chapter", "\\id JHN\n\\c 1\n\\p \\v 1 a\n\\c 1\n\\p \\v 2 c", usfm.Damage, "4:1", "chapter 1 repeated"},
		{"text in a chapter without verses", "\\id JHN\n\\c 1\n\\p \\v 1 a\n\\c 2\n\\p lost words\n\\c 3\n\\p \\v 1 b", usfm.Damage, "5:1", "text in chapter 2, which has no verse"},
		{"text before verse 1", "\\id SIR\n\\c 51\n\\p A Prayer of Jesus.\n\\q1\n\\v 1 I will", usfm.Repaired, "3:1", "text before verse 1 of chapter 51 read as the chapter's title"},
		{"a psalm without verse 1", "\\id PSA\n\\c 1\n\\q1 Blessed is the man\n\\q1\n\\v 2 But", usfm.Repaired, "3:1", `chapter 1 has text before its first verse marker, \v 2, and no \v 1: that text read as verse 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rb := renderSrc(t, tc.src, Options{File: "f.usfm"})
			var found *usfm.Diag
			for i, w := range rb.Warnings {
				if strings.Contains(w.Msg, tc.msg) {
					found = &rb.Warnings[i]
				}
			}
			if found == nil {
				t.Fatalf("no diagnostic %q in %v", tc.msg, rb.Warnings)
			}
			if found.Sev != tc.sev || !strings.HasPrefix(found.Error(), "f.usfm:"+tc.at+": ") {
				t.Errorf("%v (%v); want %v at %s", found, found.Sev, tc.sev, tc.at)
			}
			if found.Sev == usfm.Repaired && found.Class == "" {
				t.Errorf("%v: a repair without a class", found)
			}
		})
	}
	t.Run("headings before verse 1 are no orphan text", func(t *testing.T) {
		rb := renderSrc(t, "\\id PSA\n\\c 3\n\\s1 Head\n\\d A Psalm.\n\\b\n\\q1 \\v 1 LORD", Options{})
		for _, w := range rb.Warnings {
			t.Errorf("unexpected %v", w)
		}
	})
}

// TestCaps checks that a book beyond the documented caps is refused with
// the place where it went beyond them.
func TestCaps(t *testing.T) {
	var verses, chapters strings.Builder
	verses.WriteString("\\id JHN\n\\c 1\n\\p\n")
	for v := 1; v <= bible.MaxVerses+1; v++ {
		fmt.Fprintf(&verses, "\\v %d a\n", v)
	}
	chapters.WriteString("\\id JHN\n")
	for c := 1; c <= bible.MaxChapters+1; c++ {
		fmt.Fprintf(&chapters, "\\c %d\n\\p \\v 1 a\n", c)
	}
	long := "\\id JHN\n\\c 1\n\\p \\v 1 " + strings.Repeat("word ", bible.MaxVerseBytes/5) + "\n\\p more\n"
	for _, tc := range []struct{ name, src, want string }{
		{"verses per chapter", verses.String(), fmt.Sprintf("f.usfm:%d:1: more than %d verses in chapter 1", bible.MaxVerses+4, bible.MaxVerses)},
		{"chapters per book", chapters.String(), fmt.Sprintf("f.usfm:%d:1: more than %d chapters", 2*bible.MaxChapters+2, bible.MaxChapters)},
		{"bytes per verse", long, fmt.Sprintf("f.usfm:3:1: a verse renders to more than %d bytes", bible.MaxVerseBytes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := usfm.Parse("f.usfm", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Render(b, Options{File: "f.usfm"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v; want %q", err, tc.want)
			}
		})
	}
}
