package publish

import (
	"strings"

	"github.com/bibleplatform/platform/bible"
)

// Entry names inside packs, shared by the build that writes them and the
// edge that reads them.
//
// Bible pack:   "bible", "index", "bridges", "books", "books/<canon>", "versification"
// Search pack:  "search" (a Bible's base), "search", "words" (a book's part)
// Book pack:    "book", "bridges", "chapters", "passage/INTRO/<variant>", "warnings"
// Chapter pack: "chapter", "verses", "verse/<id>", "passage/<variant>",
//
//	"passage/<verse>/<variant>", "segments"
const (
	NameBible    = "bible"
	NameIndex    = "index"
	NameBooks    = "books"
	NameBook     = "book"
	NameChapters = "chapters"
	NameChapter  = "chapter"
	NameVerses   = "verses"
	// NameSegments is the chapter's verses as []([]bible.Segment) in JSON,
	// parallel to the chapter's verses: what the edge composes ranges
	// from. Internal: never served as is.
	NameSegments = "segments"
	// NameWarnings is what rendering the book warned about, as a JSON
	// array of strings, so that a build that reuses the book without
	// rendering it still reports them. Internal: never served.
	NameWarnings = "warnings"
	// NameSearch is the index entry of a Bible's search pack: the object
	// search.Decode reads. Internal: never served as is.
	NameSearch = "search"
	// NameWords is the other entry of a book's part of a search index:
	// the book's verse words as written, with their counts ({"love": 310,
	// …}), which a build sums into a language's suggestion vocabulary
	// without rendering unchanged books again. Internal. (Search bases
	// before base-2 and book packs before render-5 hold them too.)
	NameWords = "words"
	// NameVersification is in a Bible's pack: the Bible's versification
	// compiled by versification.Encode (the verse counts and its mapping
	// to the original numbering), what mapping a passage between Bibles
	// reads at request time. Internal: never served.
	NameVersification = "versification"
	// NameBridges is in a Bible's pack and in a book's: where the bridges
	// of its index end (bible.Bridges in JSON, {"SIR.11.15": "16"}), which
	// the API's index has no field for. Absent when there are none, and
	// from builds before render-6. Internal: never served.
	NameBridges = "bridges"
)

// The search aids of a language (Manifest.Topics, Manifest.Suggestions),
// one pack each, so that an unchanged topical list writes nothing when a
// Bible of its language changes. Internal: the edge serves answers
// composed from them.
const (
	// NameTopics is the language's topical list, [topic.Topic…] in the
	// content team's order.
	NameTopics = "topics"
	// NameSuggestions is [topic.Suggestion…]: the language's topics, book
	// names and frequent Bible words.
	NameSuggestions = "suggestions"
)

// BooksName is the books collection filtered by canon ("" for all).
func BooksName(c bible.Canon) string {
	if c == "" {
		return NameBooks
	}
	return NameBooks + "/" + string(c)
}

// Prefixes of the per-verse and per-passage entry names.
const (
	versePrefix   = "verse/"
	passagePrefix = "passage/"
)

// VerseName is one verse object in a chapter pack.
func VerseName(verse string) string { return string(AppendVerseName(nil, verse)) }

// AppendVerseName appends VerseName(verse) to dst, so that a request can
// build the name in a stack buffer.
func AppendVerseName(dst []byte, verse string) []byte {
	return append(append(dst, versePrefix...), verse...)
}

// CutVerseName is the inverse of VerseName.
func CutVerseName(name string) (verse string, ok bool) {
	return strings.CutPrefix(name, versePrefix)
}

// Variant names a passage representation. Headings and notes apply to html
// only (spec, passage rule 1); the caller resolves their defaults (rule 2).
func Variant(html, headings, notes bool) string {
	switch {
	case !html:
		return "text"
	case headings && notes:
		return "html-hn"
	case headings:
		return "html-h"
	case notes:
		return "html-n"
	}
	return "html"
}

// Variants lists every passage variant the build renders.
var Variants = [...]string{"text", "html", "html-h", "html-n", "html-hn"}

// PassageName is a passage in a pack: verse "" for the pack's whole
// chapter, bible.IntroChapter for a book's introduction.
func PassageName(verse, variant string) string {
	return string(AppendPassageName(nil, verse, variant))
}

// AppendPassageName appends PassageName(verse, variant) to dst.
func AppendPassageName(dst []byte, verse, variant string) []byte {
	dst = append(dst, passagePrefix...)
	if verse != "" {
		dst = append(append(dst, verse...), '/')
	}
	return append(dst, variant...)
}

// CutPassageName is the inverse of PassageName: the verse ("" for the
// whole chapter, bible.IntroChapter for an introduction) and the variant.
func CutPassageName(name string) (verse, variant string, ok bool) {
	rest, ok := strings.CutPrefix(name, passagePrefix)
	if !ok {
		return "", "", false
	}
	if i := strings.LastIndexByte(rest, '/'); i >= 0 {
		return rest[:i], rest[i+1:], true
	}
	return "", rest, true
}

// FontFile is the key in Manifest.Files of a font file, by its path below
// the content directory's fonts/ (the name of the pack's one entry).
func FontFile(rel string) string { return "fonts/" + rel }

// JSON is the Content-Type of every API representation.
const JSON = "application/json; charset=utf-8"
