package topic

import (
	"slices"
	"sort"
	"strings"
)

// Sources of suggestions, as the answer's "source" names them.
const (
	SourceTopic      = "topic"
	SourceBook       = "book"
	SourceVocabulary = "vocabulary"
)

// Suggestion is one candidate of as-you-type suggestions.
type Suggestion struct {
	Text   string `json:"text"`
	Source string `json:"source"`
	// Weight orders candidates of one source: how often a word occurs in
	// the language's Bibles, how many Bibles name a book so.
	Weight int `json:"weight"`
}

// MaxSuggestions is the most suggestions one answer gives.
const MaxSuggestions = 10

// sourceRank puts topics before book names before Bible words.
var sourceRank = map[string]int{SourceTopic: 0, SourceBook: 1, SourceVocabulary: 2}

// sourceOf gives each source's name as the constant.
var sourceOf = map[string]string{SourceTopic: SourceTopic, SourceBook: SourceBook, SourceVocabulary: SourceVocabulary}

// Suggester answers as-you-type queries from one language's candidates.
type Suggester struct {
	cands []suggestCand // by folded text
	multi []int         // candidates of more than one word
}

type suggestCand struct {
	Suggestion
	folded string   // Text when folding leaves it as it is
	words  []string // a multi-word candidate's words; nil for one word
}

// NewSuggester prepares candidates; of candidates that fold alike, the
// first source in sourceRank order is kept.
func NewSuggester(list []Suggestion) *Suggester {
	byKey := map[string]suggestCand{}
	for _, s := range list {
		f := Fold(s.Text)
		if f == "" {
			continue
		}
		if old, ok := byKey[f]; ok && !better(s, old.Suggestion) {
			continue
		}
		// An edge keeps every language's suggester for a build's life:
		// tens of thousands of candidates, most of one word and many
		// already folded, whose every allocation the collector marks at
		// each cycle. Those share the text, and hold no words; a
		// candidate's source is the constant.
		c := suggestCand{Suggestion: s, folded: f}
		if src, ok := sourceOf[s.Source]; ok {
			c.Source = src // the constant, not the decoder's copy
		}
		if f == s.Text {
			c.folded = s.Text
		}
		if strings.IndexByte(f, ' ') >= 0 {
			c.words = strings.Fields(f)
		}
		byKey[f] = c
	}
	x := &Suggester{}
	for _, c := range byKey {
		x.cands = append(x.cands, c)
	}
	sort.Slice(x.cands, func(i, j int) bool { return x.cands[i].folded < x.cands[j].folded })
	for i, c := range x.cands {
		if len(c.words) > 1 {
			x.multi = append(x.multi, i)
		}
	}
	return x
}

func better(a, b Suggestion) bool {
	if sourceRank[a.Source] != sourceRank[b.Source] {
		return sourceRank[a.Source] < sourceRank[b.Source]
	}
	return a.Weight > b.Weight
}

// Len is the number of candidates.
func (x *Suggester) Len() int { return len(x.cands) }

// Suggest returns up to MaxSuggestions candidates for what the user has
// typed so far: those that start with it, then multi-word ones each of
// whose words the typed words start ("one an" finds "love one another"),
// each group by source and weight. Nothing typed but spaces and
// punctuation suggests nothing.
func (x *Suggester) Suggest(query string) []Suggestion { return x.SuggestWhere(query, nil) }

// SuggestWhere is Suggest among the candidates keep accepts (all when
// keep is nil): the caller's rule of which it may show, applied before the
// list is cut to MaxSuggestions so that refused ones leave no gap.
func (x *Suggester) SuggestWhere(query string, keep func(Suggestion) bool) []Suggestion {
	words := QueryWords(query)
	if len(words) == 0 {
		return nil
	}
	q := strings.Join(words, " ")
	lo := sort.Search(len(x.cands), func(i int) bool { return x.cands[i].folded >= q })
	hi := lo
	for hi < len(x.cands) && strings.HasPrefix(x.cands[hi].folded, q) {
		hi++
	}
	type hit struct {
		i, rank int
	}
	var hits []hit
	for i := lo; i < hi; i++ {
		hits = append(hits, hit{i, 0})
	}
	for _, i := range x.multi {
		if (i < lo || i >= hi) && allPrefix(words, x.cands[i].words) {
			hits = append(hits, hit{i, 1})
		}
	}
	sort.Slice(hits, func(a, b int) bool {
		ha, hb := hits[a], hits[b]
		if ha.rank != hb.rank {
			return ha.rank < hb.rank
		}
		ca, cb := &x.cands[ha.i], &x.cands[hb.i]
		if ca.Source != cb.Source {
			return sourceRank[ca.Source] < sourceRank[cb.Source]
		}
		if ca.Weight != cb.Weight {
			return ca.Weight > cb.Weight
		}
		return ca.folded < cb.folded
	})
	if keep != nil {
		hits = slices.DeleteFunc(hits, func(h hit) bool { return !keep(x.cands[h.i].Suggestion) })
	}
	if len(hits) > MaxSuggestions {
		hits = hits[:MaxSuggestions]
	}
	out := make([]Suggestion, len(hits))
	for i, h := range hits {
		out[i] = x.cands[h.i].Suggestion
	}
	return out
}
