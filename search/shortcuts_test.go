package search_test

import (
	"fmt"
	"slices"
	"strings"
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

// TestShortcutsCandidates checks that the deletion index (deletes.go)
// finds the typo candidates the scan of the vocabulary finds: for
// misspellings of words all over the WEB's vocabulary (a letter dropped,
// doubled, changed, two swapped, two slips at once), the same words in
// the same order.
func TestShortcutsCandidates(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the WEB")
	}
	x := loadBible(t, "eng-web", true)
	defer search.SetShortcuts(true)
	slips := []func(r []rune) []rune{
		func(r []rune) []rune { return slices.Delete(slices.Clone(r), 1, 2) },
		func(r []rune) []rune { return slices.Insert(slices.Clone(r), 1, r[1]) },
		func(r []rune) []rune { c := slices.Clone(r); c[len(c)/2] = 'q'; return c },
		func(r []rune) []rune { c := slices.Clone(r); c[0], c[1] = c[1], c[0]; return c },
		func(r []rune) []rune { c := slices.Insert(slices.Clone(r), 0, 'z'); c[len(c)-1] = 'é'; return c },
	}
	words := x.Vocabulary()
	n := 0
	for i := 0; i < len(words); i += 7 {
		r := []rune(words[i])
		if len(r) < 3 {
			continue
		}
		for _, slip := range slips {
			typo := string(slip(r))
			search.SetShortcuts(false)
			want := x.Candidates(typo, 10)
			search.SetShortcuts(true)
			if got := x.Candidates(typo, 10); !slices.Equal(got, want) {
				t.Errorf("Candidates(%q) = %q with the deletion index, %q without", typo, got, want)
			}
			n++
		}
	}
	for _, typo := range []string{strings.Repeat("xq", 40), "mahershalalhashbazz", "jerusalemm"} {
		search.SetShortcuts(false)
		want := x.Candidates(typo, 10)
		search.SetShortcuts(true)
		if got := x.Candidates(typo, 10); !slices.Equal(got, want) {
			t.Errorf("Candidates(%q) = %q with the deletion index, %q without", typo, got, want)
		}
	}
	if n < 5000 {
		t.Fatalf("only %d misspellings tried", n)
	}
}
