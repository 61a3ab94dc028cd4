package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
)

// runSearch writes the mix make bench-search sends: real-looking queries
// over one published Bible, each kind picked with a Zipf distribution over
// its candidates (a few queries are far more common than the rest):
// single words (by frequency in the text), quoted phrases and word pairs
// taken from verses, prefixes, words with a typo, and references in the
// spellings people type. It writes edge.lua for wrk, queries.txt (one
// query a line, the same mix) and verses.tsv (verse id and plain text) for
// PostgreSQL's side, and the unthrottled access file.
func runSearch(store publish.Store, be *publish.BibleEntry, n int, out, accessIn, key string) error {
	if be.Search == nil {
		return fmt.Errorf("bible %d has no search index; rebuild the store", be.ID)
	}
	x, err := search.Load(be.Search, func(ref publish.PackRef) ([]byte, error) {
		p, err := publish.LoadPack(context.Background(), store, ref)
		if err != nil {
			return nil, err
		}
		return p.Raw(publish.NameSearch)
	})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(5, 6))
	an := x.Analyzer()
	// Words by how often they occur, most frequent first; words of three
	// letters or fewer are mostly function words nobody searches alone.
	freq := map[string]int{}
	var tsv strings.Builder
	for i := range int32(x.Len()) {
		fmt.Fprintf(&tsv, "%s\t%s\n", x.Verse(i), strings.NewReplacer("\t", " ", "\n", " ", "\\", "\\\\").Replace(x.Text(i)))
		for _, w := range an.Words(x.Text(i)) {
			freq[w]++
		}
	}
	var words []string
	for w := range freq {
		if len([]rune(w)) > 3 && strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
			words = append(words, w)
		}
	}
	sortByFreq(words, freq)
	var phrases []string
	for len(phrases) < 5000 {
		ws := an.Words(x.Text(int32(rng.IntN(x.Len()))))
		if len(ws) < 3 {
			continue
		}
		l := 2 + rng.IntN(2)
		i := rng.IntN(len(ws) - l + 1)
		q := strings.Join(ws[i:i+l], " ")
		if rng.IntN(2) == 0 {
			q = `"` + q + `"`
		}
		phrases = append(phrases, q)
	}
	refs := referenceQueries(x, rng)
	zipf := func(k int) func() int {
		z := rand.NewZipf(rand.New(rand.NewPCG(uint64(k), 8)), 1.1, 1, uint64(k-1))
		return func() int { return int(z.Uint64()) }
	}
	pickWord, pickPhrase, pickRef := zipf(len(words)), zipf(len(phrases)), zipf(len(refs))
	mix := make([]string, n)
	kinds := map[string]int{}
	for i := range mix {
		switch r := rng.Float64(); {
		case r < 0.35:
			mix[i], kinds["word"] = words[pickWord()], kinds["word"]+1
		case r < 0.6:
			mix[i], kinds["phrase"] = phrases[pickPhrase()], kinds["phrase"]+1
		case r < 0.7:
			w := words[pickWord()]
			mix[i], kinds["prefix"] = w[:3+rng.IntN(len(w)-3)]+"*", kinds["prefix"]+1
		case r < 0.8:
			mix[i], kinds["typo"] = typo(words[pickWord()], rng), kinds["typo"]+1
		default:
			mix[i], kinds["reference"] = refs[pickRef()], kinds["reference"]+1
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	paths := make([]item, n)
	for i, q := range mix {
		paths[i].edge = fmt.Sprintf("/v1/search-verses?bible_id=%d&query=%s", be.ID, url.QueryEscape(q))
	}
	if err := writeLua(filepath.Join(out, "edge.lua"), paths, func(it item) string { return it.edge }, key, 0.8); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "queries.txt"), []byte(strings.Join(mix, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "verses.tsv"), []byte(tsv.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "index.bytes"), []byte(strconv.FormatInt(indexSize(be.Search), 10)+"\n"), 0o644); err != nil {
		return err
	}
	log.Printf("search mix: %d queries (%v) over %d verses", n, kinds, x.Len())
	return writeAccess(accessIn, out)
}

func sortByFreq(words []string, freq map[string]int) {
	// Stable order for equal counts, so the mix is the same every run.
	slices.SortFunc(words, func(a, b string) int {
		if freq[a] != freq[b] {
			return freq[b] - freq[a]
		}
		return strings.Compare(a, b)
	})
}

// typo applies one edit: a dropped, doubled, swapped or wrong letter.
func typo(w string, rng *rand.Rand) string {
	i := rng.IntN(len(w) - 1)
	switch rng.IntN(4) {
	case 0:
		return w[:i] + w[i+1:]
	case 1:
		return w[:i] + w[i:i+1] + w[i:]
	case 2:
		return w[:i] + w[i+1:i+2] + w[i:i+1] + w[i+2:]
	}
	return w[:i] + string(rune('a'+rng.IntN(26))) + w[i+1:]
}

// referenceQueries spells references to chapters and verses as people
// type them: "John 3:16", "jn 3 16", "Romans 8", "1 Cor 13:4-7".
func referenceQueries(x *search.Index, rng *rand.Rand) []string {
	names := map[string][]string{
		"JHN": {"John", "jn"}, "PSA": {"Psalm", "ps"}, "ROM": {"Romans", "rom"}, "GEN": {"Genesis", "gen"},
		"MAT": {"Matthew", "mt"}, "1CO": {"1 Corinthians", "1 cor"}, "ISA": {"Isaiah", "isa"},
		"PRO": {"Proverbs", "prov"}, "PHP": {"Philippians", "phil"}, "JER": {"Jeremiah", "jer"},
	}
	var out []string
	for i := range int32(x.Len()) {
		id := x.Verse(i)
		parts := strings.Split(id, ".")
		ns, ok := names[parts[0]]
		if !ok || rng.IntN(4) != 0 {
			continue
		}
		name := ns[rng.IntN(len(ns))]
		switch rng.IntN(4) {
		case 0:
			out = append(out, fmt.Sprintf("%s %s:%s", name, parts[1], parts[2]))
		case 1:
			out = append(out, fmt.Sprintf("%s %s %s", name, parts[1], parts[2]))
		case 2:
			out = append(out, fmt.Sprintf("%s %s", name, parts[1]))
		default:
			out = append(out, fmt.Sprintf("%s %s:%s-%d", name, parts[1], parts[2], atoi(parts[2])+3))
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// indexSize is the bytes of a Bible's published search index, all parts.
func indexSize(e *publish.SearchEntry) int64 {
	n := e.Pack.Size
	for _, b := range e.Books {
		n += b.Pack.Size
	}
	return n
}
