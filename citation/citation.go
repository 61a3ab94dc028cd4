// Package citation reads a Bible citation as people write it ("John 3:16",
// "jn 3 16", "1st Corinthians 13:4-7", "Primera de Corintios 13", "Jude 3",
// "Mathew 5:9") into a book, a chapter and verses. Verse search reads a
// query as a reference with it; anything else that takes a citation typed
// by a person can share it.
//
// A book is found by, in order: the names the Bible itself gives its books,
// the names readers use in the Bible's language and in English (data files
// in names/, one per language), and USFM ids; then by a unique beginning of
// those names ("Philem"); then, for a name that is not a word of the
// Bible's text, by the one name within a small edit distance ("Revalation").
package citation

import (
	"bufio"
	"embed"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/internal/osa"
	"golang.org/x/text/unicode/norm"
)

//go:embed names/*.txt
var nameFiles embed.FS

// languageAliases maps a language to the one whose names its readers use.
var languageAliases = map[string]string{"hbo": "he"}

// Citation is what a citation names.
type Citation struct {
	Book     bible.BookID
	Chapter  int // 0: the whole book (a name alone)
	Verse    int // 0: the whole chapter
	EndVerse int // 0: a single verse
}

// Book is one book of a Bible, as the resolver knows it.
type Book struct {
	ID       bible.BookID
	Names    []string // as the Bible names it: title, full title, abbreviation
	Chapters int
}

// BookOf is a book of a Bible's index as the resolver knows it: its
// title, full title and abbreviation (those it has), and its chapters.
func BookOf(b *bible.Book) Book {
	var names []string
	for _, n := range []string{b.Title, b.FullTitle, b.Abbreviation} {
		if n != "" {
			names = append(names, n)
		}
	}
	return Book{ID: b.ID, Names: names, Chapters: len(b.Chapters)}
}

// Resolver reads citations of one Bible's books. It is immutable and safe
// for concurrent use.
type Resolver struct {
	names    map[string]bible.BookID // name key -> book
	keys     []string                // the name keys, sorted
	chapters map[bible.BookID]int
	titles   map[bible.BookID]string // a book's name in references
	ordinals map[string]string       // ordinal key -> "1".."4"
	joiners  map[string]bool
	isWord   func(string) bool
}

// NewResolver returns the resolver of a Bible's books, for a Bible of
// language tag lang. isWord reports whether a folded word is a word of the
// Bible's text (nil: none is), so that a misspelt name is never a word
// the reader may be searching for.
func NewResolver(lang string, books []Book, isWord func(string) bool) *Resolver {
	r := &Resolver{names: map[string]bible.BookID{}, chapters: map[bible.BookID]int{}, titles: map[bible.BookID]string{}, ordinals: map[string]string{}, joiners: map[string]bool{}, isWord: isWord}
	add := func(name string, id bible.BookID) {
		if k := Key(name); k != "" {
			if _, dup := r.names[k]; !dup {
				r.names[k] = id
			}
		}
	}
	for _, b := range books {
		r.chapters[b.ID] = b.Chapters
		if len(b.Names) > 0 {
			r.titles[b.ID] = b.Names[0]
		}
		for _, n := range b.Names {
			add(n, b.ID)
		}
	}
	primary, _, _ := strings.Cut(strings.ToLower(lang), "-")
	if a, ok := languageAliases[primary]; ok {
		primary = a
	}
	tables := []string{primary}
	if primary != "en" {
		tables = append(tables, "en")
	}
	for _, t := range tables {
		tb := table(t)
		for _, e := range tb.books {
			if _, ok := r.chapters[e.id]; ok {
				if r.titles[e.id] == "" {
					r.titles[e.id] = e.names[0]
				}
				for _, n := range e.names {
					add(n, e.id)
				}
			}
		}
		for k, v := range tb.ordinals {
			if _, dup := r.ordinals[k]; !dup {
				r.ordinals[k] = v
			}
		}
		for k := range tb.joiners {
			r.joiners[k] = true
		}
	}
	for _, b := range books {
		add(string(b.ID), b.ID)
	}
	for k := range r.names {
		r.keys = append(r.keys, k)
	}
	slices.Sort(r.keys)
	return r
}

// maxLen bounds the citations read: longer text is no citation.
const maxLen = 100

// Parse reads s as one citation of this Bible's books: a book, a chapter,
// a verse or a run of verses of one chapter (Resolve reads the rest:
// lists, runs across chapters, several passages). A book name alone has
// Chapter 0.
func (r *Resolver) Parse(s string) (Citation, bool) {
	if len(s) > 4*maxLen {
		return Citation{}, false
	}
	s = strings.TrimSpace(s)
	if strings.ContainsRune(s, ';') {
		return Citation{}, false
	}
	name, nums := cutNumbers(s)
	book, fuzzy, ok := r.book(name)
	if !ok || fuzzy && nums == "" {
		return Citation{}, false
	}
	c := Citation{Book: book}
	if nums == "" {
		return c, true
	}
	n, err := parseNumbers(nums, r.chapters[book] == 1)
	if err != nil || len(n.items) != 1 {
		return Citation{}, false
	}
	it := n.items[0]
	switch {
	case it.end:
		return Citation{}, false
	case it.to == place{}:
	case it.to.chap != it.from.chap || it.from.verse == 0:
		return Citation{}, false // a run of chapters
	default:
		c.EndVerse = it.to.verse
	}
	c.Chapter, c.Verse = it.from.chap, it.from.verse
	if r.chapters[book] == 1 && c.Verse == 1 && !strings.ContainsAny(nums, ":. ") && c.EndVerse == 0 {
		// "Jude 1": the one chapter.
		c.Verse = 0
	}
	if c.EndVerse != 0 && c.EndVerse <= c.Verse {
		c.EndVerse = 0
	}
	return c, true
}

// book finds the book a typed name means; fuzzy when by edit distance.
func (r *Resolver) book(name string) (id bible.BookID, fuzzy, ok bool) {
	words := strings.FieldsFunc(strings.ToLower(name), func(c rune) bool {
		return unicode.IsSpace(c) || c == '.' || c == '-' || c == '_'
	})
	if len(words) == 0 {
		return "", false, false
	}
	// An ordinal first: "1", "1st", "first", "I", "Primera (de)".
	num := ""
	if d, ok := r.ordinals[Key(words[0])]; ok && len(words) > 1 {
		num, words = d, words[1:]
		if len(words) > 1 && r.joiners[Key(words[0])] {
			words = words[1:]
		}
	} else if w := words[0]; len(w) > 1 && w[0] >= '1' && w[0] <= '4' && !unicode.IsDigit(rune(w[1])) {
		// "1cor", "1jn"
		num, words[0] = w[:1], w[1:]
	}
	key := Key(strings.Join(words, " "))
	if key == "" || strings.IndexFunc(key, unicode.IsLetter) < 0 {
		return "", false, false
	}
	if num != "" && unicode.IsDigit(rune(key[0])) {
		return "", false, false
	}
	key = num + key
	if b, ok := r.names[key]; ok {
		return b, false, true
	}
	if b, ok := r.prefix(key); ok {
		return b, false, true
	}
	if r.isWord != nil {
		for _, w := range words {
			if r.isWord(fold(w)) {
				return "", false, false
			}
		}
	}
	b, ok := r.nearest(key)
	return b, true, ok
}

// prefix finds the one book whose names begin with key (at least two
// letters).
func (r *Resolver) prefix(key string) (bible.BookID, bool) {
	if utf8.RuneCountInString(strings.TrimLeft(key, "0123456789")) < 2 {
		return "", false
	}
	i, _ := slices.BinarySearch(r.keys, key)
	var found bible.BookID
	for ; i < len(r.keys) && strings.HasPrefix(r.keys[i], key); i++ {
		b := r.names[r.keys[i]]
		if found != "" && found != b {
			return "", false
		}
		found = b
	}
	return found, found != ""
}

// nearest finds the one book with a name within maxEdits of key; names
// shorter than minFuzzy letters (abbreviations) are not compared.
func (r *Resolver) nearest(key string) (bible.BookID, bool) {
	a := []rune(key)
	letters := len([]rune(strings.TrimLeft(key, "0123456789")))
	if letters < minFuzzy {
		return "", false
	}
	limit := 1
	if letters >= 8 {
		limit = 2
	}
	rows := make([][]int, 3)
	best, found, tie := limit+1, bible.BookID(""), false
	for _, k := range r.keys {
		b := []rune(k)
		if len(b) < minFuzzy || abs(len(b)-len(a)) > limit {
			continue
		}
		for i := range rows {
			if cap(rows[i]) < len(b)+1 {
				rows[i] = make([]int, len(b)+1)
			}
		}
		d := osa.Distance(a, b, limit, false, rows)
		switch {
		case d < best:
			best, found, tie = d, r.names[k], false
		case d == best && r.names[k] != found:
			tie = true
		}
	}
	if best > limit || tie {
		return "", false
	}
	return found, true
}

// minFuzzy is the fewest letters of a name compared by edit distance.
const minFuzzy = 4

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Key folds a book name for lookup: canonical decomposition, nonspacing
// marks dropped, lower case, letters and digits only ("1 Cor." → "1cor",
// "Génesis" → "genesis").
func Key(s string) string {
	var b strings.Builder
	for _, c := range norm.NFD.String(s) {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			b.WriteRune(unicode.ToLower(c))
		}
	}
	return b.String()
}

// fold is a typed word as the search vocabulary holds it: marks dropped,
// lower case.
func fold(s string) string {
	var b strings.Builder
	for _, c := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, c) {
			b.WriteRune(unicode.ToLower(c))
		}
	}
	return norm.NFC.String(b.String())
}

// nameTable is one language's names file.
type nameTable struct {
	books []struct {
		id    bible.BookID
		names []string
	}
	ordinals map[string]string
	joiners  map[string]bool
}

var tables = map[string]*nameTable{}

func init() {
	ents, err := nameFiles.ReadDir("names")
	if err != nil {
		panic(err)
	}
	for _, e := range ents {
		lang := strings.TrimSuffix(e.Name(), ".txt")
		data, err := nameFiles.ReadFile("names/" + e.Name())
		if err != nil {
			panic(err)
		}
		t, err := parseTable(data)
		if err != nil {
			panic(fmt.Sprintf("citation: names/%s: %v", e.Name(), err))
		}
		tables[lang] = t
	}
}

func table(lang string) *nameTable {
	if t, ok := tables[lang]; ok {
		return t
	}
	return &nameTable{}
}

// parseTable reads a names file (see names/en.txt).
func parseTable(data []byte) (*nameTable, error) {
	t := &nameTable{ordinals: map[string]string{}, joiners: map[string]bool{}}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#':
		case line[0] == '+':
			t.joiners[Key(line[1:])] = true
		case line[0] == '@':
			f := strings.Split(line[1:], "|")
			if len(f) < 2 || len(f[0]) != 1 || f[0][0] < '1' || f[0][0] > '4' {
				return nil, fmt.Errorf("line %d: want @N|word|…", n)
			}
			for _, w := range f[1:] {
				t.ordinals[Key(w)] = f[0]
			}
		default:
			f := strings.Split(line, "|")
			if !bible.ValidBookID(f[0]) || len(f) < 2 {
				return nil, fmt.Errorf("line %d: want BOOK|name|…", n)
			}
			t.books = append(t.books, struct {
				id    bible.BookID
				names []string
			}{bible.BookID(f[0]), f[1:]})
		}
	}
	return t, sc.Err()
}
