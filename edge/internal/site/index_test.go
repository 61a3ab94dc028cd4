package site

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/bibleplatform/platform/bible"
)

// TestDecodeIndex: the kept index has every book as decoded, each
// chapter's id and title, and each verse's id (and nothing else of the
// verse); numbered ids, and chapter titles that are numbers, are the
// constant's, others as decoded; bridges set afterwards still land.
func TestDecodeIndex(t *testing.T) {
	full := bible.Index{TextDirection: "ltr", Books: []bible.Book{
		{ID: "PSA", Title: "Psalms", Canon: "ot", Chapters: []bible.Chapter{
			{ID: "119", PassageID: "PSA.119", Title: "119", Verses: []bible.Verse{
				{ID: "1", PassageID: "PSA.119.1", Title: "Psalms 119:1"},
				{ID: "176", PassageID: "PSA.119.176", Title: "Psalms 119:176"},
			}},
		}},
		{ID: "EST", Title: "Esther", Canon: "ot", Chapters: []bible.Chapter{
			{ID: "1", PassageID: "EST.1", Title: "One", Verses: []bible.Verse{
				{ID: "1a", PassageID: "EST.1.1a", Title: "Esther 1:1a"},
				{ID: "15", PassageID: "EST.1.15", Title: "Esther 1:15"},
				{ID: "201", PassageID: "EST.1.201", Title: "Esther 1:201"},
				{ID: "07", PassageID: "EST.1.07", Title: "Esther 1:07"},
			}},
		}},
		{ID: "PS2", Title: "Psalm 151", Canon: "dc", Chapters: []bible.Chapter{
			{ID: "1_1", PassageID: "PS2.1_1", Title: "151", Verses: []bible.Verse{
				{ID: "1", PassageID: "PS2.1_1.1", Title: "Psalm 151:1"},
			}},
		}},
	}}
	body, err := json.Marshal(&full)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeIndex(body)
	if err != nil {
		t.Fatal(err)
	}
	want := full
	want.Books = nil
	for _, b := range full.Books {
		b.Chapters = append([]bible.Chapter(nil), b.Chapters...)
		for j := range b.Chapters {
			c := &b.Chapters[j]
			c.PassageID = ""
			var vs []bible.Verse
			for _, v := range c.Verses {
				vs = append(vs, bible.Verse{ID: v.ID})
			}
			c.Verses = vs
		}
		want.Books = append(want.Books, b)
	}
	if !reflect.DeepEqual(got, &want) {
		t.Fatalf("got %+v\nwant %+v", got, &want)
	}
	for _, tc := range []struct {
		b, c, v int
		heap    bool
	}{
		{0, 0, 0, false}, {0, 0, 1, false}, // 1, 176
		{1, 0, 0, true}, {1, 0, 1, false}, {1, 0, 2, true}, {1, 0, 3, true}, // 1a, 15, 201, 07
	} {
		id := got.Books[tc.b].Chapters[tc.c].Verses[tc.v].ID
		if h := onHeap(id); h != tc.heap {
			t.Errorf("verse %q on the heap: got %v, want %v", id, h, tc.heap)
		}
	}
	for _, tc := range []struct {
		b         int
		id, title bool // on the heap
	}{
		{0, false, false}, // 119, titled 119
		{1, false, true},  // 1, titled One
		{2, true, false},  // 1_1, titled 151
	} {
		c := &got.Books[tc.b].Chapters[0]
		if onHeap(c.ID) != tc.id || onHeap(c.Title) != tc.title {
			t.Errorf("chapter %q titled %q on the heap: got %v %v, want %v %v",
				c.ID, c.Title, onHeap(c.ID), onHeap(c.Title), tc.id, tc.title)
		}
	}
	// One array for all the verses, each chapter's part of it clipped, so
	// that a bridge written into one chapter stays there.
	if err := got.SetBridges(bible.Bridges{"PSA.119.1": "2"}); err != nil {
		t.Fatal(err)
	}
	if v := got.Books[0].Chapters[0].Verses[0]; v.End != "2" {
		t.Errorf("bridge: got %+v", v)
	}
	if c := got.Books[0].Chapters[0].Verses; cap(c) != len(c) {
		t.Errorf("chapter's verses: len %d cap %d", len(c), cap(c))
	}
}

// TestVerseNumber: every number the constant holds reads back as itself.
func TestVerseNumber(t *testing.T) {
	for n := 1; n <= maxVerseNumber; n++ {
		if got, want := verseNumber[n], strconv.Itoa(n); got != want {
			t.Fatalf("verseNumber[%d] = %q", n, got)
		}
	}
}
