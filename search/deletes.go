package search

import (
	"slices"
	"unicode/utf8"
)

// Typo candidates by deletion (as SymSpell finds them): two words within
// d edits (insertions, deletions, substitutions, adjacent
// transpositions, each on letters no other edit touches) both become one
// string when at most d letters are deleted from each, since each edit
// costs at most one deletion on either side. So the index keeps, for
// every word, the hashes of the strings made by deleting up to
// maxDeletes of its letters; the words near a query word are among those
// sharing a hash with one of its own deletions, a few hundred at most,
// where the vocabulary has thousands of words of a length near it. A
// hash shared by chance only adds a word the distance then rules out.

// maxDeletes is the most edits a correction makes (maxEdits).
const maxDeletes = 2

// deletionIndex lists, per bucket of deletion hashes (its top bits),
// the words with a deletion in it: words[at[b]:at[b+1]]. A bucket holds
// a few words on average; those of other deletions than the one sought
// are ruled out with the rest.
type deletionIndex struct {
	shift uint // a hash's bucket is h >> shift
	at    []uint32
	words []uint32
}

func (x *Index) deletionsOf() deletionIndex {
	// Each word's deletions' hashes, word after word, then the words laid
	// out by bucket (a counting sort, stable: a bucket's words in order,
	// so a word twice in one bucket is kept once).
	var hs []uint32
	first := make([]int, len(x.words)+1) // word w's hashes are hs[first[w]:first[w+1]]
	for w := range x.words {
		deletions(x.runes[x.runeAt[w]:x.runeAt[w+1]], maxDeletes, func(h uint32) { hs = append(hs, h) })
		first[w+1] = len(hs)
	}
	var di deletionIndex
	di.shift = 32
	for n := 1; n < len(hs)/4; n *= 2 {
		di.shift--
	}
	di.at = make([]uint32, 1<<(32-di.shift)+1)
	for _, h := range hs {
		di.at[h>>di.shift+1]++
	}
	for b := 1; b < len(di.at); b++ {
		di.at[b] += di.at[b-1]
	}
	fill := slices.Clone(di.at[:len(di.at)-1])
	words := make([]uint32, len(hs))
	for w := range x.words {
		for _, h := range hs[first[w]:first[w+1]] {
			b := h >> di.shift
			if fill[b] > di.at[b] && words[fill[b]-1] == uint32(w) {
				continue // the word again in this bucket
			}
			words[fill[b]] = uint32(w)
			fill[b]++
		}
	}
	// Close the gaps the words kept once left.
	di.words = make([]uint32, 0, len(hs))
	for b := range fill {
		start := len(di.words)
		di.words = append(di.words, words[di.at[b]:fill[b]]...)
		di.at[b] = uint32(start)
	}
	di.at[len(fill)] = uint32(len(di.words))
	di.words = slices.Clone(di.words)
	return di
}

// nearWords calls f with each word sharing a deletion bucket with word,
// as deleting up to d letters of it makes, once per word.
func (x *Index) nearWords(word []rune, d int, f func(w uint32)) {
	var bs []uint32
	deletions(word, d, func(h uint32) { bs = append(bs, h>>x.dels.shift) })
	slices.Sort(bs)
	var ws []uint32
	for _, b := range slices.Compact(bs) {
		ws = append(ws, x.dels.words[x.dels.at[b]:x.dels.at[b+1]]...)
	}
	slices.Sort(ws)
	for _, w := range slices.Compact(ws) {
		f(w)
	}
}

// deletions calls f with the hash of word and of each string made by
// deleting up to d (at most 2) of its letters, some more than once.
func deletions(word []rune, d int, f func(h uint32)) {
	n := len(word)
	f(hashSkipping(word, -1, -1))
	if d < 1 {
		return
	}
	for i := range n {
		f(hashSkipping(word, i, -1))
		if d < 2 {
			continue
		}
		for j := i + 1; j < n; j++ {
			f(hashSkipping(word, i, j))
		}
	}
}

// hashSkipping is the FNV-1a hash of word's UTF-8 without its letters i
// and j.
func hashSkipping(word []rune, i, j int) uint32 {
	h := uint32(2166136261)
	var buf [utf8.UTFMax]byte
	for k, r := range word {
		if k == i || k == j {
			continue
		}
		for _, c := range buf[:utf8.EncodeRune(buf[:], r)] {
			h ^= uint32(c)
			h *= 16777619
		}
	}
	return h
}
