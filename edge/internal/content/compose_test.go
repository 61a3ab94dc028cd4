package content

import (
	"testing"

	"github.com/bibleplatform/platform/bible"
)

// The composed cache's key names the build, the Bible, the id as sent and
// the variant; text ignores headings and notes (passage rule 1), so the
// three spellings of a text request share one entry.
func TestComposedKey(t *testing.T) {
	for _, tc := range []struct {
		html, headings, notes bool
		want                  string
	}{
		{false, false, false, "range/b1/9001/JHN.3.16-18/text"},
		{false, true, true, "range/b1/9001/JHN.3.16-18/text"},
		{true, false, false, "range/b1/9001/JHN.3.16-18/html"},
		{true, true, false, "range/b1/9001/JHN.3.16-18/html-h"},
		{true, true, true, "range/b1/9001/JHN.3.16-18/html-hn"},
	} {
		if got := string(composedKey(nil, "b1", 9001, []byte("JHN.3.16-18"), tc.html, tc.headings, tc.notes)); got != tc.want {
			t.Errorf("composedKey(html %t, headings %t, notes %t) = %q, want %q", tc.html, tc.headings, tc.notes, got, tc.want)
		}
	}
}

// A chapter is named by its number, or by its title where its id is not a
// number.
func TestChapterLabel(t *testing.T) {
	for _, tc := range []struct {
		ch   bible.Chapter
		want string
	}{
		{bible.Chapter{ID: "3", Title: "Chapter 3"}, "3"},
		{bible.Chapter{ID: "1_1", Title: "151"}, "151"},
		{bible.Chapter{ID: "1_1"}, "1_1"},
	} {
		if got := ChapterLabel(&tc.ch); got != tc.want {
			t.Errorf("ChapterLabel(%+v) = %q, want %q", tc.ch, got, tc.want)
		}
	}
}
