package topic

import (
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/registry"

	// The stop word lists bleve has, registered as stop_<language>.
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ar"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/bg"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ca"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ckb"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/cs"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/da"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/de"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/el"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/en"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/es"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/eu"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fa"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fi"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fr"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ga"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/gl"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hi"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hr"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hu"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hy"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/id"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/it"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/nl"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/no"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/pl"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/pt"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ro"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ru"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/sv"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/tr"
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

var (
	stopMu    sync.Mutex
	stopCache = registry.NewCache()
	stopLists = map[string]map[string]bool{}
)

// stopWords is the folded stop word list of a language tag's primary
// language, or nil.
func stopWords(language string) map[string]bool {
	primary, _, _ := strings.Cut(strings.ToLower(language), "-")
	stopMu.Lock()
	defer stopMu.Unlock()
	if l, ok := stopLists[primary]; ok {
		return l
	}
	var l map[string]bool
	if tm, err := stopCache.TokenMapNamed("stop_" + primary); err == nil {
		l = make(map[string]bool, len(tm))
		for w := range tm {
			l[Fold(w)] = true
		}
	}
	stopLists[primary] = l
	return l
}
