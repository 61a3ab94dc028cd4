package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/bibleplatform/platform/publish"
)

// A Bible's index is published in parts, so that a change in one book
// rewrites that book's part only: a segment per book (BuildWith of that
// book alone, the same object format) and a base (BuildWith of no book:
// the language and the synonyms). The edge merges them at load into the
// index BuildWith makes of every book at once, byte for byte, so ranking,
// paging and every other guarantee are those of one index.

// Merge joins a base and the segments of a Bible's books, in canonical
// order. The segments must be of the base's language.
func Merge(base *Index, segs []*Index) (*Index, error) {
	x := &Index{an: base.an, lang: base.lang, synonyms: base.synonyms}
	n, nw := 0, 0
	for _, s := range segs {
		if s.lang != base.lang {
			return nil, errors.New("search: a segment of language " + s.lang + " in an index of " + base.lang)
		}
		n += len(s.verse)
		nw += len(s.words)
	}
	x.verse, x.text, x.lens = make([]string, 0, n), make([]string, 0, n), make([]uint16, 0, n)
	bases := make([]int32, len(segs))
	all := make([]string, 0, nw)
	for i, s := range segs {
		bases[i] = int32(len(x.verse))
		x.verse = append(x.verse, s.verse...)
		x.text = append(x.text, s.text...)
		x.lens = append(x.lens, s.lens...)
		x.books = append(x.books, s.books...)
		all = append(all, s.words...)
	}
	slices.Sort(all)
	x.words = slices.Compact(all)
	x.count = make([]uint32, len(x.words))
	x.df = make([]uint32, len(x.words))
	x.post = make([][]byte, len(x.words))
	last := make([]int32, len(x.words)) // the last verse of each word's postings so far
	for i, s := range segs {
		g := 0 // s.words and x.words are both sorted: walk them together
		for w, word := range s.words {
			for x.words[g] != word {
				g++
			}
			x.count[g] += s.count[w]
			x.df[g] += s.df[w]
			var lastLocal int32
			x.post[g], lastLocal = rebase(x.post[g], s.post[w], bases[i]-last[g])
			last[g] = bases[i] + lastLocal
		}
	}
	x.groupStems()
	x.derive()
	return x, nil
}

// rebase appends a segment's postings of one word to dst, the first
// verse's delta shifted by shift, and returns the segment's last verse.
func rebase(dst, post []byte, shift int32) ([]byte, int32) {
	d, k := binary.Uvarint(post)
	if k <= 0 {
		return dst, 0
	}
	dst = binary.AppendUvarint(dst, uint64(int32(d)+shift))
	dst = append(dst, post[k:]...)
	p := postings{b: post}
	for p.next(true) {
	}
	return dst, p.doc
}

// Load reads a Bible's published index (e, a manifest's entry): its
// base, then its books' parts in order, merged. index returns the index
// object of a pack (its publish.NameSearch entry). An entry without parts
// (from builds before them) is a whole index in its pack.
func Load(e *publish.SearchEntry, index func(publish.PackRef) ([]byte, error)) (*Index, error) {
	base, err := index(e.Pack)
	if err != nil {
		return nil, err
	}
	x, err := decode(base)
	if err != nil {
		return nil, err
	}
	if len(e.Books) == 0 {
		x.derive()
		return x, nil
	}
	segs := make([]*Index, len(e.Books))
	for i, b := range e.Books {
		data, err := index(b.Pack)
		if err != nil {
			return nil, err
		}
		if segs[i], err = decode(data); err != nil {
			return nil, fmt.Errorf("%s: %w", b.ID, err)
		}
	}
	return Merge(x, segs)
}
