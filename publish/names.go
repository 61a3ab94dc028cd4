package publish

import "github.com/bibleplatform/platform/bible"

// Entry names inside packs, shared by the build that writes them and the
// edge that reads them.
//
// Bible pack:   "bible", "index", "books", "books/<canon>"
// Search pack:  "search"
// Book pack:    "book", "chapters", "passage/INTRO/<variant>", "words"
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
	// NameSearch is the only entry of a Bible's search pack: the index
	// object search.Decode reads. Internal: never served as is.
	NameSearch = "search"
	// NameWords is the book's verse words as written, with their counts
	// ({"love": 310, …}): what a build derives a language's suggestion
	// vocabulary from without rendering unchanged books again. Internal.
	NameWords = "words"
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

// VerseName is one verse object in a chapter pack.
func VerseName(verse string) string { return "verse/" + verse }

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
	if verse == "" {
		return "passage/" + variant
	}
	return "passage/" + verse + "/" + variant
}

// JSON is the Content-Type of every API representation.
const JSON = "application/json; charset=utf-8"
