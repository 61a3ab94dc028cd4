package search_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/bibleplatform/platform/search"
)

// TestShortcuts checks that what the index derives to answer queries
// faster (hot.go: the common words' clauses and ranking heads, the
// common prefixes' heads, decoded positions, two-word phrases of common
// words (bigrams.go), skip entries, scratch arrays;
// reference.go: no reference without a digit) changes no answer: every query
// of the bench mix and of the evaluation set, on the first page and on a
// page past the ranking heads, gets the same verses, total, corrections
// and highlights with the shortcuts as without.
func TestShortcuts(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the WEB")
	}
	x := loadBible(t, "eng-web", true)
	queries := benchMix(t)
	for _, c := range readEval(t) {
		if c.bible == "eng-web" {
			queries = append(queries, c.query)
		}
	}
	queries = append(queries, "the lord is my shepherd", "feat of the mountain", "a* b* c*", "lord xqzzv", `"the lord" god`,
		// Prefixes with a head made at load, one prefix beside a word.
		"t*", "the*", "s*", "lo*", "lo* god", "jesu*",
		// Books named without a chapter, spelt right and wrong.
		"jude", "first john", "genisis", "psalm twenty three", "jhon", "1 jhon",
		// Phrases of common words (their pairs made at load), alone, with
		// rare words, repeated, and pairs never side by side.
		`"in the beginning"`, `"the son of man"`, `"holy holy holy"`, `"to the to"`, `"the the"`,
		`"and the" lord`, `"said to them" jesus`, `"of the children of israel"`, `"and of all the"`)
	slices.Sort(queries)
	queries = slices.Compact(queries)
	answer := func(q string, want int) string {
		r := x.Search(q, "", want)
		s := fmt.Sprint(r.Intent, r.Verses, r.Total, r.SearchInsteadFor, r.DidYouMean)
		for _, v := range r.Verses[:min(5, len(r.Verses))] {
			s += fmt.Sprint(x.Matches(r, v))
		}
		return s
	}
	defer search.SetShortcuts(true)
	differ := 0
	for _, q := range queries {
		for _, want := range []int{25, 130} {
			search.SetShortcuts(false)
			want0 := answer(q, want)
			search.SetShortcuts(true)
			if got := answer(q, want); got != want0 {
				differ++
				if differ <= 10 {
					t.Errorf("%q (first %d): with shortcuts\n%s\nwithout\n%s", q, want, got, want0)
				}
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d answers differ", differ, 2*len(queries))
	}
}
