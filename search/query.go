package search

import (
	"math"
	"slices"
	"strings"
)

// Limits on the work one query may cause (docs/search.md). The edge
// refuses longer queries before they get here.
const (
	MaxQueryLen     = 100 // characters, as the clients allow
	maxClauses      = 16  // words and phrases; further ones are ignored
	maxPhraseWords  = 16
	maxPrefixWords  = 256 // a prefix matches its most frequent words only
	minTypoLen      = 3   // shorter unknown words are not corrected
	maxTypoWords    = 4   // unknown words corrected per query
	maxAlternatives = 3   // did_you_mean entries
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
}

// Search answers a query: a reference when intent is IntentReference, or
// when it is "" or IntentUnknown and the query reads as a reference to
// verses this Bible has; a text search otherwise. It returns the first
// want verses of the ranking.
func (x *Index) Search(query, intent string, want int) *Result {
	if len(query) > 4*MaxQueryLen {
		query = query[:4*MaxQueryLen]
	}
	switch intent {
	case IntentReference:
		r := &Result{Intent: IntentReference}
		if ref, ok := x.parseReference(query); ok {
			r.Verses, r.Total = window(x.ReferenceVerses(ref), want)
		}
		return r
	case "", IntentUnknown:
		if ref, ok := x.ParseReference(query); ok {
			if vs := x.ReferenceVerses(ref); len(vs) > 0 {
				r := &Result{Intent: IntentReference}
				r.Verses, r.Total = window(vs, want)
				return r
			}
		}
	}
	q := x.parse(query)
	r := x.run(q, want)
	if r.Total > 0 || len(q.unknown) == 0 {
		return r
	}
	// Some word matched nothing: correct it against the vocabulary.
	fixes := x.corrections(q)
	if len(fixes) == 0 {
		return r
	}
	for _, f := range fixes {
		fq := x.parse(f)
		if len(fq.unknown) > 0 {
			continue
		}
		if r.SearchInsteadFor == "" {
			if fr := x.run(fq, want); fr.Total > 0 {
				fr.SearchInsteadFor = f
				r = fr
				continue
			}
		}
		if len(r.DidYouMean) < maxAlternatives {
			r.DidYouMean = append(r.DidYouMean, f)
		}
	}
	return r
}

func window(vs []int32, want int) ([]int32, int) {
	return vs[:min(want, len(vs))], len(vs)
}

// query is a parsed text query.
type query struct {
	raw     string
	clauses []clause
	unknown []span // words of raw the vocabulary does not have
}

type span struct{ start, end int }

// clause is a word, a prefix or a phrase; each of its positions matches
// any of its alternative words.
type clause struct {
	alts   [][]uint32
	phrase bool
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
			var alts []uint32
			if prefix {
				alts = x.prefixWords(t.Word)
			} else {
				alts = x.forms(t.Word)
			}
			if len(alts) == 0 {
				q.unknown = append(q.unknown, span{seg.start + t.Start, end})
			}
			if seg.phrase {
				c.alts = append(c.alts, alts)
			} else {
				q.clauses = append(q.clauses, clause{alts: [][]uint32{alts}})
			}
		})
		if seg.phrase && len(c.alts) > 0 {
			if len(c.alts) == 1 {
				c.phrase = false
			}
			q.clauses = append(q.clauses, c)
		}
	}
	return q
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
// in order: linear in the verses, where sorting the postings was not.
func (x *Index) unionMany(alts []uint32) hits {
	tf := make([]uint32, len(x.verse))
	n := 0
	for _, w := range alts {
		p := postings{b: x.post[w]}
		for p.next(true) {
			if tf[p.doc] == 0 {
				n++
			}
			tf[p.doc] += uint32(p.tf)
		}
	}
	h := hits{doc: make([]int32, 0, n), tf: make([]uint32, 0, n)}
	for d, c := range tf {
		if c > 0 {
			h.doc = append(h.doc, int32(d))
			h.tf = append(h.tf, c)
		}
	}
	return h
}

// phrase finds the verses where the clause's words follow each other:
// first the verses holding every word (in some form), then, in those only,
// where each word is.
func (x *Index) phrase(c clause) hits {
	us := make([]hits, len(c.alts))
	for i, alts := range c.alts {
		us[i] = x.union(alts)
	}
	cand := us[0].doc
	for _, u := range us[1:] {
		cand = intersect(cand, u.doc)
	}
	var h hits
	if len(cand) == 0 {
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

// intersect returns the documents in both sorted lists.
func intersect(a, b []int32) []int32 {
	out := make([]int32, 0, min(len(a), len(b)))
	j := 0
	for _, d := range a {
		for j < len(b) && b[j] < d {
			j++
		}
		if j == len(b) {
			break
		}
		if b[j] == d {
			out = append(out, d)
		}
	}
	return out
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
	k := 0
	for j, d := range docs {
		for u.doc[k] < d {
			k++
		}
		p.start[j+1] = p.start[j] + int(u.tf[k])
	}
	p.buf = make([]uint32, p.start[len(docs)])
	fill := make([]int, len(docs))
	copy(fill, p.start[:len(docs)])
	for _, w := range alts {
		it := postings{b: x.post[w]}
		j := 0
		for it.next(true) {
			for j < len(docs) && docs[j] < it.doc {
				j++
			}
			if j == len(docs) {
				break
			}
			if docs[j] == it.doc {
				n := len(it.positions(p.buf[fill[j]:fill[j]]))
				fill[j] += n
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
	score float64
}

// run evaluates a parsed query: every clause must match.
func (x *Index) run(q *query, want int) *Result {
	r := &Result{Intent: IntentText}
	if len(q.clauses) == 0 || len(q.unknown) > 0 {
		return r
	}
	hs := make([]hits, len(q.clauses))
	for i, c := range q.clauses {
		if c.phrase {
			hs[i] = x.phrase(c)
		} else {
			hs[i] = x.union(c.alts[0])
		}
		for _, alts := range c.alts {
			r.matched = append(r.matched, alts...)
		}
	}
	slices.Sort(r.matched)
	r.matched = slices.Compact(r.matched)
	// Intersect from the rarest clause.
	slices.SortFunc(hs, func(a, b hits) int { return len(a.doc) - len(b.doc) })
	n := float64(len(x.verse))
	acc := make([]scored, len(hs[0].doc))
	for i, d := range hs[0].doc {
		acc[i] = scored{d, 0}
	}
	for _, h := range hs {
		idf := math.Log(1 + (n-float64(len(h.doc))+0.5)/(float64(len(h.doc))+0.5))
		out := acc[:0]
		j := 0
		for _, a := range acc {
			for j < len(h.doc) && h.doc[j] < a.doc {
				j++
			}
			if j == len(h.doc) {
				break
			}
			if h.doc[j] != a.doc {
				continue
			}
			tf := float64(h.tf[j])
			norm := bm25K1 * (1 - bm25B + bm25B*float64(x.lens[a.doc])/x.avg)
			a.score += idf * tf * (bm25K1 + 1) / (tf + norm)
			out = append(out, a)
		}
		acc = out
	}
	r.Total = len(acc)
	top(acc, want)
	want = min(want, len(acc))
	r.Verses = make([]int32, want)
	for i := range want {
		r.Verses[i] = acc[i].doc
	}
	return r
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
