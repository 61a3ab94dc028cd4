package render

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/versification"
)

// TestVerseOfTheDayInSharedBibles maps every day of the fixtures' verse of
// the day calendar (English numbering) into each shared Bible's own
// numbering, the UHB both in its \v numbering and in its Hebrew one, and
// checks that the passage is verses the Bible has. A day whose book the
// Bible does not have (Tobit, in the Bibles without the deuterocanon) is
// counted apart: no numbering can answer it. In the UHB's Hebrew
// numbering each day's verse must hold the text its \v numbering gives
// the calendar's verse (PSA 3:3 is Hebrew 3:4).
func TestVerseOfTheDayInSharedBibles(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repotest.Root(t), "fixtures", "content", "verse_of_the_day.json"))
	if err != nil {
		t.Fatal(err)
	}
	var days []struct {
		Day       int    `json:"day"`
		PassageID string `json:"passage_id"`
	}
	if err := json.Unmarshal(data, &days); err != nil {
		t.Fatal(err)
	}
	if len(days) != 366 {
		t.Fatalf("%d days in the calendar, want 366", len(days))
	}
	books := map[bible.BookID]bool{}
	for _, d := range days {
		books[bible.MustParseRef(d.PassageID).Book] = true
	}
	var uhbEnglish map[string]string // the UHB's verse texts in its \v numbering
	eng, _ := versification.Standard(versification.Eng)
	org, _ := versification.Standard(versification.Org)
	for _, tc := range []struct {
		name, dir, lang string
		scheme          *versification.Scheme
		alternate       bool
		// absent is how many days name a book the Bible does not have.
		absent int
	}{
		{"WEB", "eng-web", "en", eng, false, 0},
		{"BSB", "eng-bsb", "en", eng, false, 24},
		{"KJV 1611", "eng-kjv1611", "en", eng, false, 0},
		{"RV 1909", "spa-rv1909", "es", eng, false, 24},
		{"UHB", "hbo-uhb", "hbo", eng, false, 178}, // no New Testament
		{"UHB in Hebrew numbering", "hbo-uhb", "hbo", org, true, 178},
	} {
		index := &bible.Index{}
		texts := map[string]string{}
		for _, pb := range parseBible(t, tc.dir) {
			if !books[bible.BookID(pb.ID)] {
				continue
			}
			b, err := Render(pb, Options{Language: tc.lang, File: pb.ID, Alternate: tc.alternate})
			if err != nil {
				t.Fatal(err)
			}
			index.Books = append(index.Books, b.Index)
			for ci, ch := range b.Chapters {
				for vi, v := range ch.Verses {
					texts[b.Index.Chapters[ci].Verses[vi].PassageID] = bible.ComposeText(v)
				}
			}
		}
		absent, mapped := 0, 0
		for _, d := range days {
			r := bible.MustParseRef(d.PassageID)
			b := index.Book(r.Book)
			if b == nil {
				absent++
				continue
			}
			refs, err := versification.AppendInto(nil, eng, tc.scheme, r, index)
			if err != nil || len(refs) == 0 {
				t.Errorf("%s: day %d, %s: %v (%v)", tc.name, d.Day, d.PassageID, refs, err)
				continue
			}
			for _, got := range refs {
				if _, err := b.Span(got); err != nil {
					t.Errorf("%s: day %d, %s is %s, which the Bible does not have: %v", tc.name, d.Day, d.PassageID, got, err)
				}
				if got != r {
					mapped++
				}
				if tc.alternate && (len(refs) != 1 || texts[got.String()] == "" || texts[got.String()] != uhbEnglish[d.PassageID]) {
					t.Errorf("%s: day %d, %s is %v: %q, want the \\v numbering's %q", tc.name, d.Day, d.PassageID, refs, texts[got.String()], uhbEnglish[d.PassageID])
				}
			}
		}
		if absent != tc.absent {
			t.Errorf("%s: %d days name a book the Bible lacks, want %d", tc.name, absent, tc.absent)
		}
		if tc.name == "UHB" {
			uhbEnglish = texts
		}
		t.Logf("%s: %d days resolve (%d renumbered), %d name a book it lacks", tc.name, len(days)-absent, mapped, absent)
	}
}
