package content

import (
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/publish"
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

// TestVariantResolve: the passage rules, applied in one place. A whole
// chapter or introduction defaults to headings and notes where the
// toggles were not given (rule 2); text has neither (rule 1).
func TestVariantResolve(t *testing.T) {
	for _, tc := range []struct {
		v     variant
		whole bool
		want  string
	}{
		{variant{}, false, "text"},
		{variant{}, true, "text"},
		{variant{headings: true, hSet: true, notes: true, nSet: true}, true, "text"},
		{variant{html: true}, false, "html"},
		{variant{html: true}, true, "html-hn"},
		{variant{html: true, hSet: true}, true, "html-n"},
		{variant{html: true, nSet: true}, true, "html-h"},
		{variant{html: true, hSet: true, nSet: true}, true, "html"},
		{variant{html: true, headings: true, hSet: true}, false, "html-h"},
		{variant{html: true, notes: true, nSet: true}, false, "html-n"},
	} {
		html, headings, notes := tc.v.resolve(tc.whole)
		if got := publish.Variant(html, headings, notes); got != tc.want {
			t.Errorf("%+v.resolve(%t) = %s, want %s", tc.v, tc.whole, got, tc.want)
		}
		if !html && (headings || notes) {
			t.Errorf("%+v.resolve(%t): text with headings %t, notes %t", tc.v, tc.whole, headings, notes)
		}
	}
}
