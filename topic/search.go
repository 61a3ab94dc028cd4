package topic

import (
	"slices"
	"sort"
	"strings"
)

// Limits on the work one query may cost (docs/search.md): a query is at
// most MaxQueryRunes (the clients' own limit), and only its first
// MaxQueryWords words are matched; the rest are ignored.
const (
	MaxQueryRunes = 100
	MaxQueryWords = 8
	// MaxTopics is the most topics one answer lists.
	MaxTopics = 25
	// maxCorrections is the most alternatives did_you_mean offers.
	maxCorrections = 3
)

// Index is one language's topics, ready to search.
type Index struct {
	topics []indexed
	// vocab is every word of the topics' texts and subtopics, sorted, with
	// the number of topics it occurs in (typo correction picks the most
	// common of equally close words).
	vocab []vocabWord
}

type indexed struct {
	Topic
	text      string   // folded text
	words     []string // folded words of the text
	subtopics []string // folded subtopics
	all       []string // folded words of the text, then of the subtopics
}

type vocabWord struct {
	word  string
	runes []rune
	count int
}

// NewIndex prepares topics for searching; their order is the tie-break
// between equally good matches.
func NewIndex(topics []Topic) *Index {
	x := &Index{}
	counts := map[string]int{}
	for _, t := range topics {
		it := indexed{Topic: t, text: Fold(t.Text)}
		it.words = strings.Fields(it.text)
		it.all = append([]string(nil), it.words...)
		seen := map[string]bool{}
		for _, w := range it.words {
			seen[w] = true
		}
		for _, s := range t.Subtopics {
			f := Fold(s)
			it.subtopics = append(it.subtopics, f)
			for _, w := range strings.Fields(f) {
				it.all = append(it.all, w)
				seen[w] = true
			}
		}
		for w := range seen {
			counts[w]++
		}
		x.topics = append(x.topics, it)
	}
	for w, n := range counts {
		x.vocab = append(x.vocab, vocabWord{word: w, runes: []rune(w), count: n})
	}
	sort.Slice(x.vocab, func(i, j int) bool { return x.vocab[i].word < x.vocab[j].word })
	return x
}

// Len is the number of topics.
func (x *Index) Len() int { return len(x.topics) }

// Result is a topic search's answer.
type Result struct {
	Topics []Topic
	// SearchInsteadFor is the corrected query the topics answer, when the
	// query as typed matched nothing; "" otherwise.
	SearchInsteadFor string
	// DidYouMean are other corrections that would also find topics.
	DidYouMean []string
}

// Search finds the topics whose text (or, ranked lower, a subtopic)
// matches every word of query as a word prefix. When nothing matches, each
// word that matches no topic word is corrected against the topics'
// vocabulary (a word of 4 runes or more may be 1 edit away from a word or
// a word's prefix, of 8 or more 2 edits), and the corrected query is
// searched instead.
func (x *Index) Search(query string) Result {
	words := QueryWords(query)
	if len(words) == 0 {
		return Result{}
	}
	if ts := x.match(words); len(ts) > 0 {
		return Result{Topics: ts}
	}
	alts := x.corrections(words)
	var res Result
	for _, alt := range alts {
		if res.Topics != nil && len(res.DidYouMean) == maxCorrections {
			break
		}
		ts := x.match(alt)
		if len(ts) == 0 {
			continue
		}
		q := strings.Join(alt, " ")
		if res.Topics == nil {
			res.Topics, res.SearchInsteadFor = ts, q
			continue
		}
		if len(res.DidYouMean) < maxCorrections {
			res.DidYouMean = append(res.DidYouMean, q)
		}
	}
	return res
}

// QueryWords folds a query into the words matched: at most
// MaxQueryWords, each cut to MaxWordRunes.
func QueryWords(query string) []string {
	words := Words(query)
	if len(words) > MaxQueryWords {
		words = words[:MaxQueryWords]
	}
	for i, w := range words {
		if r := []rune(w); len(r) > MaxWordRunes {
			words[i] = string(r[:MaxWordRunes])
		}
	}
	return words
}

// match ranks the topics every query word matches.
func (x *Index) match(q []string) []Topic {
	phrase := strings.Join(q, " ")
	type hit struct {
		rank, order int
	}
	var hits []hit
	for i := range x.topics {
		t := &x.topics[i]
		rank := -1
		switch {
		case t.text == phrase:
			rank = 0
		case strings.HasPrefix(t.text, phrase):
			rank = 1
		case allPrefix(q, t.words):
			rank = 2
		case slices.ContainsFunc(t.subtopics, func(s string) bool { return strings.HasPrefix(s, phrase) }):
			rank = 3
		case len(t.all) > len(t.words) && allPrefix(q, t.all):
			rank = 4
		}
		if rank >= 0 {
			hits = append(hits, hit{rank, i})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].rank < hits[j].rank })
	if len(hits) > MaxTopics {
		hits = hits[:MaxTopics]
	}
	out := make([]Topic, len(hits))
	for i, h := range hits {
		out[i] = x.topics[h.order].Topic
	}
	return out
}

// allPrefix reports whether every query word is a prefix of one of words.
func allPrefix(q, words []string) bool {
	for _, w := range q {
		if !slices.ContainsFunc(words, func(v string) bool { return strings.HasPrefix(v, w) }) {
			return false
		}
	}
	return true
}

// corrections returns corrected forms of q, best first: each word that is
// no prefix of a vocabulary word replaced by its closest vocabulary words
// (fewest edits, then most topics). The first form takes every word's best
// candidate; each further one swaps one word for its next candidate.
func (x *Index) corrections(q []string) [][]string {
	cands := make([][]string, len(q))
	fixed := false
	for i, w := range q {
		if x.hasPrefix(w) {
			cands[i] = []string{w}
			continue
		}
		cands[i] = x.closest(w, maxCorrections+1)
		if len(cands[i]) == 0 {
			return nil // a word with no correction: nothing can match
		}
		fixed = true
	}
	if !fixed {
		return nil
	}
	best := make([]string, len(q))
	for i := range q {
		best[i] = cands[i][0]
	}
	out := [][]string{best}
	for i := range q {
		for _, c := range cands[i][1:] {
			alt := slices.Clone(best)
			alt[i] = c
			out = append(out, alt)
		}
	}
	return out
}

func (x *Index) hasPrefix(w string) bool {
	i := sort.Search(len(x.vocab), func(i int) bool { return x.vocab[i].word >= w })
	return i < len(x.vocab) && strings.HasPrefix(x.vocab[i].word, w)
}

// closest returns up to n vocabulary words within the typo tolerance of
// w, as a whole word or as a prefix, best first.
func (x *Index) closest(w string, n int) []string {
	return closestWords(w, n, len(x.vocab), func(i int) ([]rune, string, int) {
		v := &x.vocab[i]
		return v.runes, v.word, v.count
	})
}

// closestWords ranks the words a vocabulary of size n gives (at(i): its
// runes, its string, its weight) by distance to w, whole words before
// prefixes, then weight, then the word.
func closestWords(w string, limit, n int, at func(i int) ([]rune, string, int)) []string {
	qr := []rune(w)
	k := maxEdits(len(qr))
	if k == 0 {
		return nil
	}
	type cand struct {
		word   string
		d, wgt int
	}
	var cs []cand
	for i := range n {
		r, s, wgt := at(i)
		d := distance(qr, r, k, false)
		if d > k {
			// A prefix match costs one more: "forgivn" prefers
			// "forgive" to "forgiveness" only when both are as close.
			if d = distance(qr, r, k, true); d > k {
				continue
			}
			d = 2*d + 1
		} else {
			d = 2 * d
		}
		cs = append(cs, cand{s, d, wgt})
	}
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.d != b.d {
			return a.d < b.d
		}
		if a.wgt != b.wgt {
			return a.wgt > b.wgt
		}
		return a.word < b.word
	})
	var out []string
	for _, c := range cs {
		if len(out) == limit {
			break
		}
		out = append(out, c.word)
	}
	return out
}
