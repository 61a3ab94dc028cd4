package render

import (
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/usfm"
)

// verseSegs returns the segments of book.chapter.verse, failing the test
// when the verse is not published.
func verseSegs(t *testing.T, b *Book, chapter, verse string) []bible.Segment {
	t.Helper()
	for ci, c := range b.Index.Chapters {
		if c.ID != chapter {
			continue
		}
		if i := c.VerseIndex(verse); i >= 0 {
			return b.Chapters[ci].Verses[i]
		}
	}
	t.Fatalf("%s.%s.%s is not published", b.Index.ID, chapter, verse)
	return nil
}

// chapterSegs returns every segment of a chapter, as the chapter's passage
// is composed.
func chapterSegs(b *Book, chapter string) []bible.Segment {
	var out []bible.Segment
	for ci, c := range b.Index.Chapters {
		if c.ID == chapter {
			for _, v := range b.Chapters[ci].Verses {
				out = append(out, v...)
			}
		}
	}
	return out
}

// repairs counts a Bible's repairs of one class, by book.
func repairs(books []*Book, class string) map[string]int {
	n := map[string]int{}
	for _, b := range books {
		for _, w := range b.Warnings {
			if w.Sev == usfm.Repaired && w.Class == class {
				n[string(b.Index.ID)]++
			}
		}
	}
	return n
}

// TestTextInTheRightVerse checks, on the shared Bibles, the three places
// where text used to be published in the wrong verse.
func TestTextInTheRightVerse(t *testing.T) {
	if testing.Short() {
		t.Skip("renders whole Bibles")
	}
	t.Run("BSB psalms without \\v 1", func(t *testing.T) {
		books := renderBible(t, "eng-bsb", "en")
		if got := repairs(books, ImpliedVerse1); len(got) != 1 || got["PSA"] != 34 {
			t.Errorf("implied verse 1 repaired %v; want 34 in PSA (SOURCES.md: 34 psalms have no \\v 1)", got)
		}
		psa := findBook(books, "PSA")
		for _, tc := range []struct{ chapter, verse, text string }{
			{"1", "1", "Blessed is the man\nwho does not walk in the counsel of the wicked,\nor set foot on the path of sinners,\nor sit in the seat of mockers."},
			{"1", "2", "But his delight is in the Law of the LORD,\nand on His law he meditates day and night."},
			{"2", "1", "Why do the nations rage\nand the peoples plot in vain?"},
			{"150", "1", "Hallelujah!\nPraise God in His sanctuary.\nPraise Him in His mighty heavens."},
		} {
			if got := bible.ComposeText(verseSegs(t, psa, tc.chapter, tc.verse)); got != tc.text {
				t.Errorf("PSA.%s.%s text %q; want %q", tc.chapter, tc.verse, got, tc.text)
			}
		}
		const label = `<span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>Blessed is the man`
		if got := bible.ComposeHTML(verseSegs(t, psa, "1", "1"), true, false); !strings.Contains(got, label) || !strings.Contains(got, `<div class="s1 yv-h">The Two Paths</div>`) {
			t.Errorf("PSA.1.1 HTML lacks its label or its heading:\n%s", got)
		}
	})
	t.Run("WEB SIR 51's title", func(t *testing.T) {
		books := renderBible(t, "eng-web", "en")
		if got := repairs(books, ChapterTitle); len(got) != 1 || got["SIR"] != 1 {
			t.Errorf("chapter titles repaired %v; want 1 in SIR", got)
		}
		if got := repairs(books, ImpliedVerse1); len(got) != 0 {
			t.Errorf("implied verse 1 repaired %v; want none", got)
		}
		sir := findBook(books, "SIR")
		const title = "A Prayer of Jesus the son of Sirach."
		v1 := verseSegs(t, sir, "51", "1")
		if got := bible.ComposeText(v1); !strings.HasPrefix(got, "I will give thanks to you, O Lord, O King,") {
			t.Errorf("SIR.51.1 text %q", got)
		}
		if got := bible.ComposeHTML(v1, false, true); strings.Contains(got, title) {
			t.Errorf("SIR.51.1 without headings holds the title:\n%s", got)
		}
		if got := bible.ComposeHTML(chapterSegs(sir, "51"), true, false); !strings.HasPrefix(got, `<div><div class="d yv-h">`+title+`</div><div class="q1"><span class="yv-v" v="1">`) {
			t.Errorf("SIR 51 with headings does not open with its title:\n%.300s", got)
		}
	})
	t.Run("KJV 1611 EST 2:21's bare \\*", func(t *testing.T) {
		bare := 0
		for _, b := range parseBible(t, "eng-kjv1611") {
			for _, w := range b.Warnings {
				if w.Class == usfm.BareClose {
					bare++
				}
			}
		}
		if bare != 1 {
			t.Errorf("%d bare \\* repaired; want 1", bare)
		}
		books := renderBible(t, "eng-kjv1611", "en")
		segs := verseSegs(t, findBook(books, "EST"), "2", "21")
		const want = "¶ In those dayes, (while Mordecai sate in the kings gate) two of the kings chamberlens, Bigthan and Teresh, of those which kept the doore, were wroth, and sought to lay hand on the king Ahasuerus:"
		if got := bible.ComposeText(segs); got != want {
			t.Errorf("EST.2.21 text\n got %q\nwant %q", got, want)
		}
		notes := bible.ComposeHTML(segs, false, true)
		for _, n := range []string{
			`<span class="yv-n f"><span class="fr">2:21 </span><span class="ft">Or, Bigthana. </span><span class="xt">chap. 6.2.</span></span>Bigthan`,
			`<span class="yv-n f"><span class="fr">2:21 </span><span class="ft">Heb. the threshold.</span></span>the doore`,
		} {
			if !strings.Contains(notes, n) {
				t.Errorf("EST.2.21 with notes lacks %s:\n%s", n, notes)
			}
		}
	})
	t.Run("no other Bible has text before a first verse", func(t *testing.T) {
		for _, name := range []string{"eng-kjv1611", "spa-rv1909", "hbo-uhb"} {
			books := renderBible(t, name, "en")
			for _, class := range []string{ImpliedVerse1, ChapterTitle} {
				if got := repairs(books, class); len(got) != 0 {
					t.Errorf("%s: %q repaired %v", name, class, got)
				}
			}
		}
	})
}
