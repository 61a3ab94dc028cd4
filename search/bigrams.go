package search

import (
	"math"
	"slices"
)

// Two-word phrases of common words ("to the", "and to your") are the
// dearest queries to answer from the words' postings: the verses holding
// both words number thousands, and each must be searched for the one
// following the other. So the index derives at load, for every two stem
// groups whose words are each in frequentDF verses or more, the verses
// where a word of the first is followed by a word of the second, with how
// often: a phrase of two such words is that list, and a longer phrase
// looks for its words only in the verses holding each of its pairs.

// bigrams holds those lists, end to end: the verses and counts of the
// pair of groups g1, g2 are doc[at:end] and tf[at:end] for
// span[g1<<32|g2] = {at, end}. A pair of common groups without an entry
// is never side by side.
type bigrams struct {
	common []bool // by stem group: in frequentDF verses or more
	span   map[uint64][2]uint32
	doc    []int32
	tf     []uint32
	// head holds the first proximityK verses of the ranking of each pair
	// in frequentDF verses or more: a query of that phrase alone.
	head map[uint64][]int32
}

// bigramsOf finds the pairs of common groups side by side in each verse.
func (x *Index) bigramsOf() {
	b := bigrams{common: make([]bool, len(x.groups)), span: map[uint64][2]uint32{}}
	for g, ws := range x.groups {
		n := 0
		for _, w := range ws {
			n += int(x.df[w])
		}
		b.common[g] = n >= frequentDF
	}
	// Each verse's words, by group, the uncommon ones left out.
	start := make([]int, len(x.lens)+1)
	for d, n := range x.lens {
		start[d+1] = start[d] + int(n)
	}
	const none = ^uint32(0)
	tok := make([]uint32, start[len(x.lens)])
	for i := range tok {
		tok[i] = none
	}
	var buf []uint32
	for w, post := range x.post {
		g := x.stem[w]
		if !b.common[g] {
			continue
		}
		p := postings{b: post}
		for p.next(true) {
			buf = p.positions(buf[:0])
			for _, at := range buf {
				if int(at) < int(x.lens[p.doc]) {
					tok[start[p.doc]+int(at)] = g
				}
			}
		}
	}
	// Number the pairs as they first occur and note each occurrence's
	// pair, then lay each pair's verses out end to end, in verse order.
	id := map[uint64]uint32{}
	var keys []uint64
	var occ []uint32 // each occurrence's pair, in verse order
	var occDoc []int32
	var count []uint32
	for d := range x.lens {
		for i := start[d]; i+1 < start[d+1]; i++ {
			g1, g2 := tok[i], tok[i+1]
			if g1 == none || g2 == none {
				continue
			}
			k := uint64(g1)<<32 | uint64(g2)
			n, ok := id[k]
			if !ok {
				n = uint32(len(keys))
				id[k] = n
				keys = append(keys, k)
				count = append(count, 0)
			}
			count[n]++
			occ, occDoc = append(occ, n), append(occDoc, int32(d))
		}
	}
	at := make([]uint32, len(keys)+1)
	for n, c := range count {
		at[n+1] = at[n] + c
	}
	fill := slices.Clone(at[:len(keys)])
	docs := make([]int32, len(occ))
	for i, n := range occ {
		docs[fill[n]] = occDoc[i]
		fill[n]++
	}
	// One entry per verse, its count the pair's occurrences there.
	b.doc, b.tf = docs[:0], make([]uint32, 0, len(docs))
	b.span = make(map[uint64][2]uint32, len(keys))
	for n, k := range keys {
		first := uint32(len(b.doc))
		for _, d := range docs[at[n]:at[n+1]] {
			if m := len(b.doc); m > int(first) && b.doc[m-1] == d {
				b.tf[m-1]++
				continue
			}
			b.doc, b.tf = append(b.doc, d), append(b.tf, 1)
		}
		b.span[k] = [2]uint32{first, uint32(len(b.doc))}
	}
	b.doc, b.tf = slices.Clone(b.doc), slices.Clip(b.tf)
	b.head = map[uint64][]int32{}
	for k, s := range b.span {
		if s[1]-s[0] < frequentDF {
			continue
		}
		// As run ranks a phrase alone: BM25 of its occurrences.
		docs, tf := b.doc[s[0]:s[1]], b.tf[s[0]:s[1]]
		n, df := float64(len(x.verse)), float64(len(docs))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		acc := make([]scored, len(docs))
		for i, d := range docs {
			acc[i] = scored{doc: d, mask: 1, score: x.bm25(idf, float32(tf[i]), d)}
		}
		top(acc, proximityK)
		head := make([]int32, min(proximityK, len(acc)))
		for i := range head {
			head[i] = acc[i].doc
		}
		b.head[k] = head
	}
	x.bigrams = b
}

// bigram returns the verses where a word of alts1 is followed by a word
// of alts2, when each is a common stem group, whole; ok is false
// otherwise. The caller must not change them.
func (x *Index) bigram(alts1, alts2 []uint32) (h hits, ok bool) {
	if !shortcuts {
		return h, false
	}
	g1, ok1 := x.commonGroup(alts1)
	g2, ok2 := x.commonGroup(alts2)
	if !ok1 || !ok2 {
		return h, false
	}
	if s, found := x.bigrams.span[uint64(g1)<<32|uint64(g2)]; found {
		h.doc, h.tf = x.bigrams.doc[s[0]:s[1]:s[1]], x.bigrams.tf[s[0]:s[1]:s[1]]
	}
	return h, true
}

// commonGroup returns the stem group alts is, when it is a common one.
func (x *Index) commonGroup(alts []uint32) (uint32, bool) {
	if len(alts) == 0 {
		return 0, false
	}
	g := x.stem[alts[0]]
	return g, x.bigrams.common[g] && slices.Equal(alts, x.groups[g])
}

// phraseCandidates returns the verses that may hold the phrase c, whose
// words' verses are us: those holding each of its pairs of common words
// side by side, and each of its other words.
func (x *Index) phraseCandidates(c clause, us []hits) []int32 {
	var cand []int32
	started := false
	and := func(docs []int32) {
		if !started {
			cand, started = docs, true
			return
		}
		cand = intersect(cand, docs)
	}
	covered := make([]bool, len(c.alts))
	for i := 0; i+1 < len(c.alts); i++ {
		if h, ok := x.bigram(c.alts[i], c.alts[i+1]); ok {
			and(h.doc)
			covered[i], covered[i+1] = true, true
		}
	}
	for i, u := range us {
		if !covered[i] {
			and(u.doc)
		}
	}
	return cand
}

// runBigram answers a query of one phrase of two common words, wanting
// no more verses than its head has, from the head; nil otherwise.
func (x *Index) runBigram(q *query, want int) *Result {
	if !shortcuts || len(q.clauses) != 1 || !q.clauses[0].phrase || len(q.clauses[0].alts) != 2 || want > proximityK {
		return nil
	}
	c := q.clauses[0]
	g1, ok1 := x.commonGroup(c.alts[0])
	g2, ok2 := x.commonGroup(c.alts[1])
	if !ok1 || !ok2 {
		return nil
	}
	k := uint64(g1)<<32 | uint64(g2)
	head, ok := x.bigrams.head[k]
	if !ok {
		return nil
	}
	s := x.bigrams.span[k]
	r := &Result{Intent: IntentText, Total: int(s[1] - s[0])}
	r.Verses = slices.Clone(head[:min(want, len(head))])
	r.masks = make([]uint32, len(r.Verses))
	for i := range r.masks {
		r.masks[i] = 1
	}
	r.matched = append(slices.Clone(c.alts[0]), c.alts[1]...)
	slices.Sort(r.matched)
	r.matched = slices.Compact(r.matched)
	return r
}
