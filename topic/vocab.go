package topic

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bibleplatform/platform/search"
)

// CountWords adds the words of text, as written, to counts. A word is a
// run of letters, digits and combining marks, with apostrophes inside it
// ("God's").
func CountWords(counts map[string]int, text string) {
	start := -1
	prev := rune(0)
	for i, r := range text {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
		if !inWord && start >= 0 && isApostrophe(r) && unicode.IsLetter(prev) {
			// Kept only when a letter follows; decided below.
			next, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
			inWord = unicode.IsLetter(next)
		}
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			counts[text[start:i]]++
			start = -1
		}
		prev = r
	}
	if start >= 0 {
		counts[text[start:]]++
	}
}

// Vocabulary turns word counts (as CountWords gives them) into suggestions
// for language: words folded together are one suggestion, shown as their
// most frequent written form and weighted by their total count. Stop words
// of the language (bleve's lists; none for a language bleve has no list
// for), words under three runes, numbers and words seen once are left out;
// the limit most frequent are kept.
func Vocabulary(language string, counts map[string]int, limit int) []Suggestion {
	stop := stopWords(language)
	type group struct {
		best         string
		bestN, total int
	}
	groups := map[string]*group{}
	for w, n := range counts {
		key := Fold(w)
		if utf8.RuneCountInString(key) < 3 || stop[key] || strings.ContainsFunc(key, func(r rune) bool { return !unicode.IsLetter(r) }) {
			continue
		}
		g := groups[key]
		if g == nil {
			g = &group{}
			groups[key] = g
		}
		g.total += n
		if n > g.bestN || n == g.bestN && w > g.best {
			g.best, g.bestN = w, n
		}
	}
	out := make([]Suggestion, 0, len(groups))
	for _, g := range groups {
		if g.total > 1 {
			out = append(out, Suggestion{Text: g.best, Source: SourceVocabulary, Weight: roughly(g.total)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Weight != out[j].Weight {
			return out[i].Weight > out[j].Weight
		}
		return out[i].Text < out[j].Text
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// roughly is a count on a coarse logarithmic scale (four steps per
// doubling; 1 → 0, 100 → 26, 1000 → 39): the order of suggestions needs
// no more, and an edit of one verse then rewrites the language's
// suggestions only when a word's count crosses a step, not on every
// change of a count.
func roughly(n int) int {
	return int(4 * math.Log2(float64(n)))
}

// stopWords is the stop word list of a language tag's primary language
// (search.StopWords), folded as topics fold, or nil.
func stopWords(language string) map[string]bool {
	sw := search.StopWords(language)
	if sw == nil {
		return nil
	}
	l := make(map[string]bool, len(sw))
	for w := range sw {
		l[Fold(w)] = true
	}
	return l
}
