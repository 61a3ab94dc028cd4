package search_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/bibleplatform/platform/search"
)

// readerWords splits a verse as a reader of unpointed Hebrew sees it:
// words between spaces, the maqaf and punctuation, written without points
// or cantillation and without the joiners the source puts inside words.
// It does not use the analyser, so that it can tell when the analyser
// splits a word the reader types whole.
func readerWords(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) || r == '\u05be'
	}) {
		var b strings.Builder
		for _, r := range w {
			if unicode.IsLetter(r) {
				b.WriteRune(r)
			}
		}
		if b.Len() > 0 {
			out = append(out, b.String())
		}
	}
	return out
}

// TestHebrewFrequentWords types each of the UHB's 100 most frequent words
// without points and checks that it finds verses as typed, not through
// typo correction.
func TestHebrewFrequentWords(t *testing.T) {
	x := loadBible(t, "hbo-uhb", false)
	count := map[string]int{}
	for i := range x.Len() {
		for _, w := range readerWords(x.Text(int32(i))) {
			count[w]++
		}
	}
	words := make([]string, 0, len(count))
	for w := range count {
		words = append(words, w)
	}
	slices.SortFunc(words, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return strings.Compare(a, b)
	})
	for _, w := range words[:100] {
		r := x.Search(w, search.IntentText, 1)
		if r.Total == 0 || r.SearchInsteadFor != "" {
			t.Errorf("%s (%d times in the text): %d verses, search instead for %q; want verses as typed", w, count[w], r.Total, r.SearchInsteadFor)
		}
	}
}

func TestJoinersAndMaqaf(t *testing.T) {
	an := search.NewAnalyzer("hbo")
	for _, tc := range []struct{ text, want string }{
		{"בְּ\u2060רֵאשִׁ֖ית בָּרָ֣א", "בראשית ברא"},
		{"וַֽ\u2060יְהִי־אֽוֹר׃", "ויהי אור"},
		{"co\u00adoperate zero\u200dwidth \ufeffword", "cooperate zerowidth word"},
	} {
		if got := strings.Join(an.Words(tc.text), " "); got != tc.want {
			t.Errorf("Words(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	// Offsets stay those of the text as given.
	text := "ab\u2060cd ef"
	var got []string
	an.Tokens(text, func(tk search.Token) { got = append(got, text[tk.Start:tk.End]) })
	if want := []string{"ab\u2060cd", "ef"}; !slices.Equal(got, want) {
		t.Errorf("Tokens(%q) spans %q, want %q", text, got, want)
	}
}
