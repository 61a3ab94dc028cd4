// Package search is verse search over one published Bible: the text
// analysis shared by the build and the edge, the index the build publishes
// (one object per Bible, see format.go), and the queries the edge answers
// from it in memory (query.go, reference.go). docs/search.md says how
// ranking, typo correction and reference detection work.
package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/da"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fi"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/hu"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/no"
	"github.com/blevesearch/bleve/v2/analysis/lang/ro"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/analysis/lang/sv"
	"github.com/blevesearch/bleve/v2/analysis/lang/tr"
	bleveunicode "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"golang.org/x/text/unicode/norm"
)

// Analysis, the same at build and at query time:
//
//  0. the format characters that join the parts of one word (word joiner
//     U+2060, zero width joiner U+200D, soft hyphen U+00AD, zero width
//     no-break space U+FEFF) are removed: the Hebrew Bible joins a prefix
//     or suffix to its word with U+2060, and a reader types the word whole;
//  1. words are found by Unicode word segmentation (UAX #29, bleve's
//     unicode tokenizer), so "LORD’s" is one word and punctuation none;
//  2. each word is folded: canonical decomposition, every nonspacing mark
//     dropped (Spanish accents, Hebrew points and cantillation), lower
//     case, typographic apostrophes made ASCII;
//  3. the folded word is stemmed by the Snowball stemmer of the Bible's
//     language when bleve has one, and left as it is otherwise.
//
// The index keeps folded words (with positions, for phrases, prefixes and
// typo correction) and groups the words that share a stem, so a query word
// finds every form of its stem.

// stemmers are the languages bleve has a Snowball stemmer for, by primary
// language subtag.
var stemmers = map[string]func() analysis.TokenFilter{
	"da": func() analysis.TokenFilter { return da.NewDanishStemmerFilter() },
	"de": func() analysis.TokenFilter { return de.NewGermanStemmerFilter() },
	"en": func() analysis.TokenFilter { return en.NewEnglishStemmerFilter() },
	"es": func() analysis.TokenFilter { return es.NewSpanishStemmerFilter() },
	"fi": func() analysis.TokenFilter { return fi.NewFinnishStemmerFilter() },
	"fr": func() analysis.TokenFilter { return fr.NewFrenchStemmerFilter() },
	"hu": func() analysis.TokenFilter { return hu.NewHungarianStemmerFilter() },
	"it": func() analysis.TokenFilter { return it.NewItalianStemmerFilter() },
	"nl": func() analysis.TokenFilter { return nl.NewDutchStemmerFilter() },
	"no": func() analysis.TokenFilter { return no.NewNorwegianStemmerFilter() },
	"nb": func() analysis.TokenFilter { return no.NewNorwegianStemmerFilter() },
	"ro": func() analysis.TokenFilter { return ro.NewRomanianStemmerFilter() },
	"ru": func() analysis.TokenFilter { return ru.NewRussianStemmerFilter() },
	"sv": func() analysis.TokenFilter { return sv.NewSwedishStemmerFilter() },
	"tr": func() analysis.TokenFilter { return tr.NewTurkishStemmerFilter() },
}

// Analyzer analyses text of one language. It is safe for concurrent use.
type Analyzer struct {
	lang string
	stem analysis.TokenFilter // nil: the language has no stemmer
	tok  *bleveunicode.UnicodeTokenizer
}

// NewAnalyzer returns the analyzer for a BCP 47 language tag.
func NewAnalyzer(tag string) *Analyzer {
	primary, _, _ := strings.Cut(strings.ToLower(tag), "-")
	a := &Analyzer{lang: primary, tok: bleveunicode.NewUnicodeTokenizer()}
	if f, ok := stemmers[primary]; ok {
		a.stem = f()
	}
	return a
}

// Stems reports whether the analyzer stems words.
func (a *Analyzer) Stems() bool { return a.stem != nil }

// Token is one word of a text: its folded form and where it lies in the
// text, in bytes.
type Token struct {
	Word       string
	Start, End int
}

// Tokens calls fn for each word of text, in order. Start and End are
// offsets in text as given, joiners included.
func (a *Analyzer) Tokens(text string, fn func(Token)) {
	clean, at := stripJoiners(text)
	for _, t := range a.tok.Tokenize([]byte(clean)) {
		if w := Fold(string(t.Term)); w != "" {
			start, end := t.Start, t.End
			if at != nil {
				start, end = at[start], at[end-1]+1
			}
			fn(Token{Word: w, Start: start, End: end})
		}
	}
}

// isJoiner reports whether r is a format character that joins the parts
// of one word (step 0 of the analysis).
func isJoiner(r rune) bool {
	return r == '\u2060' || r == '\u200d' || r == '\u00ad' || r == '\ufeff'
}

// stripJoiners removes the joiners from text. When it removed any, at
// maps each byte of the result to its offset in text.
func stripJoiners(text string) (string, []int) {
	found := false
	for _, r := range text {
		if isJoiner(r) {
			found = true
			break
		}
	}
	if !found {
		return text, nil
	}
	b := make([]byte, 0, len(text))
	at := make([]int, 0, len(text))
	for i, r := range text {
		if isJoiner(r) {
			continue
		}
		_, n := utf8.DecodeRuneInString(text[i:]) // 1 for an invalid byte
		for k := range n {
			at = append(at, i+k)
		}
		b = append(b, text[i:i+n]...)
	}
	return string(b), at
}

// Words returns the folded words of text.
func (a *Analyzer) Words(text string) []string {
	var out []string
	a.Tokens(text, func(t Token) { out = append(out, t.Word) })
	return out
}

// Stem returns the stem of a folded word (the word itself without a
// stemmer).
func (a *Analyzer) Stem(word string) string {
	if a.stem == nil {
		return word
	}
	ts := a.stem.Filter(analysis.TokenStream{{Term: []byte(word)}})
	return string(ts[0].Term)
}

// Fold is step 2 of the analysis for one word or phrase.
func Fold(s string) string {
	lower := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return foldUnicode(s)
		}
		if 'A' <= c && c <= 'Z' {
			lower = false
		}
	}
	if lower {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func foldUnicode(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r), isJoiner(r):
		case r == '’' || r == 'ʼ' || r == '‘':
			b.WriteByte('\'')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return norm.NFC.String(b.String())
}

// Variants returns the forms a reader may mean by a folded word the Bible
// does not have, most likely first. In English these are the modern forms
// of the older verb endings readers quote from the King James tradition:
// "careth" and "goest" are "care" and "go".
func (a *Analyzer) Variants(word string) []string {
	if a.lang != "en" || len(word) < 5 {
		return nil
	}
	for _, end := range []string{"eth", "est"} {
		if base, ok := strings.CutSuffix(word, end); ok {
			out := []string{base, base + "e"}
			if n := len(base); n >= 2 && base[n-1] == base[n-2] {
				out = append(out, base[:n-1])
			}
			return out
		}
	}
	return nil
}
