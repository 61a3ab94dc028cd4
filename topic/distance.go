package topic

import "github.com/bibleplatform/platform/internal/osa"

// maxEdits is the typo tolerance for a query word of n runes: none for
// short words (every correction of "lo" is another real word), one edit
// from four runes, two from eight.
func maxEdits(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 8:
		return 1
	}
	return 2
}

// MaxWordRunes bounds the words the distance functions compare, so that
// their cost per pair is bounded whatever a client sends.
const MaxWordRunes = 32

// distance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and transpositions of adjacent
// runes), or k+1 when it is larger than k. With prefix, it is the distance
// between a and the closest prefix of b: "forgivn" is one edit from a
// prefix of "forgiveness".
func distance(a, b []rune, k int, prefix bool) int {
	if len(a) > MaxWordRunes {
		a = a[:MaxWordRunes]
	}
	if len(b) > MaxWordRunes {
		b = b[:MaxWordRunes]
	}
	// Three rows of the (len(a)+1) × (len(b)+1) table, on the stack.
	var r0, r1, r2 [MaxWordRunes + 1]int
	return osa.Distance(a, b, k, prefix, [][]int{r0[:], r1[:], r2[:]})
}
