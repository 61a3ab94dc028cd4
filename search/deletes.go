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
	var all []uint64 // a deletion's hash in the high half, the word in the low
	for w := range x.words {
		each := func(h uint32) { all = append(all, uint64(h)<<32|uint64(w)) }
		deletions(x.runes[x.runeAt[w]:x.runeAt[w+1]], maxDeletes, each)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	var di deletionIndex
	di.shift = 32
	for n := 1; n < len(all)/4; n *= 2 {
		di.shift--
	}
	di.at = make([]uint32, 1<<(32-di.shift)+1)
	di.words = make([]uint32, 0, len(all))
	for _, e := range all {
		b := uint32(e>>32) >> di.shift
		if n := len(di.words); n > 0 && di.words[n-1] == uint32(e) && di.at[b+1] > 0 {
			continue // the word again in the same bucket
		}
		di.words = append(di.words, uint32(e))
		di.at[b+1] = uint32(len(di.words))
	}
	for b := 1; b < len(di.at); b++ {
		di.at[b] = max(di.at[b], di.at[b-1])
	}
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
