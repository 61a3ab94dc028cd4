package search

import (
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// What a query needs of the common words, made once when the index is
// loaded rather than on every query (docs/search.md, "Speed of computed
// queries"):
//
//   - the clause of each common word (its stem group and synonyms) with
//     its verses, weighted counts and inverse document frequency, as
//     clauseHits makes it, and the first proximityK verses of its BM25
//     ranking: the impact-ordered head of its postings. A query of one
//     such word is answered from the head, whatever the word's number of
//     verses; a query of several reads the decoded lists;
//   - the frequent words' positions, decoded, which phrases of common
//     words read in place;
//   - skip entries in the postings of words in many verses, so that
//     reading the positions of a few verses (phrases, proximity) jumps to
//     them instead of decoding every posting before them;
//   - scratch arrays over every verse, reused between queries, in which a
//     query of one word or prefix adds up its counts before a heap keeps
//     the best verses.

// shortcuts turns on what this file adds to the query path; without it
// every query takes the general one, which TestShortcuts compares with.
var shortcuts = true

// hotClause is the precomputed clause of a common word.
type hotClause struct {
	alts, syn []uint32
	own       hits // the verses of alts alone (union)
	ch        clauseHits
	head      []int32 // the best proximityK verses by BM25, best first
	blocks    blocks
}

// blocks holds a hot clause's verses as a bit set, 64 verses a block,
// with the number of its verses before each block (so that the index of
// a verse in the clause's lists is a count of bits) and the best BM25
// score of the clause in each block: block-max scores, which tell a
// conjunction of common words which blocks cannot enter its top k.
type blocks struct {
	bits []uint64
	rank []uint32
	bmax []float64
}

func (x *Index) blocksOf(ch clauseHits) blocks {
	n := (len(x.verse) + 63) / 64
	b := blocks{bits: make([]uint64, n), rank: make([]uint32, n), bmax: make([]float64, n)}
	for i, d := range ch.doc {
		k := d >> 6
		b.bits[k] |= 1 << (d & 63)
		b.bmax[k] = max(b.bmax[k], x.bm25(ch.idf, ch.tf[i], d))
	}
	for k := 1; k < n; k++ {
		b.rank[k] = b.rank[k-1] + uint32(bits.OnesCount64(b.bits[k-1]))
	}
	return b
}

// at returns the index of verse d in the clause's lists, and whether the
// clause holds it.
func (b *blocks) at(d int32) (int, bool) {
	k, bit := d>>6, uint64(1)<<(d&63)
	return int(b.rank[k]) + bits.OnesCount64(b.bits[k]&(bit-1)), b.bits[k]&bit != 0
}

// conjunctionHot does what conjunction and top(acc, k) do together, for
// a query whose clauses are all hot: it counts the verses holding every
// required clause with the bit sets, then scores only the verses of the
// blocks whose best possible score can still enter the k best, the
// blocks of highest bound first. It returns the k best in order, the
// number of verses matching, and false when the query is not such a one.
// blockMask keeps a block's number in the low bits of its sort key (a
// Bible of 65,536 blocks of 64 verses would need more).
const blockMask = 1<<16 - 1

func (x *Index) conjunctionHot(q *query, hs []clauseHits, k int) ([]scored, int, bool) {
	if !shortcuts || len(x.verse) > 64*(blockMask+1) {
		return nil, 0, false
	}
	hcs := make([]*hotClause, len(q.clauses))
	for i, c := range q.clauses {
		if hcs[i] = x.hotClause(c); hcs[i] == nil {
			return nil, 0, false
		}
	}
	order, optional := conjunctionOrder(q, hs)
	// live holds the blocks with a verse holding every required clause,
	// each as its bound's bits (monotonic in the bound, which is never
	// negative) above its number: sorted, the blocks by bound, roughly
	// (the bound's last bits give way to the number).
	var live []uint64
	nb := len(hcs[0].blocks.bits)
	match := make([]uint64, nb)
	bound := make([]float64, nb)
	total := 0
	for b := range nb {
		m := ^uint64(0)
		for _, i := range order {
			m &= hcs[i].blocks.bits[b]
		}
		if m == 0 {
			continue
		}
		total += bits.OnesCount64(m)
		// The bound adds the clauses' best scores in the order a verse's
		// score adds up: floating-point addition is monotonic, so no
		// verse of the block scores more.
		for _, i := range order {
			bound[b] += hcs[i].blocks.bmax[b]
		}
		for _, i := range optional {
			bound[b] += hcs[i].blocks.bmax[b]
		}
		match[b] = m
		live = append(live, math.Float64bits(bound[b])&^blockMask|uint64(b))
	}
	slices.Sort(live)
	best := make(topK, 0, k)
	for n := len(live) - 1; n >= 0; n-- {
		b := int(live[n] & blockMask)
		if len(best) == cap(best) && bound[b] < best[0].score {
			continue // no verse of the block can enter the k best
		}
		for m := match[b]; m != 0; m &= m - 1 {
			d := int32(b*64 + bits.TrailingZeros64(m))
			s := scored{doc: d}
			for _, i := range order {
				j, _ := hcs[i].blocks.at(d)
				s.score += x.bm25(hs[i].idf, hs[i].tf[j], d)
				s.mask |= 1 << i
			}
			for _, i := range optional {
				if j, ok := hcs[i].blocks.at(d); ok {
					s.score += x.bm25(hs[i].idf, hs[i].tf[j], d)
					s.mask |= 1 << i
				}
			}
			best.offer(s)
		}
	}
	slices.SortFunc(best, cmpScored)
	return best, total, true
}

// hotClauses computes the clause of every stem group whose words and
// synonyms are in frequentDF verses or more.
func (x *Index) hotClauses() {
	x.hot = map[uint32]*hotClause{}
	for g, ws := range x.groups {
		if len(ws) == 0 {
			continue
		}
		syn := x.synAt[x.an.Stem(x.words[ws[0]])]
		n := 0
		for _, w := range ws {
			n += int(x.df[w])
		}
		for _, w := range syn {
			n += int(x.df[w])
		}
		if n < frequentDF {
			continue
		}
		c := clause{alts: [][]uint32{ws}, syn: syn}
		own := x.union(ws)
		ch := x.clauseHits(c)
		if len(ch.doc) < frequentDF {
			continue
		}
		acc := make([]scored, len(ch.doc))
		for i, d := range ch.doc {
			acc[i] = scored{doc: d, mask: 1, score: x.bm25(ch.idf, ch.tf[i], d)}
		}
		k := min(proximityK, len(acc))
		top(acc, k)
		head := make([]int32, k)
		for i := range head {
			head[i] = acc[i].doc
		}
		x.hot[uint32(g)] = &hotClause{alts: ws, syn: syn, own: own, ch: ch, head: head, blocks: x.blocksOf(ch)}
	}
}

// hotClause returns the precomputed clause c is, or nil.
func (x *Index) hotClause(c clause) *hotClause {
	if !shortcuts || c.phrase || len(c.alts) != 1 || len(c.alts[0]) == 0 {
		return nil
	}
	hc := x.hot[x.stem[c.alts[0][0]]]
	if hc == nil || !slices.Equal(hc.alts, c.alts[0]) || !slices.Equal(hc.syn, c.syn) {
		return nil
	}
	return hc
}

// hotUnion returns the union of alts when they are a common word's stem
// group.
func (x *Index) hotUnion(alts []uint32) (hits, bool) {
	if !shortcuts || len(alts) == 0 {
		return hits{}, false
	}
	hc := x.hot[x.stem[alts[0]]]
	if hc == nil || !slices.Equal(hc.alts, alts) {
		return hits{}, false
	}
	return hc.own, true
}

// runHot answers a query of one common word from its head: the verses
// run would rank first, without scoring the others. It returns nil when
// the query is not one, or when more verses are wanted than the head has.
func (x *Index) runHot(q *query, want int) *Result {
	if !shortcuts || len(q.clauses) != 1 || want > proximityK {
		return nil
	}
	hc := x.hotClause(q.clauses[0])
	if hc == nil {
		return nil
	}
	want = min(want, len(hc.head))
	r := &Result{Intent: IntentText, Total: len(hc.ch.doc)}
	r.Verses = slices.Clone(hc.head[:want]) // the caller may change its answer
	r.masks = make([]uint32, want)
	for i := range r.masks {
		r.masks[i] = 1
	}
	r.matched = append(slices.Clone(hc.alts), hc.ch.all...)
	slices.Sort(r.matched)
	r.matched = slices.Compact(r.matched)
	return r
}

// posList holds a frequent word's positions, decoded: those in the
// verse of its i-th posting are pos[start[i]:start[i+1]].
type posList struct {
	start []uint32
	pos   []uint16
}

// frequentPositions decodes the positions of the frequent words, which
// phrases of common words and proximity read in thousands of verses.
func (x *Index) frequentPositions() {
	x.freqPos = make(map[uint32]posList, len(x.frequent))
	var buf []uint32
	for w := range x.frequent {
		pl := posList{start: make([]uint32, 1, x.df[w]+1), pos: make([]uint16, 0, x.count[w])}
		p := postings{b: x.post[w]}
		for p.next(true) {
			buf = p.positions(buf[:0])
			for _, v := range buf {
				pl.pos = append(pl.pos, uint16(v))
			}
			pl.start = append(pl.start, uint32(len(pl.pos)))
		}
		x.freqPos[w] = pl
	}
}

// phraseDecoded finds the phrase c in the verses cand (those holding all
// its words) as phrase does, when each of its words is one frequent word:
// reading the decoded positions in place, one verse at a time, instead of
// gathering them first. ok is false when c is not such a phrase.
func (x *Index) phraseDecoded(c clause, cand []int32) (h hits, ok bool) {
	if !shortcuts {
		return h, false
	}
	pls := make([]posList, len(c.alts))
	docs := make([][]int32, len(c.alts))
	for i, alts := range c.alts {
		if len(alts) != 1 {
			return h, false
		}
		if pls[i], ok = x.freqPos[alts[0]]; !ok {
			return h, false
		}
		docs[i] = x.frequent[alts[0]].doc
	}
	at := make([]int, len(c.alts))
	of := func(i int, d int32) []uint16 {
		at[i], _ = gallop(docs[i], at[i], d)
		return pls[i].pos[pls[i].start[at[i]]:pls[i].start[at[i]+1]]
	}
	rest := make([][]uint16, len(c.alts))
	for _, d := range cand {
		n := 0
		first := of(0, d)
		for i := 1; i < len(c.alts); i++ {
			rest[i] = of(i, d)
		}
		for _, p0 := range first {
			found := true
			for i := 1; i < len(rest) && found; i++ {
				found = slices.Contains(rest[i], p0+uint16(i)) && int(p0)+i <= 0xffff
			}
			if found {
				n++
			}
		}
		if n > 0 {
			h.add(d, uint32(n))
		}
	}
	return h, true
}

// skipEvery is the postings between two skip entries.
const skipEvery = 16

// skip is where a block of skipEvery postings starts: its first verse,
// the verse before it (the base of its first delta) and its offset in the
// word's postings.
type skip struct {
	first, prev int32
	off         uint32
}

// skipLists computes the skip entries of the words in more verses than
// two blocks.
func (x *Index) skipLists() {
	x.skips = make([][]skip, len(x.words))
	for w, post := range x.post {
		if x.df[w] <= 2*skipEvery {
			continue
		}
		sk := make([]skip, 0, int(x.df[w])/skipEvery)
		p := postings{b: post}
		for n := 0; ; n++ {
			prev, off := p.doc, uint32(len(post)-len(p.b))
			if !p.next(true) {
				break
			}
			if n > 0 && n%skipEvery == 0 {
				sk = append(sk, skip{first: p.doc, prev: prev, off: off})
			}
		}
		x.skips[w] = sk
	}
}

// cursor reads one word's postings in verse order, seeking with its skip
// entries.
type cursor struct {
	post []byte
	sk   []skip
	k    int // the next skip entry not yet passed
	p    postings
	on   bool // p is on a posting
}

func (x *Index) cursor(w uint32) cursor {
	c := cursor{post: x.post[w], p: postings{b: x.post[w]}}
	if shortcuts {
		c.sk = x.skips[w]
	}
	return c
}

// seek moves to the first posting of a verse at or after d and reports
// whether it is d's. The verses sought must not decrease.
func (c *cursor) seek(d int32) bool {
	if c.on && c.p.doc >= d {
		return c.p.doc == d
	}
	// The last block that starts at or before d, when it lies ahead.
	jump := -1
	for c.k < len(c.sk) && c.sk[c.k].first <= d {
		jump = c.k
		c.k++
	}
	if jump >= 0 && int(c.sk[jump].off) >= len(c.post)-len(c.p.b) {
		s := c.sk[jump]
		c.p.b, c.p.doc = c.post[s.off:], s.prev
	}
	for {
		if !c.p.next(true) {
			c.on = false
			c.p.doc = -1
			c.p.b = nil
			return false
		}
		c.on = true
		if c.p.doc >= d {
			return c.p.doc == d
		}
	}
}

// scratch is a count, a score and a mask slot per verse, and a bit per
// verse saying which slots are in use (use), so that a query clears only
// those.
type scratch struct {
	tf    []uint32
	syn   []uint32
	score []float64
	mask  []uint32
	used  []uint64
}

// getScratch returns a scratch of the index's verses with the arrays
// asked for (the others may be nil): a query allocates none of them when
// the last one's are back, and no more than it uses when not.
func (x *Index) getScratch(tf, syn, score, mask bool) *scratch {
	s, _ := x.scratch.Get().(*scratch)
	n := len(x.verse)
	if s == nil {
		s = &scratch{used: make([]uint64, (n+63)/64)}
	}
	if tf && s.tf == nil {
		s.tf = make([]uint32, n)
	}
	if syn && s.syn == nil {
		s.syn = make([]uint32, n)
	}
	if score && s.score == nil {
		s.score = make([]float64, n)
	}
	if mask && s.mask == nil {
		s.mask = make([]uint32, n)
	}
	return s
}

// putScratch clears the slots a query used and keeps the arrays for the
// next query.
func (x *Index) putScratch(s *scratch) {
	s.each(func(d int32) {
		if s.tf != nil {
			s.tf[d] = 0
		}
		if s.syn != nil {
			s.syn[d] = 0
		}
		if s.score != nil {
			s.score[d] = 0
		}
		if s.mask != nil {
			s.mask[d] = 0
		}
	})
	clear(s.used)
	x.scratch.Put(s)
}

// use marks verse d's slots in use.
func (s *scratch) use(d int32) { s.used[d>>6] |= 1 << (d & 63) }

// each calls f with each verse in use, in order.
func (s *scratch) each(f func(d int32)) {
	for i, u := range s.used {
		for u != 0 {
			f(int32(i*64 + bits.TrailingZeros64(u)))
			u &= u - 1
		}
	}
}

// runOne answers a query of one word or prefix clause without making its
// lists: its words' counts are added up in a slot per verse, then each
// verse's BM25 score offered to a heap of the best k. The ranking is
// run's, the memory a query allocates that of its answer.
func (x *Index) runOne(q *query, want int) *Result {
	if !shortcuts || len(q.clauses) != 1 || q.clauses[0].phrase {
		return nil
	}
	c := q.clauses[0]
	r := &Result{Intent: IntentText}
	if ph, ok := x.prefixHeads[c.prefix]; ok && c.prefix != "" && want <= proximityK {
		r.Total = ph.total
		r.Verses = slices.Clone(ph.head[:min(want, len(ph.head))])
	} else {
		r.Total, r.Verses = x.rankOne(c.alts[0], c.syn, want)
	}
	if r.Total == 0 {
		return r
	}
	r.masks = make([]uint32, len(r.Verses))
	for i := range r.masks {
		r.masks[i] = 1
	}
	r.matched = append(slices.Clone(c.alts[0]), c.syn...)
	slices.Sort(r.matched)
	r.matched = slices.Compact(r.matched)
	return r
}

// rankOne ranks the verses holding any of words (or of their synonyms
// syn) as run would a clause of them alone, and returns how many there
// are and the best want of them, best first.
func (x *Index) rankOne(words, syn []uint32, want int) (total int, best []int32) {
	s := x.getScratch(true, true, false, false)
	defer x.putScratch(s)
	n := 0
	add := func(ws []uint32, tf []uint32) {
		for _, w := range ws {
			if h, ok := x.frequent[w]; ok {
				for i, d := range h.doc {
					if s.tf[d] == 0 && s.syn[d] == 0 {
						n++
						s.use(d)
					}
					tf[d] += h.tf[i]
				}
				continue
			}
			p := postings{b: x.post[w]}
			for p.next(true) {
				if s.tf[p.doc] == 0 && s.syn[p.doc] == 0 {
					n++
					s.use(p.doc)
				}
				tf[p.doc] += uint32(p.tf)
			}
		}
	}
	add(words, s.tf)
	add(syn, s.syn)
	if n == 0 {
		return 0, nil
	}
	idf := math.Log(1 + (float64(len(x.verse))-float64(n)+0.5)/(float64(n)+0.5))
	heap := make(topK, 0, max(want, proximityK))
	s.each(func(d int32) {
		tf := float32(s.tf[d]) + synonymWeight*float32(s.syn[d])
		heap.offer(scored{doc: d, mask: 1, score: x.bm25(idf, tf, d)})
	})
	slices.SortFunc(heap, cmpScored)
	best = make([]int32, min(want, len(heap)))
	for i := range best {
		best[i] = heap[i].doc
	}
	return n, best
}

// prefixHead is the answer to a query of one prefix whose words are in
// many verses: how many verses hold one of them, and the first
// proximityK of their ranking.
type prefixHead struct {
	total int
	head  []int32
}

// minPrefixPostings is the fewest postings of a prefix's words for which
// its head is made at load: the prefixes of a letter or three ("the*",
// "wil*") that a query would otherwise add up over thousands of verses.
const minPrefixPostings = 2000

// prefixHeadsOf makes the heads of every prefix of the vocabulary's words
// whose words (those prefixWords picks) are in minPrefixPostings postings
// or more.
func (x *Index) prefixHeadsOf() {
	x.prefixHeads = map[string]prefixHead{}
	for i, word := range x.words {
		for end := 1; end <= len(word); end++ {
			if end < len(word) && !utf8.RuneStart(word[end]) {
				continue
			}
			p := word[:end]
			if i > 0 && strings.HasPrefix(x.words[i-1], p) {
				continue // made with an earlier word
			}
			ws := x.prefixWords(p)
			n := 0
			for _, w := range ws {
				n += int(x.df[w])
			}
			if n < minPrefixPostings {
				continue
			}
			total, head := x.rankOne(ws, nil, proximityK)
			x.prefixHeads[p] = prefixHead{total: total, head: head}
		}
	}
}

// topK keeps the best cap(k) verses offered, in a heap with the worst
// at the root.
type topK []scored

func (h *topK) offer(v scored) {
	k := *h
	if len(k) < cap(k) {
		k = append(k, v)
		for i := len(k) - 1; i > 0; {
			p := (i - 1) / 2
			if !better(k[p], k[i]) {
				break
			}
			k[p], k[i] = k[i], k[p]
			i = p
		}
		*h = k
		return
	}
	if !better(v, k[0]) {
		return
	}
	k[0] = v
	for i := 0; ; {
		l, w := 2*i+1, i
		if l < len(k) && better(k[w], k[l]) {
			w = l
		}
		if l+1 < len(k) && better(k[w], k[l+1]) {
			w = l + 1
		}
		if w == i {
			break
		}
		k[i], k[w] = k[w], k[i]
		i = w
	}
}
