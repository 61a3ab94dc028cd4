package search

import (
	"math"
	"slices"
	"strings"
)

// Limits on the work one query may cause (docs/search.md). The edge
// refuses longer queries before they get here.
const (
	MaxQueryLen    = 100 // characters, as the clients allow
	maxClauses     = 16  // words and phrases; further ones are ignored
	maxPhraseWords = 16
	maxPrefixWords = 256 // a prefix matches its most frequent words only
	// maxPostings is the postings entries one query may read (withinBudget):
	// sixteen of the commonest words of the WEB fit, phrases of them do not.
	maxPostings     = 200_000
	minTypoLen      = 3 // shorter unknown words are not corrected
	maxTypoWords    = 4 // unknown words corrected per query
	maxAlternatives = 3 // did_you_mean entries
	// minRequired is the fewest words of a query from which its stop words
	// ("the", "is", "de") are optional: a reader who types "the lord is my
	// shepherd" means the verse without "the" too.
	minRequired = 3
)

// BM25 parameters, the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Intents, as the API spells them.
const (
	IntentText      = "text"
	IntentReference = "reference"
	IntentTopical   = "topical"
	IntentUnknown   = "unknown"
)

// Result is the answer to a query.
type Result struct {
	Intent string // IntentText or IntentReference
	// Verses are the first verses of the ranking (as many as asked for);
	// Total is how many verses match in all.
	Verses []int32
	Total  int
	// SearchInsteadFor is the corrected query whose results these are,
	// when the query as typed matched nothing; DidYouMean lists other
	// corrections.
	SearchInsteadFor string
	DidYouMean       []string
	// matched holds the words that matched, sorted, for Matches.
	matched []uint32
	// masks holds, per verse of Verses, the query's clauses it holds.
	masks []uint32
}

// Search answers a query: a reference when intent is IntentReference, or
// when it is "" or IntentUnknown and the query reads as a reference to
// verses this Bible has; a text search otherwise. It returns the first
// want verses of the ranking.
func (x *Index) Search(text, intent string, want int) *Result {
	if len(text) > 4*MaxQueryLen {
		text = text[:4*MaxQueryLen]
	}
	switch intent {
	case IntentReference:
		r := &Result{Intent: IntentReference}
		if ref, ok := x.cite.Parse(text); ok {
			r.Verses, r.Total = window(x.ReferenceVerses(ref), want)
		}
		return r
	case "", IntentUnknown:
		if ref, ok := x.ParseReference(text); ok {
			if vs := x.ReferenceVerses(ref); len(vs) > 0 {
				r := &Result{Intent: IntentReference}
				r.Verses, r.Total = window(vs, want)
				return r
			}
		}
	}
	q := x.parse(text)
	if r := x.run(q, want, true); r.Total > 0 {
		return r
	}
	// Some word matches nothing, or no verse holds every word: correct
	// the words that are not in the Bible, then the words that are but
	// keep the rest of the query from matching.
	r := &Result{Intent: IntentText}
	fixes := x.corrections(q)
	if len(fixes) == 0 && len(q.unknown) == 0 {
		fixes = x.misfits(q)
	}
	var fq *query
	for _, f := range fixes {
		cq := x.parse(f)
		if len(cq.unknown) > 0 {
			continue
		}
		if fq == nil {
			fq = cq
			if cr := x.run(cq, want, true); cr.Total > 0 {
				cr.SearchInsteadFor = f
				r = cr
				continue
			}
		}
		if len(r.DidYouMean) < maxAlternatives {
			r.DidYouMean = append(r.DidYouMean, f)
		}
	}
	if r.Total > 0 {
		return r
	}
	// No verse holds every word: the verses that hold most of them, of
	// the query as corrected.
	if fq == nil {
		fq = q
	}
	pr := x.run(fq, want, false)
	if pr.Total == 0 {
		return r
	}
	pr.DidYouMean = r.DidYouMean
	pr.SearchInsteadFor = x.heldWords(fq, pr)
	return pr
}

// heldWords is the query as far as the first verse of a partial answer
// holds it: its words (and phrases) in the query's order, the others left
// out. Searched for, it finds that verse.
func (x *Index) heldWords(q *query, r *Result) string {
	if len(r.masks) == 0 {
		return ""
	}
	var b strings.Builder
	for i, c := range q.clauses {
		if r.masks[0]&(1<<i) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		w := q.raw[c.span.start:c.span.end]
		switch {
		case c.phrase:
			b.WriteString(`"` + w + `"`)
		case c.span.end < len(q.raw) && q.raw[c.span.end] == '*':
			b.WriteString(w + "*")
		default:
			b.WriteString(w)
		}
	}
	return b.String()
}

func window(vs []int32, want int) ([]int32, int) {
	return vs[:min(want, len(vs))], len(vs)
}

// query is a parsed text query.
type query struct {
	raw     string
	clauses []clause
	unknown []span // words of raw the vocabulary does not have
	// hits are the clauses' verses once a pass over them needed them
	// (queryHits): a query without an answer is evaluated again in part.
	hits []clauseHits
}

// queryHits returns the verses of each of q's clauses, made once per query.
func (x *Index) queryHits(q *query) []clauseHits {
	if q.hits == nil {
		q.hits = make([]clauseHits, len(q.clauses))
		for i, c := range q.clauses {
			q.hits[i] = x.clauseHits(c)
		}
	}
	return q.hits
}

type span struct{ start, end int }

// clause is a word, a prefix or a phrase; each of its positions matches
// any of its alternative words.
type clause struct {
	alts   [][]uint32
	syn    []uint32 // a word's synonyms (synonyms.go), matched with a lower weight
	phrase bool
	// prefix is the folded word a prefix clause matches the words of.
	prefix string
	// optional: a stop word of a longer query, which ranks the verses
	// that hold it higher but which a verse need not hold (run).
	optional bool
	// span is where the clause lies in the query.
	span span
}

// parse splits a query into quoted phrases, prefix* words and words.
func (x *Index) parse(raw string) *query {
	q := &query{raw: raw}
	for _, seg := range quoted(raw) {
		if len(q.clauses) >= maxClauses {
			break
		}
		var c clause
		c.phrase = seg.phrase
		x.an.Tokens(raw[seg.start:seg.end], func(t Token) {
			if len(q.clauses) >= maxClauses || len(c.alts) >= maxPhraseWords {
				return
			}
			end := seg.start + t.End
			prefix := !seg.phrase && end < len(raw) && raw[end] == '*'
			var alts, syn []uint32
			if prefix {
				alts = x.prefixWords(t.Word)
			} else {
				alts = x.forms(t.Word)
				for _, v := range x.an.Variants(t.Word) {
					if len(alts) > 0 {
						break
					}
					alts = x.forms(v)
				}
				if !seg.phrase {
					syn = x.synonymsOf(t.Word)
				}
			}
			sp := span{seg.start + t.Start, end}
			if len(alts) == 0 && len(syn) == 0 {
				q.unknown = append(q.unknown, sp)
			}
			if seg.phrase {
				if len(c.alts) == 0 {
					c.span.start = sp.start
				}
				c.span.end = sp.end
				c.alts = append(c.alts, alts)
			} else {
				c := clause{alts: [][]uint32{alts}, syn: syn, span: sp, optional: !prefix && x.stop[t.Word]}
				if prefix {
					c.prefix = t.Word
				}
				q.clauses = append(q.clauses, c)
			}
		})
		if seg.phrase && len(c.alts) > 0 {
			if len(c.alts) == 1 {
				c.phrase = false
			}
			q.clauses = append(q.clauses, c)
		}
	}
	q.clauses = distinctClauses(q.clauses)
	q.clauses = x.withinBudget(q.clauses)
	// Stop words are optional in a query of minRequired words or more
	// that has other words; otherwise every word is required.
	content := 0
	for _, c := range q.clauses {
		if !c.optional {
			content++
		}
	}
	if len(q.clauses) < minRequired || content == 0 {
		for i := range q.clauses {
			q.clauses[i].optional = false
		}
	}
	return q
}

// distinctClauses keeps the first of clauses that match the same words:
// a repeated word or phrase finds the same verses again, so it would
// multiply the work of a query without changing which verses answer it.
func distinctClauses(cs []clause) []clause {
	out := cs[:0]
	for _, c := range cs {
		if !slices.ContainsFunc(out, func(o clause) bool { return sameClause(o, c) }) {
			out = append(out, c)
		}
	}
	return out
}

// withinBudget keeps the clauses whose postings fit maxPostings, the
// cheapest first, in the query's order: the commonest words of a long
// query, which cost most and tell least, are the ones left out, so a
// query's work has a ceiling whatever its words (docs/search.md, Limits).
// The cheapest clause is always kept.
func (x *Index) withinBudget(cs []clause) []clause {
	cost := make([]int, len(cs))
	total := 0
	for i, c := range cs {
		cost[i] = x.clauseCost(c)
		total += cost[i]
	}
	if total <= maxPostings {
		return cs
	}
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cost[a] - cost[b] })
	keep := make([]bool, len(cs))
	spent := 0
	for n, i := range order {
		if n == 0 && cost[i] > maxPostings && cs[i].phrase {
			cs[i] = x.shortenPhrase(cs[i])
			cost[i] = x.clauseCost(cs[i])
		}
		if n > 0 && spent+cost[i] > maxPostings {
			break
		}
		spent += cost[i]
		keep[i] = true
	}
	out := cs[:0]
	for i, c := range cs {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out
}

// shortenPhrase keeps the first words of a phrase that fit maxPostings
// (one at least): the verses found then hold the phrase's beginning.
func (x *Index) shortenPhrase(c clause) clause {
	for n := len(c.alts) - 1; n >= 1; n-- {
		short := c
		short.alts = c.alts[:n]
		short.phrase = n > 1
		if n == 1 || x.clauseCost(short) <= maxPostings {
			return short
		}
	}
	return c
}

// clauseCost is the postings entries a clause reads: each word's verses,
// and for a phrase each of its occurrences as well.
func (x *Index) clauseCost(c clause) int {
	n := 0
	for _, alts := range c.alts {
		for _, w := range alts {
			n += int(x.df[w])
			if c.phrase {
				n += int(x.count[w])
			}
		}
	}
	for _, w := range c.syn {
		n += int(x.df[w])
	}
	return n
}

func sameClause(a, b clause) bool {
	return a.phrase == b.phrase && slices.Equal(a.syn, b.syn) &&
		slices.EqualFunc(a.alts, b.alts, slices.Equal[[]uint32])
}

type segment struct {
	start, end int
	phrase     bool
}

// quoted splits raw at double quotes (straight or typographic); an
// unclosed quote runs to the end.
func quoted(raw string) []segment {
	var out []segment
	start, in := 0, false
	for i, r := range raw {
		if r == '"' || r == '“' || r == '”' || r == '„' {
			if i > start {
				out = append(out, segment{start, i, in})
			}
			in = !in
			start = i + len(string(r))
		}
	}
	if start < len(raw) {
		out = append(out, segment{start, len(raw), in})
	}
	return out
}

// forms returns the words sharing a folded word's stem.
func (x *Index) forms(word string) []uint32 {
	if w := x.word(word); w >= 0 {
		return x.groups[x.stem[w]]
	}
	if g, ok := x.stemAt[x.an.Stem(word)]; ok {
		return x.groups[g]
	}
	return nil
}

// prefixWords returns the most frequent words starting with p.
func (x *Index) prefixWords(p string) []uint32 {
	lo, _ := slices.BinarySearch(x.words, p)
	hi := lo
	for hi < len(x.words) && strings.HasPrefix(x.words[hi], p) {
		hi++
	}
	ws := make([]uint32, 0, hi-lo)
	for w := lo; w < hi; w++ {
		ws = append(ws, uint32(w))
	}
	if len(ws) > maxPrefixWords {
		slices.SortFunc(ws, func(a, b uint32) int { return int(x.count[b]) - int(x.count[a]) })
		ws = ws[:maxPrefixWords]
		slices.Sort(ws)
	}
	return ws
}

// hits are the verses one clause matches, in verse order, with how often.
type hits struct {
	doc []int32
	tf  []uint32
}

func (h *hits) add(doc int32, tf uint32) {
	if n := len(h.doc); n > 0 && h.doc[n-1] == doc {
		h.tf[n-1] += tf
		return
	}
	h.doc = append(h.doc, doc)
	h.tf = append(h.tf, tf)
}

// union merges the postings of alternative words: a stem group's few
// forms merged pairwise, a prefix's many words collected and sorted.
func (x *Index) union(alts []uint32) hits {
	if h, ok := x.hotUnion(alts); ok {
		return h
	}
	if len(alts) > 16 {
		return x.unionMany(alts)
	}
	var h hits
	for i, w := range alts {
		if i == 0 {
			h = x.decode(w)
			continue
		}
		h = merge(h, x.decode(w))
	}
	return h
}

// decode reads one word's verses and counts (kept decoded for frequent
// words: see derive). The caller must not change them.
func (x *Index) decode(w uint32) hits {
	if h, ok := x.frequent[w]; ok {
		return h
	}
	return x.decodePostings(w)
}

func (x *Index) decodePostings(w uint32) hits {
	h := hits{doc: make([]int32, 0, x.df[w]), tf: make([]uint32, 0, x.df[w])}
	p := postings{b: x.post[w]}
	for p.next(true) {
		h.add(p.doc, uint32(p.tf))
	}
	return h
}

func merge(a, b hits) hits {
	h := hits{doc: make([]int32, 0, len(a.doc)+len(b.doc)), tf: make([]uint32, 0, len(a.doc)+len(b.doc))}
	i, j := 0, 0
	for i < len(a.doc) || j < len(b.doc) {
		switch {
		case j == len(b.doc) || i < len(a.doc) && a.doc[i] < b.doc[j]:
			h.add(a.doc[i], a.tf[i])
			i++
		case i == len(a.doc) || b.doc[j] < a.doc[i]:
			h.add(b.doc[j], b.tf[j])
			j++
		default:
			h.add(a.doc[i], a.tf[i]+b.tf[j])
			i++
			j++
		}
	}
	return h
}

// unionMany adds counts up in one slot per verse, then reads the slots
// in use in order: linear in the postings, where sorting them was not.
func (x *Index) unionMany(alts []uint32) hits {
	s := x.getScratch(true, false, false, false)
	defer x.putScratch(s)
	n := 0
	for _, w := range alts {
		if h, ok := x.frequent[w]; ok {
			for i, d := range h.doc {
				if s.tf[d] == 0 {
					n++
					s.use(d)
				}
				s.tf[d] += h.tf[i]
			}
			continue
		}
		p := postings{b: x.post[w]}
		for p.next(true) {
			if s.tf[p.doc] == 0 {
				n++
				s.use(p.doc)
			}
			s.tf[p.doc] += uint32(p.tf)
		}
	}
	h := hits{doc: make([]int32, 0, n), tf: make([]uint32, 0, n)}
	s.each(func(d int32) {
		h.doc = append(h.doc, d)
		h.tf = append(h.tf, s.tf[d])
	})
	return h
}

// phrase finds the verses where the clause's words follow each other:
// first the verses holding every word (in some form), then, in those only,
// where each word is.
func (x *Index) phrase(c clause) hits {
	if len(c.alts) == 2 {
		if h, ok := x.bigram(c.alts[0], c.alts[1]); ok {
			return h
		}
	}
	us := make([]hits, len(c.alts))
	for i, alts := range c.alts {
		us[i] = x.union(alts)
	}
	cand := x.phraseCandidates(c, us)
	var h hits
	if len(cand) == 0 {
		return h
	}
	if h, ok := x.phraseDecoded(c, cand); ok {
		return h
	}
	pos := make([]positions, len(c.alts))
	for i, alts := range c.alts {
		pos[i] = x.positionsIn(alts, us[i], cand)
	}
	for j, d := range cand {
		n := 0
		for _, p0 := range pos[0].of(j) {
			ok := true
			for i := 1; i < len(pos) && ok; i++ {
				_, ok = slices.BinarySearch(pos[i].of(j), p0+uint32(i))
			}
			if ok {
				n++
			}
		}
		if n > 0 {
			h.add(d, uint32(n))
		}
	}
	return h
}

// intersect returns the documents in both sorted lists, galloping
// through the longer one.
func intersect(a, b []int32) []int32 {
	if len(a) > len(b) {
		a, b = b, a
	}
	out := make([]int32, 0, len(a))
	j := 0
	for _, d := range a {
		var found bool
		if j, found = gallop(b, j, d); found {
			out = append(out, d)
		}
		if j == len(b) {
			break
		}
	}
	return out
}

// gallop returns the index of the first of list[from:] at or after d and
// whether it is d: a few steps when it is near, a binary search of a
// range that doubles when it is far.
func gallop(list []int32, from int, d int32) (int, bool) {
	for end := min(from+4, len(list)); from < end; from++ {
		if list[from] >= d {
			return from, list[from] == d
		}
	}
	lo, step := from, 1
	for lo+step < len(list) && list[lo+step] < d {
		lo += step
		step *= 2
	}
	hi := min(lo+step+1, len(list))
	i, found := slices.BinarySearch(list[lo:hi], d)
	return lo + i, found
}

// positions holds, for each of a list of verses, where a word occurs in
// it: one buffer, cut at start.
type positions struct {
	buf   []uint32
	start []int // len(verses)+1
}

func (p positions) of(j int) []uint32 { return p.buf[p.start[j]:p.start[j+1]] }

// positionsIn collects where any of alts occurs in each of docs (a subset
// of u's, u being the union of alts).
func (x *Index) positionsIn(alts []uint32, u hits, docs []int32) positions {
	p := positions{start: make([]int, len(docs)+1)}
	at := make([]int, len(docs)) // where each of docs is in u
	k := 0
	for j, d := range docs {
		k, _ = gallop(u.doc, k, d)
		at[j] = k
		p.start[j+1] = p.start[j] + int(u.tf[k])
	}
	p.buf = make([]uint32, p.start[len(docs)])
	fill := make([]int, len(docs))
	copy(fill, p.start[:len(docs)])
	for _, w := range alts {
		if pl, ok := x.freqPos[w]; ok && shortcuts {
			h, k := x.frequent[w], 0
			for j, d := range docs {
				if len(alts) == 1 {
					k = at[j] // u is w's postings
				} else if k, ok = gallop(h.doc, k, d); !ok {
					continue
				}
				for _, v := range pl.pos[pl.start[k]:pl.start[k+1]] {
					p.buf[fill[j]] = uint32(v)
					fill[j]++
				}
			}
			continue
		}
		c := x.cursor(w)
		for j, d := range docs {
			if c.seek(d) {
				fill[j] += len(c.p.positions(p.buf[fill[j]:fill[j]]))
			}
		}
	}
	if len(alts) > 1 {
		for j := range docs {
			slices.Sort(p.of(j))
		}
	}
	return p
}

type scored struct {
	doc   int32
	mask  uint32 // the clauses the verse holds, bit i for clause i
	score float64
}

// Ranking weights (docs/search.md).
const (
	// synonymWeight scales a synonym's occurrences against the word's own
	// forms.
	synonymWeight = 0.5
	// proximityK is how many of the best verses by BM25 are ranked again
	// with the proximity of their words; a constant, so that every page
	// of an answer comes from the same order.
	proximityK = 100
	// proximityWeight scales the proximity bonus of two query words side
	// by side in the query's order against their inverse document
	// frequency.
	proximityWeight = 1.0
	// proximityMaxDF: the positions of a word in more verses than this
	// (the commonest words: in the WEB, about 40) are not read, since
	// reading them walks its whole postings for a bonus its low inverse
	// document frequency makes small.
	proximityMaxDF = 4000
	// proximityWindow is the farthest apart, in words, two query words
	// still count as near.
	proximityWindow = 8
)

// clauseHits are the verses one clause matches: how often its words
// occur there (its synonyms' occurrences weighted down), and how many
// verses the clause is in, over all, for its inverse document frequency.
type clauseHits struct {
	doc []int32
	tf  []float32
	idf float64
	// all are the clause's words and where any of them occurs (unweighted
	// counts), for proximity; nil for a phrase.
	all  []uint32
	uall hits
}

func (x *Index) clauseHits(c clause) clauseHits {
	if hc := x.hotClause(c); hc != nil {
		return hc.ch
	}
	var h hits
	if c.phrase {
		h = x.phrase(c)
	} else {
		h = x.union(c.alts[0])
	}
	var ch clauseHits
	if len(c.syn) == 0 {
		ch.doc = h.doc
		ch.tf = make([]float32, len(h.tf))
		for i, tf := range h.tf {
			ch.tf[i] = float32(tf)
		}
		if !c.phrase {
			ch.all, ch.uall = c.alts[0], h
		}
	} else {
		s := x.union(c.syn)
		ch.doc = make([]int32, 0, len(h.doc)+len(s.doc))
		ch.tf = make([]float32, 0, len(h.doc)+len(s.doc))
		i, j := 0, 0
		for i < len(h.doc) || j < len(s.doc) {
			switch {
			case j == len(s.doc) || i < len(h.doc) && h.doc[i] < s.doc[j]:
				ch.doc, ch.tf = append(ch.doc, h.doc[i]), append(ch.tf, float32(h.tf[i]))
				i++
			case i == len(h.doc) || s.doc[j] < h.doc[i]:
				ch.doc, ch.tf = append(ch.doc, s.doc[j]), append(ch.tf, synonymWeight*float32(s.tf[j]))
				j++
			default:
				ch.doc, ch.tf = append(ch.doc, h.doc[i]), append(ch.tf, float32(h.tf[i])+synonymWeight*float32(s.tf[j]))
				i++
				j++
			}
		}
		ch.all = append(slices.Clone(c.alts[0]), c.syn...)
		slices.Sort(ch.all)
		ch.all = slices.Compact(ch.all)
		ch.uall = merge(h, s)
	}
	n, df := float64(len(x.verse)), float64(len(ch.doc))
	ch.idf = math.Log(1 + (n-df+0.5)/(df+0.5))
	return ch
}

// bm25 is one clause's share of a verse's score.
func (x *Index) bm25(idf float64, tf float32, doc int32) float64 {
	t := float64(tf)
	return idf * t * (bm25K1 + 1) / (t + x.norm[x.lens[doc]])
}

// run evaluates a parsed query. With all, a verse must hold every clause
// and is ranked by BM25; without, it must hold one, and BM25 is scaled by
// the share of the query's inverse document frequency the verse holds
// (so a verse with the rare words of the query comes before one with its
// common words). Either way the best proximityK verses are ranked again
// with the proximity of the query's words in them.
func (x *Index) run(q *query, want int, all bool) *Result {
	r := &Result{Intent: IntentText}
	if len(q.clauses) == 0 || all && len(q.unknown) > 0 {
		return r
	}
	if hr := x.runHot(q, want); hr != nil {
		return hr
	}
	if all {
		if br := x.runBigram(q, want); br != nil {
			return br
		}
		if or := x.runOne(q, want); or != nil {
			return or
		}
	}
	hs := x.queryHits(q)
	var acc []scored
	switch {
	case !all:
		acc = x.disjunction(hs)
		r.Total = len(acc)
	default:
		var ok bool
		if acc, r.Total, ok = x.conjunctionHot(q, hs, max(want, proximityK)); !ok {
			acc = x.conjunction(q, hs)
			r.Total = len(acc)
		}
	}
	if r.Total == 0 {
		return r
	}
	for i, c := range q.clauses {
		for _, alts := range c.alts {
			r.matched = append(r.matched, alts...)
		}
		r.matched = append(r.matched, hs[i].all...)
	}
	slices.Sort(r.matched)
	r.matched = slices.Compact(r.matched)
	top(acc, max(want, proximityK))
	x.proximity(q, hs, acc[:min(proximityK, len(acc))])
	want = min(want, len(acc))
	r.Verses = make([]int32, want)
	r.masks = make([]uint32, want)
	for i := range want {
		r.Verses[i] = acc[i].doc
		r.masks[i] = acc[i].mask
	}
	return r
}

// conjunction scores the verses holding every required clause,
// intersecting from the rarest; the optional clauses add to the score of
// the verses that hold them.
func (x *Index) conjunction(q *query, hs []clauseHits) []scored {
	order, optional := conjunctionOrder(q, hs)
	first := hs[order[0]]
	acc := make([]scored, len(first.doc))
	for i, d := range first.doc {
		acc[i] = scored{doc: d}
	}
	for _, k := range order {
		h := hs[k]
		out := acc[:0]
		j := 0
		for _, a := range acc {
			var found bool
			if j, found = gallop(h.doc, j, a.doc); !found {
				if j == len(h.doc) {
					break
				}
				continue
			}
			a.score += x.bm25(h.idf, h.tf[j], a.doc)
			a.mask |= 1 << k
			out = append(out, a)
		}
		acc = out
	}
	for _, k := range optional {
		h := hs[k]
		j := 0
		for i := range acc {
			a := &acc[i]
			var found bool
			if j, found = gallop(h.doc, j, a.doc); j == len(h.doc) {
				break
			}
			if found {
				a.score += x.bm25(h.idf, h.tf[j], a.doc)
				a.mask |= 1 << k
			}
		}
	}
	return acc
}

// conjunctionOrder returns the required clauses of q, rarest first, the
// order in which their scores add up, and the optional ones.
func conjunctionOrder(q *query, hs []clauseHits) (order, optional []int) {
	for i, c := range q.clauses {
		if c.optional {
			optional = append(optional, i)
		} else {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return len(hs[a].doc) - len(hs[b].doc) })
	return order, optional
}

// disjunction scores the verses holding any clause.
func (x *Index) disjunction(hs []clauseHits) []scored {
	s := x.getScratch(false, false, true, true)
	defer x.putScratch(s)
	total, n := 0.0, 0
	for k, h := range hs {
		if len(h.doc) == 0 {
			continue
		}
		total += h.idf
		for j, d := range h.doc {
			if s.mask[d] == 0 {
				n++
				s.use(d)
			}
			s.score[d] += x.bm25(h.idf, h.tf[j], d)
			s.mask[d] |= 1 << k
		}
	}
	acc := make([]scored, 0, n)
	s.each(func(d int32) {
		m := s.mask[d]
		held := 0.0
		for k := range hs {
			if m&(1<<k) != 0 {
				held += hs[k].idf
			}
		}
		acc = append(acc, scored{doc: d, mask: m, score: s.score[d] * held / total})
	})
	return acc
}

// proximity adds to each of the verses (the best, in order) a bonus for
// each two words next to each other in the query that are near each other
// in the verse, more when in the query's order, and sorts them again.
func (x *Index) proximity(q *query, hs []clauseHits, best []scored) {
	if len(q.clauses) < 2 || len(best) == 0 {
		return // no two words to be near each other
	}
	// Where each word clause's words are in the verses that hold it.
	docs := make([][]int32, len(hs))
	pos := make([]positions, len(hs))
	for k, h := range hs {
		if h.all == nil || len(h.uall.doc) > proximityMaxDF {
			continue
		}
		for _, b := range best {
			if b.mask&(1<<k) != 0 {
				docs[k] = append(docs[k], b.doc)
			}
		}
		slices.Sort(docs[k])
		pos[k] = x.positionsIn(h.all, h.uall, docs[k])
	}
	for i := range best {
		b := &best[i]
		for k := 0; k+1 < len(hs); k++ {
			l := k + 1
			if b.mask&(1<<k) == 0 || b.mask&(1<<l) == 0 || docs[k] == nil || docs[l] == nil {
				continue
			}
			pk := pos[k].of(docIndex(docs[k], b.doc))
			pl := pos[l].of(docIndex(docs[l], b.doc))
			b.score += proximityWeight * min(hs[k].idf, hs[l].idf) * closeness(pk, pl)
		}
	}
	slices.SortFunc(best, cmpScored)
}

func docIndex(docs []int32, d int32) int {
	i, _ := slices.BinarySearch(docs, d)
	return i
}

// closeness is 1 for two words side by side in order, less as they lie
// farther apart, half as much in the other order, and 0 beyond
// proximityWindow.
func closeness(a, b []uint32) float64 {
	best := 0.0
	for _, p := range a {
		for _, q := range b {
			d := int(q) - int(p)
			var c float64
			switch {
			case d > 0 && d <= proximityWindow:
				c = 1 / float64(d)
			case d < 0 && -d <= proximityWindow:
				c = 0.5 / float64(-d)
			}
			best = max(best, c)
		}
	}
	return best
}

// better is the ranking: higher score first, then canonical order.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.doc < b.doc
}

// top puts the best k of s first, in order: a quickselect, then a sort
// of the k alone (the ranking of a common word is never sorted whole).
func top(s []scored, k int) {
	if k >= len(s) {
		slices.SortFunc(s, cmpScored)
		return
	}
	if k <= 0 {
		return
	}
	lo, hi := 0, len(s)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		s[mid], s[hi] = s[hi], s[mid]
		p, st := s[hi], lo
		for i := lo; i < hi; i++ {
			if better(s[i], p) {
				s[i], s[st] = s[st], s[i]
				st++
			}
		}
		s[st], s[hi] = s[hi], s[st]
		if st < k {
			lo = st + 1
		} else {
			hi = st - 1
		}
	}
	slices.SortFunc(s[:k], cmpScored)
}

func cmpScored(a, b scored) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}

// Span is where a matched word lies in a verse's text, in Unicode code
// points from the start of the text, end exclusive.
type Span struct{ Start, End int }

// Matches returns where the words a text result matched lie in verse i's
// text (none for a reference result).
func (x *Index) Matches(r *Result, i int32) []Span {
	if len(r.matched) == 0 {
		return nil
	}
	text := x.text[i]
	var out []Span
	runes, at := 0, 0
	x.an.Tokens(text, func(t Token) {
		w := x.word(t.Word)
		if w < 0 {
			return
		}
		if _, ok := slices.BinarySearch(r.matched, uint32(w)); !ok {
			return
		}
		runes += countRunes(text[at:t.Start])
		s := runes
		runes += countRunes(text[t.Start:t.End])
		at = t.End
		out = append(out, Span{s, runes})
	})
	return out
}

func countRunes(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}
