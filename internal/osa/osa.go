// Package osa is the optimal string alignment distance, the edit distance
// of typo correction: verse search's, topic search's and that of book
// names in citations.
package osa

// Distance is the optimal string alignment distance of a and b
// (insertions, deletions, substitutions and transpositions of adjacent
// runes), or limit+1 as soon as it must exceed limit. With prefix, it is
// the distance between a and the closest prefix of b ("forgivn" is one
// edit from a prefix of "forgiveness"). rows are three scratch rows of at
// least len(b)+1 cells. Verse search's typo correction, topic search and
// book names in citations use it.
func Distance(a, b []rune, limit int, prefix bool, rows [][]int) int {
	if !prefix && abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	prev2, prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1], rows[2][:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	d := prev[len(b)]
	if prefix {
		for _, v := range prev {
			d = min(d, v)
		}
	}
	return min(d, limit+1)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
