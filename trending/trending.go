// Package trending is what the edges and the dynamic service share about
// trending search queries: how a query is normalised into a phrase, the
// batch of counts an edge reports (POST /internal/search-queries), the
// snapshot dynamic answers (GET /internal/search-trending), and the
// bounded counter an edge keeps between reports.
//
// No identity is kept. The edge's counter holds, for each phrase of the
// current batch, at most MaxApps app ids, only until the batch is reported
// (seconds); dynamic turns each into a keyed hash with a salt of the day
// that is deleted when the day is over, so that after a day not even the
// database's owner can tell which app searched what. Distinct apps are
// counted within a day; a phrase trends only when enough distinct apps
// searched it on one day, so one app cannot put a phrase there however
// often it searches. See docs/search.md.
package trending

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Limits, enforced by both sides.
const (
	// MaxPhraseRunes is the longest phrase counted (the query limit).
	MaxPhraseRunes = 100
	// MaxLanguageLen is the longest language tag.
	MaxLanguageLen = 35
	// MaxApps is the most app ids a batch carries for one phrase: enough
	// for any minimum of distinct apps dynamic may require.
	MaxApps = 16
	// MaxBatch is the most phrases one batch holds; an edge's counter never
	// holds more.
	MaxBatch = 10000
)

// Normalize returns the phrase a query is counted as: compatibility
// normalised (NFKC), case-folded, whitespace collapsed, cut to
// MaxPhraseRunes. Accents are kept, so that trending shows "salvación"
// as written. "" means nothing to count: a query that is not text a
// reader would search for never enters (see countable), whatever app
// sends it, since every app's users see the trending list.
func Normalize(query string) string {
	if !utf8.ValidString(query) {
		return ""
	}
	s := cases.Fold().String(norm.NFKC.String(query))
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	if utf8.RuneCountInString(s) > MaxPhraseRunes {
		s = string([]rune(s)[:MaxPhraseRunes])
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	if !countable(s) {
		return ""
	}
	return s
}

// phrasePunct is the punctuation a search phrase may hold besides
// letters, marks, digits and spaces: quotes, a prefix's *, and what
// references and sentences use. Markup (<, >, &), URLs (/, @, =, %, #)
// and control or format characters (bidirectional overrides among them)
// are not in it.
const phrasePunct = "¿¡'’‘\"“”„-–—:,.;?!*()"

// countable reports whether a normalised phrase may be counted: only
// letters, marks, digits, spaces and phrasePunct, and nothing that reads
// as a web address (a dot followed by a letter, as in "bit.ly", or a
// "www" word).
func countable(s string) bool {
	prev := rune(0)
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || r == ' ':
			if prev == '.' && unicode.IsLetter(r) {
				return false
			}
		case strings.ContainsRune(phrasePunct, r):
		default:
			return false
		}
		prev = r
	}
	for _, w := range strings.Fields(s) {
		if strings.HasPrefix(w, "www") || strings.HasPrefix(w, "http") && strings.Contains(w, ":") {
			return false
		}
	}
	return true
}

// Count is one phrase's searches in a batch.
type Count struct {
	Language string `json:"language"`
	Phrase   string `json:"phrase"`
	Count    int64  `json:"count"`
	// Apps are distinct app ids that searched it, at most MaxApps.
	Apps []string `json:"apps"`
	// Clients are distinct clients that searched it, at most MaxApps,
	// each an edge's keyed hash of the client's address (never the
	// address): App Keys are public, so distinct apps alone do not show
	// that distinct people searched a phrase.
	Clients []string `json:"clients,omitempty"`
}

// Batch is what an edge reports.
type Batch struct {
	Queries []Count `json:"queries"`
}

// Phrase is one trending phrase.
type Phrase struct {
	Text  string `json:"text"`
	Count int64  `json:"count"` // searches in the window
	Apps  int    `json:"apps"`  // most distinct apps on one day
}

// Snapshot is the trending phrases of every language, most searched
// first.
type Snapshot struct {
	Generated time.Time           `json:"generated"`
	Languages map[string][]Phrase `json:"languages"`
}
