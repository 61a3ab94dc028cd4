package render

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
)

// TestIndexMatchesLiveWEB renders the WEB and compares it with the index the
// live service publishes for it (bible 206): every book the reference lists,
// with its titles, canon, chapters and verses. The reference has no intros;
// we add them, so Intro is not compared.
func TestIndexMatchesLiveWEB(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(sharedDir(t), "reference", "youversion-fixtures", "bible_206_index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref bible.Index
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Books) != 80 {
		t.Fatalf("reference has %d books, want 80", len(ref.Books))
	}
	books := renderBible(t, "eng-web", "en")
	verses := 0
	var bridges []string
	for _, want := range ref.Books {
		b := findBook(books, string(want.ID))
		if b == nil {
			t.Errorf("%s: not rendered", want.ID)
			continue
		}
		for _, c := range b.Index.Chapters {
			for _, v := range c.Verses {
				if v.End != "" {
					bridges = append(bridges, v.PassageID+"-"+v.End)
				}
			}
		}
		diffs := diffBook(&b.Index, &want)
		for i, d := range diffs {
			if i == 5 {
				t.Errorf("%s: … %d differences in all", want.ID, len(diffs))
				break
			}
			t.Errorf("%s: %s", want.ID, d)
		}
		for _, c := range want.Chapters {
			verses += len(c.Verses)
		}
	}
	if verses != 37528 {
		t.Errorf("compared %d verses, want the reference's 37528", verses)
	}
	// The WEB's bridges (\v 15-16): one verse each, where the index
	// records its end.
	if got, want := strings.Join(bridges, " "), "SIR.11.15-16 SIR.16.15-16 SIR.19.18-19 SIR.22.9-10 SIR.26.19-27 4MA.8.28-29"; got != want {
		t.Errorf("bridges %s, want %s", got, want)
	}
}

// diffBook lists how got differs from want, ignoring Intro.
func diffBook(got, want *bible.Book) []string {
	var d []string
	field := func(name, g, w string) {
		if g != w {
			d = append(d, fmt.Sprintf("%s = %q, want %q", name, g, w))
		}
	}
	field("id", string(got.ID), string(want.ID))
	field("title", got.Title, want.Title)
	field("full_title", got.FullTitle, want.FullTitle)
	field("abbreviation", got.Abbreviation, want.Abbreviation)
	field("canon", string(got.Canon), string(want.Canon))
	if len(got.Chapters) != len(want.Chapters) {
		d = append(d, fmt.Sprintf("%d chapters, want %d", len(got.Chapters), len(want.Chapters)))
	}
	for i := 0; i < len(got.Chapters) && i < len(want.Chapters); i++ {
		gc, wc := &got.Chapters[i], &want.Chapters[i]
		at := fmt.Sprintf("chapter[%d]", i)
		field(at+".id", gc.ID, wc.ID)
		field(at+".title", gc.Title, wc.Title)
		field(at+".passage_id", gc.PassageID, wc.PassageID)
		if len(gc.Verses) != len(wc.Verses) {
			d = append(d, fmt.Sprintf("%s: %d verses, want %d", at, len(gc.Verses), len(wc.Verses)))
		}
		for j := 0; j < len(gc.Verses) && j < len(wc.Verses); j++ {
			gv, wv := gc.Verses[j], wc.Verses[j]
			gv.End = "" // the live index has no field for a bridge's end
			if gv != wv {
				d = append(d, fmt.Sprintf("%s.verse[%d] = %+v, want %+v", at, j, gv, wv))
			}
		}
	}
	return d
}

func TestDiffBookFindsDifferences(t *testing.T) {
	// The comparison itself must be able to fail.
	a := bible.Book{ID: "GEN", Title: "Genesis", Chapters: []bible.Chapter{{ID: "1", Verses: []bible.Verse{{ID: "1"}}}}}
	b := a
	b.Chapters = []bible.Chapter{{ID: "1", Verses: []bible.Verse{{ID: "2"}}}}
	if len(diffBook(&a, &a)) != 0 {
		t.Error("a book differs from itself")
	}
	if len(diffBook(&a, &b)) == 0 {
		t.Error("different verse ids not reported")
	}
}
