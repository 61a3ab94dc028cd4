package topic

import (
	"fmt"
	"testing"
)

// A language with 2000 topics (a large topical list) and 5000 suggestion
// words: what one query costs, as typed, mistyped, and at the limits.
func benchIndex() (*Index, *Suggester) {
	words := []string{"love", "hope", "faith", "grace", "peace", "light", "prayer", "forgiveness", "salvation",
		"healing", "fear", "anxiety", "marriage", "children", "wisdom", "patience", "strength", "comfort"}
	var ts []Topic
	var ss []Suggestion
	for i := range 2000 {
		id := int64(i)
		text := fmt.Sprintf("%s and %s %d", words[i%len(words)], words[(i/len(words))%len(words)], i)
		ts = append(ts, Topic{ID: &id, Text: text, Subtopics: []string{words[(i+3)%len(words)] + " in hard times"}})
		ss = append(ss, Suggestion{Text: text, Source: SourceTopic})
	}
	for i := range 5000 {
		ss = append(ss, Suggestion{Text: fmt.Sprintf("%sword%d", words[i%len(words)], i), Source: SourceVocabulary, Weight: 5000 - i})
	}
	return NewIndex(ts), NewSuggester(ss)
}

func BenchmarkSearch(b *testing.B) {
	x, _ := benchIndex()
	for _, q := range []string{"love", "forgiveness and hope", "forgivnes", "lvoe and hpoe",
		"zzzzzzzz qqqqqqqq xxxxxxxx wwwwwwww vvvvvvvv uuuuuuuu tttttttt ssssssss"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				x.Search(q)
			}
		})
	}
}

func BenchmarkSuggest(b *testing.B) {
	_, s := benchIndex()
	for _, q := range []string{"l", "lov", "hope and", "zzz"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				s.Suggest(q)
			}
		})
	}
}
