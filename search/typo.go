package search

import (
	"math"

	"github.com/bibleplatform/platform/internal/osa"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// Typo correction: a query word that matches nothing is replaced by the
// words of the Bible's own vocabulary closest to it, by optimal string
// alignment distance (insertions, deletions, substitutions and adjacent
// transpositions each count one): at most 1 for words of up to four
// letters, 2 for longer ones. Nearer words come first; among words one
// edit away, a noisy-channel score ranks them: how often the word occurs
// in the Bible, times how likely the edit is. A dropped or a swapped
// letter is one of a few possible slips, a wrong or an extra letter one of
// a few dozen (any letter could be the one), so the first two weigh
// alphabetSize times more: "sigts" is "sights" with a letter dropped
// rather than the more frequent "signs" with one letter wrong.

// maxEdits is the distance allowed for a word of n letters.
func maxEdits(n int) int {
	if n <= 4 {
		return 1
	}
	return 2
}

// corrections returns the query with each unknown word replaced by its
// best correction, then with the first unknown word replaced by its next
// candidates.
func (x *Index) corrections(q *query) []string {
	var cands [][]string
	var spans []span
	for _, s := range q.unknown {
		if len(spans) == maxTypoWords {
			break
		}
		if s.end < len(q.raw) && q.raw[s.end] == '*' {
			return nil // a prefix matches no word: nothing to correct it to
		}
		word := Fold(q.raw[s.start:s.end])
		c := x.Candidates(word, maxAlternatives+1)
		if len(c) == 0 {
			return nil
		}
		cands, spans = append(cands, c), append(spans, s)
	}
	if len(spans) == 0 {
		return nil
	}
	build := func(first string) string {
		b := make([]byte, 0, len(q.raw)+8)
		at := 0
		for i, s := range spans {
			w := cands[i][0]
			if i == 0 {
				w = first
			}
			b = append(b, q.raw[at:s.start]...)
			b = append(b, w...)
			at = s.end
		}
		return string(append(b, q.raw[at:]...))
	}
	var out []string
	for _, c := range cands[0] {
		out = append(out, build(c))
	}
	return out
}

// A misfit is corrected to a word one edit away (a slip that makes
// another word is nearly always one slip) that is in misfitRatio times
// as many verses: the more common word is the likelier meaning. At most
// misfitCandidates near words are tried.
const (
	misfitCandidates = 8
	misfitRatio      = 10
)

// misfits returns the query with one word replaced by a near word of the
// vocabulary, for each required word that is in the Bible but alone keeps
// the verses holding every other required word from matching, when the
// near word matches some of those verses: a slip that made another word
// ("feat" for "feet"). The first is the best guess; at most
// maxAlternatives+1. One pass over the clauses' verses finds, for each
// word, the verses that lack that word only.
func (x *Index) misfits(q *query) []string {
	var req []int
	for i, c := range q.clauses {
		if !c.optional {
			req = append(req, i)
		}
	}
	if len(req) < 2 {
		return nil
	}
	s := x.getScratch(false, false, false, true)
	defer x.putScratch(s)
	hs := x.queryHits(q)
	for k, i := range req {
		for _, d := range hs[i].doc {
			s.mask[d] |= 1 << k
			s.use(d)
		}
	}
	full := uint32(1)<<len(req) - 1
	lacking := make([][]int32, len(req)) // the verses that lack req[k] only, in order
	s.each(func(d int32) {
		if miss := full &^ s.mask[d]; bits.OnesCount32(miss) == 1 {
			k := bits.TrailingZeros32(miss)
			lacking[k] = append(lacking[k], d)
		}
	})
	var out []string
	for k, i := range req {
		c := q.clauses[i]
		if len(out) > maxAlternatives {
			break
		}
		if len(lacking[k]) == 0 || c.phrase || c.span.end < len(q.raw) && q.raw[c.span.end] == '*' {
			continue
		}
		own := len(hs[i].doc)
		word := Fold(q.raw[c.span.start:c.span.end])
		for _, w := range x.candidates(word, misfitCandidates, 1) {
			cand := x.words[w]
			h := x.clauseHits(clause{alts: [][]uint32{x.forms(cand)}, syn: x.synonymsOf(cand)})
			if len(h.doc) >= misfitRatio*own && len(intersect(lacking[k], h.doc)) > 0 {
				out = append(out, q.raw[:c.span.start]+cand+q.raw[c.span.end:])
				break
			}
		}
	}
	return out
}

// Candidates returns up to n words of the vocabulary near a folded word,
// best first.
func (x *Index) Candidates(word string, n int) []string {
	ws := x.candidates(word, n, maxEdits(utf8.RuneCountInString(word)))
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = x.words[w]
	}
	return out
}

// candidates returns up to n words within d edits of a folded word, best
// first.
func (x *Index) candidates(word string, n, d int) []uint32 {
	l := utf8.RuneCountInString(word)
	if l < minTypoLen {
		return nil
	}
	type cand struct {
		w     uint32
		dist  int
		score float64
	}
	var found []cand
	a := []rune(word)
	ha, ma := histogram(a), letterMask(a)
	row := make([][]int, 3)
	for i := range row {
		row[i] = make([]int, l+d+2)
	}
	try := func(w uint32) {
		// The letters that one word has more of than the other each
		// need an edit: a bound that rules out most words cheaply.
		mb := x.mask[w]
		if bits.OnesCount64(ma&^mb) > d || bits.OnesCount64(mb&^ma) > d || bagDistance(&ha, &x.hist[w]) > d {
			return
		}
		b := x.runes[x.runeAt[w]:x.runeAt[w+1]]
		if k := len(b); k < l-d || k > l+d {
			return
		}
		if dist := osa.Distance(a, b, d, false, row); dist <= d {
			score := math.Log(float64(x.count[w]))
			if dist == 1 && likelySlip(a, b) {
				score += math.Log(alphabetSize)
			}
			found = append(found, cand{w, dist, score})
		}
	}
	switch {
	case l-d >= len(x.byLen):
		// Longer than any word by more than d letters: no candidate, and
		// a long word has many deletions.
	case shortcuts && d <= maxDeletes:
		x.nearWords(a, d, try)
	default:
		for k := max(l-d, 1); k <= l+d && k < len(x.byLen); k++ {
			for _, w := range x.byLen[k] {
				try(w)
			}
		}
	}
	slices.SortFunc(found, func(p, q cand) int {
		if p.dist != q.dist {
			return p.dist - q.dist
		}
		if p.score != q.score {
			if p.score > q.score {
				return -1
			}
			return 1
		}
		return int(p.w) - int(q.w)
	})
	out := make([]uint32, 0, min(n, len(found)))
	for _, c := range found[:min(n, len(found))] {
		out = append(out, c.w)
	}
	return out
}

// alphabetSize is the likelihood ratio of a dropped or swapped letter to
// a wrong or extra one.
const alphabetSize = 26

// likelySlip reports whether typo is word (one edit away) with a letter
// dropped or two adjacent letters swapped.
func likelySlip(typo, word []rune) bool {
	if len(word) == len(typo)+1 {
		return true
	}
	if len(word) != len(typo) {
		return false
	}
	for i := range typo {
		if typo[i] != word[i] {
			return i+1 < len(typo) && typo[i] == word[i+1] && typo[i+1] == word[i]
		}
	}
	return false
}

// histogram counts a word's letters in 32 buckets (by code point). Two
// words' bucket counts differ by no more than their letters do, so the
// bag distance of histograms is a lower bound of the edit distance.
type histogram32 [32]uint8

func histogram(w []rune) histogram32 {
	var h histogram32
	for _, r := range w {
		if h[r&31] < 255 {
			h[r&31]++
		}
	}
	return h
}

// letterMask is the set of a word's letters, hashed to 64 bits. An edit
// adds at most one letter to the set and takes at most one away, so two
// words d edits apart differ by at most d letters each way: a test of two
// instructions that rules out most of the vocabulary.
func letterMask(w []rune) uint64 {
	var m uint64
	for _, r := range w {
		m |= 1 << (uint(r) & 63)
	}
	return m
}

func bagDistance(a, b *histogram32) int {
	more, fewer := 0, 0
	for i := range a {
		if d := int(a[i]) - int(b[i]); d > 0 {
			more += d
		} else {
			fewer -= d
		}
	}
	return max(more, fewer)
}
