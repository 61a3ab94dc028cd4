package topic

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
	if !prefix && abs(len(a)-len(b)) > k {
		return k + 1
	}
	// Three rows of the (len(a)+1) × (len(b)+1) table, on the stack.
	var r0, r1, r2 [MaxWordRunes + 1]int
	prev2, prev, cur := r0[:len(b)+1], r1[:len(b)+1], r2[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
			rowMin = min(rowMin, d)
		}
		if rowMin > k {
			return k + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	d := prev[len(b)]
	if prefix {
		for _, v := range prev {
			d = min(d, v)
		}
	}
	return min(d, k+1)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
