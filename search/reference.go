package search

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/citation"
)

// Reference detection: a query such as "John 3:16", "jn 3 16", "1st Cor
// 13", "Primera de Corintios 13:4" or "Jude 3" names a book, a chapter and
// optionally a verse or a run of verses, as the citation package reads
// it, from the Bible's own book names, the names readers use in its
// language and in English, and the USFM ids.

// ParseReference reads a query as a reference to a chapter or verses of a
// book this Bible has.
func (x *Index) ParseReference(q string) (citation.Citation, bool) {
	if shortcuts && !strings.ContainsAny(q, "0123456789") {
		// A chapter is written in digits: without one the resolver finds
		// at most a book, after matching the query against every book
		// name by edit distance, which most text queries would pay for.
		return citation.Citation{}, false
	}
	r, ok := x.cite.Parse(q)
	return r, ok && r.Chapter != 0
}

// deriveBooks makes the resolver of the Bible's book names. A misspelt
// name is never a word of the Bible's text.
func (x *Index) deriveBooks() {
	chapters := map[bible.BookID]int{}
	for ch := range x.chapterAt {
		book, _, _ := strings.Cut(ch, ".")
		chapters[bible.BookID(book)]++
	}
	books := make([]citation.Book, len(x.books))
	for i, b := range x.books {
		books[i] = citation.Book{ID: b.ID, Names: b.Names, Chapters: chapters[b.ID]}
	}
	x.cite = citation.NewResolver(x.lang, books, func(w string) bool { return x.word(w) >= 0 })
}

// ReferenceVerses returns the verses a reference names, in order.
func (x *Index) ReferenceVerses(r citation.Citation) []int32 {
	ch := max(r.Chapter, 1)
	span, ok := x.chapterAt[string(r.Book)+"."+strconv.Itoa(ch)]
	if !ok {
		return nil
	}
	var out []int32
	for i := span[0]; i < span[1]; i++ {
		if r.Verse != 0 {
			id := x.verse[i][strings.LastIndexByte(x.verse[i], '.')+1:]
			v, _ := strconv.Atoi(strings.TrimRightFunc(id, func(r rune) bool { return !unicode.IsDigit(r) }))
			end := r.EndVerse
			if end == 0 {
				end = r.Verse
			}
			if v < r.Verse || v > end {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}
