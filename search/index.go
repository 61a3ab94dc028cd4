package search

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/citation"
)

// Version changes whenever the analysis or the index format changes, so
// that an unchanged Bible gets a new index.
const Version = "search-3"

// Index is the search index of one Bible, decoded in memory. It is
// immutable and safe for concurrent use.
type Index struct {
	an    *Analyzer
	lang  string
	verse []string  // verse ids (JHN.3.16), the document numbers, in canonical order
	text  []string  // each verse's plain text: no headings, notes or cross references
	lens  []uint16  // words per verse
	avg   float64   // mean words per verse
	norm  []float64 // BM25's length normalisation by verse length (derive)
	// words is the sorted vocabulary of folded words; count how often each
	// occurs; post each one's postings (format.go); stem its stem group.
	words []string
	count []uint32
	df    []uint32
	post  [][]byte
	stem  []uint32
	// groups lists the words of each stem group.
	groups [][]uint32
	books  []Book
	// Derived at load: where each verse id and chapter lies.
	verseAt   map[string]int32
	chapterAt map[string][2]int32 // "JHN.3" -> [first, end) verses
	byLen     [][]uint32          // word ids by length in runes, for typo correction
	runes     []rune              // every word's runes, word w at runeAt[w]:runeAt[w+1]
	runeAt    []int32
	hist      []histogram32     // letter histograms (typo.go)
	mask      []uint64          // letter sets (typo.go)
	dels      deletionIndex     // typo candidates (deletes.go)
	stemAt    map[string]uint32 // stem -> group
	// frequent holds the decoded verses and counts of the words in at
	// least frequentDF verses: the words most queries and phrases touch,
	// whose postings are the longest to decode.
	frequent map[uint32]hits
	// hot, skips and scratch make queries cheaper (hot.go): the clauses
	// of common words by stem group, skip entries by word, reused arrays.
	hot     map[uint32]*hotClause
	freqPos map[uint32]posList
	skips   [][]skip
	bigrams bigrams // two-word phrases of common words (bigrams.go)
	// prefixHeads answers a query of one common prefix (hot.go).
	prefixHeads map[string]prefixHead
	scratch     sync.Pool
	cite        *citation.Resolver
	// synonyms are the groups the index was built with; synAt maps a
	// stem to its synonyms' words (synonyms.go).
	synonyms Synonyms
	synAt    map[string][]uint32
	stop     map[string]bool // the language's stop words (StopWords)
}

// Book is one book's names, for reference detection.
type Book struct {
	ID    bible.BookID
	Names []string // title, full title, abbreviation as the Bible spells them
}

// Verses is one book's verses as the build hands them to Build.
type Verses struct {
	Book  bible.Book
	Texts [][]string // per chapter of Book.Chapters, per verse: plain text
}

// Build indexes a Bible's verses.
func Build(lang string, books []Verses) *Index { return BuildWith(lang, books, nil) }

// BuildWith indexes a Bible's verses with its language's synonyms.
func BuildWith(lang string, books []Verses, syn Synonyms) *Index {
	x := build(lang, books, syn)
	x.derive()
	return x
}

// BuildPart returns the index object of one book, the part of a Bible's
// index the build publishes for it (segment.go): what BuildWith(lang,
// []Verses{book}, nil).Encode() returns, without deriving what only
// queries need.
func BuildPart(lang string, book Verses) []byte {
	return build(lang, []Verses{book}, nil).Encode()
}

// build indexes verses, the derived fields left out.
func build(lang string, books []Verses, syn Synonyms) *Index {
	b := newBuilder(lang)
	b.x.synonyms = syn
	for _, bk := range books {
		b.x.books = append(b.x.books, Book{ID: bk.Book.ID, Names: citation.BookOf(&bk.Book).Names})
		for c, ch := range bk.Book.Chapters {
			for v, vs := range ch.Verses {
				text := ""
				if c < len(bk.Texts) && v < len(bk.Texts[c]) {
					text = bk.Texts[c][v]
				}
				b.add(string(bk.Book.ID)+"."+ch.ID+"."+vs.ID, text)
			}
		}
	}
	return b.finish()
}

type builder struct {
	x     *Index
	ids   map[string]uint32
	words []string
	count []uint32
	post  [][]byte // postings under construction
	last  []int32  // last document each word was seen in
	tf    []uint32 // occurrences in the current document
	pos   [][]uint32
	seen  []uint32 // words of the current document
}

func newBuilder(lang string) *builder {
	return &builder{x: &Index{an: NewAnalyzer(lang), lang: lang}, ids: map[string]uint32{}}
}

func (b *builder) add(id, text string) {
	doc := int32(len(b.x.verse))
	b.x.verse = append(b.x.verse, id)
	b.x.text = append(b.x.text, text)
	b.seen = b.seen[:0]
	n := 0
	b.x.an.Tokens(text, func(t Token) {
		w, ok := b.ids[t.Word]
		if !ok {
			w = uint32(len(b.words))
			b.ids[t.Word] = w
			b.words = append(b.words, t.Word)
			b.count = append(b.count, 0)
			b.post = append(b.post, nil)
			b.last = append(b.last, -1)
			b.tf = append(b.tf, 0)
			b.pos = append(b.pos, nil)
		}
		b.count[w]++
		if b.last[w] != doc {
			b.last[w] = doc
			b.pos[w] = b.pos[w][:0]
			b.seen = append(b.seen, w)
		}
		b.pos[w] = append(b.pos[w], uint32(n))
		n++
	})
	b.x.lens = append(b.x.lens, uint16(min(n, math.MaxUint16)))
	for _, w := range b.seen {
		b.post[w] = appendPosting(b.post[w], doc, b.pos[w])
	}
}

// finish sorts the vocabulary, renumbering the postings' word ids, and
// groups words by stem.
func (b *builder) finish() *Index {
	x := b.x
	order := make([]uint32, len(b.words))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(i, k uint32) int { return strings.Compare(b.words[i], b.words[k]) })
	x.words = make([]string, len(order))
	x.count = make([]uint32, len(order))
	x.df = make([]uint32, len(order))
	x.post = make([][]byte, len(order))
	for n, w := range order {
		x.words[n], x.count[n], x.post[n] = b.words[w], b.count[w], deltaPostings(b.post[w])
		x.df[n] = uint32(postingDocs(b.post[w]))
	}
	x.groupStems()
	return x
}

// groupStems numbers the stem groups of the sorted vocabulary in the
// order of their first word.
func (x *Index) groupStems() {
	stems := map[string]uint32{}
	x.stem = make([]uint32, len(x.words))
	x.groups = nil
	for w, word := range x.words {
		s := x.an.Stem(word)
		g, ok := stems[s]
		if !ok {
			g = uint32(len(x.groups))
			stems[s] = g
			x.groups = append(x.groups, nil)
		}
		x.stem[w] = g
		x.groups[g] = append(x.groups[g], uint32(w))
	}
}

// derive computes what the index format leaves out because it follows
// from the rest.
func (x *Index) derive() {
	total, longest := 0, 0
	for _, n := range x.lens {
		total += int(n)
		longest = max(longest, int(n))
	}
	x.avg = 1
	if len(x.lens) > 0 && total > 0 {
		x.avg = float64(total) / float64(len(x.lens))
	}
	// BM25's length normalisation of a verse of n words, by n: a verse
	// length is one of a few hundred.
	x.norm = make([]float64, longest+1)
	for n := range x.norm {
		x.norm[n] = bm25K1 * (1 - bm25B + bm25B*float64(n)/x.avg)
	}
	x.verseAt = make(map[string]int32, len(x.verse))
	x.chapterAt = map[string][2]int32{}
	for i, id := range x.verse {
		x.verseAt[id] = int32(i)
		ch := id[:strings.LastIndexByte(id, '.')]
		r, ok := x.chapterAt[ch]
		if !ok {
			r[0] = int32(i)
		}
		r[1] = int32(i + 1)
		x.chapterAt[ch] = r
	}
	if x.groups == nil {
		x.groups = [][]uint32{}
	}
	x.stemAt = make(map[string]uint32, len(x.groups))
	for g, ws := range x.groups {
		if len(ws) > 0 {
			x.stemAt[x.an.Stem(x.words[ws[0]])] = uint32(g)
		}
	}
	x.deriveBooks()
	x.deriveSynonyms()
	x.stop = StopWords(x.lang)
	x.frequent = map[uint32]hits{}
	for w, df := range x.df {
		if df >= frequentDF {
			x.frequent[uint32(w)] = x.decodePostings(uint32(w))
		}
	}
	x.hotClauses()
	x.frequentPositions()
	x.skipLists()
	x.prefixHeadsOf()
	x.bigramsOf()
	x.byLen = nil
	x.runes, x.runeAt, x.hist = nil, make([]int32, 0, len(x.words)+1), make([]histogram32, len(x.words))
	x.mask = make([]uint64, len(x.words))
	for w, word := range x.words {
		x.runeAt = append(x.runeAt, int32(len(x.runes)))
		at := len(x.runes)
		x.runes = append(x.runes, []rune(word)...)
		x.hist[w] = histogram(x.runes[at:])
		x.mask[w] = letterMask(x.runes[at:])
		n := len(x.runes) - at
		for len(x.byLen) <= n {
			x.byLen = append(x.byLen, nil)
		}
		x.byLen[n] = append(x.byLen[n], uint32(w))
	}
	x.runeAt = append(x.runeAt, int32(len(x.runes)))
	x.dels = x.deletionsOf()
}

// frequentDF is the number of verses from which a word's postings are
// kept decoded: in the WEB, about 200 words and 4 MB.
const frequentDF = 500

// Len is the number of verses indexed.
func (x *Index) Len() int { return len(x.verse) }

// Holds reports whether every word of text occurs in this Bible as
// written (folded, not stemmed): whether a suggestion drawn from a
// language's Bibles comes from this one.
func (x *Index) Holds(text string) bool {
	n, ok := 0, true
	x.an.Tokens(text, func(t Token) {
		n++
		if ok && x.word(t.Word) < 0 {
			ok = false
		}
	})
	return n > 0 && ok
}

// Language is the language tag the index was analysed for.
func (x *Index) Language() string { return x.lang }

// Verse returns verse i's id (JHN.3.16).
func (x *Index) Verse(i int32) string { return x.verse[i] }

// Text returns verse i's plain text.
func (x *Index) Text(i int32) string { return x.text[i] }

// Analyzer returns the index's analyzer.
func (x *Index) Analyzer() *Analyzer { return x.an }

// word returns the id of a folded word, or -1.
func (x *Index) word(w string) int {
	i, ok := slices.BinarySearch(x.words, w)
	if !ok {
		return -1
	}
	return i
}
