package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
)

// verseTexts is the plain text of each verse of a rendered book, per
// chapter: what search indexes (no headings, notes or cross references).
func verseTexts(chapters []render.Chapter) [][]string {
	vs := make([][][]bible.Segment, len(chapters))
	for i := range chapters {
		vs[i] = chapters[i].Verses
	}
	return segmentTexts(vs)
}

func segmentTexts(chapters [][][]bible.Segment) [][]string {
	out := make([][]string, len(chapters))
	for c, verses := range chapters {
		out[c] = make([]string, len(verses))
		for v, segs := range verses {
			out[c][v] = bible.ComposeText(segs)
		}
	}
	return out
}

// synonymsDir holds one synonyms file per language:
// synonyms/<language>.txt (docs/search.md describes the format).
const synonymsDir = "synonyms"

// readSynonyms reads every synonyms file. A bad line is a warning (the
// group is left out); a file whose name is not a language tag is an error.
func readSynonyms(content string) (map[string]search.Synonyms, []error, error) {
	files, err := languageFiles(content, synonymsDir, ".txt")
	if err != nil {
		return nil, nil, err
	}
	out := map[string]search.Synonyms{}
	var warns []error
	for _, f := range files {
		syn, errs := search.ParseSynonyms(f.name, f.data)
		warns = append(warns, errs...)
		out[f.tag] = syn
	}
	return out, warns, nil
}

// synonymsFor returns the synonyms of a Bible's language: those of its
// tag, else of its primary language ("en" for "en-GB").
func (b *builder) synonymsFor(tag string) search.Synonyms {
	if syn, ok := b.synonyms[tag]; ok {
		return syn
	}
	primary, _, _ := strings.Cut(tag, "-")
	return b.synonyms[primary]
}

// searchPartLayout changes with what a book's part of a search index
// holds, and searchBaseLayout with what a Bible's base holds, so that
// older packs are not reused.
const (
	searchPartLayout = "books-1" // the book's index and its verse words with their counts (publish.NameWords)
	searchBaseLayout = "base-2"  // the language's synonyms alone (base-1 also held the Bible's words)
)

// searchIndex publishes a Bible's search index in parts (search.Merge
// joins them): a pack per book, with the book's index and its verse words
// with their counts, and a base pack with the language's synonyms, the
// same for every Bible of the language. A book's part depends on its
// source alone, so a change in one book writes that book's part and
// nothing else of the index; an unchanged Bible reuses everything.
// The Bible's words (what its language's suggestions are made of,
// languagePacks) are the sum of its books': a reused book's are read from
// its part (countWords), a part made now counts them from its text.
// A book not rendered in this build whose part must be made again (a new
// index version) gives its text back from its published chapter packs.
func (b *builder) searchIndex(ctx context.Context, bj *bibleJob) (*publish.SearchEntry, error) {
	cb, books := bj.bible, bj.books
	lang := cb.Meta.LanguageTag
	syn := b.synonymsFor(lang)
	parts := make([]publish.SearchBook, len(books))
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%q\x00", search.Version, searchPartLayout, searchBaseLayout, lang, syn)
	for i, j := range books {
		parts[i] = publish.SearchBook{ID: string(j.id), Source: searchPartSource(lang, j.entry.Source)}
		fmt.Fprintf(h, "%s\x00", parts[i].Source)
	}
	source := hex.EncodeToString(h.Sum(nil)[:16])
	start := time.Now()
	prev, unchanged := b.prevSearch[source]
	for i, j := range books {
		if ref, ok := b.prevSearchBooks[parts[i].Source]; ok && b.countPart(ctx, j, ref) {
			parts[i].Pack = ref
			continue
		}
		// No part of this book's source, or one whose words cannot be
		// read: make it.
		unchanged = false
		texts := j.texts
		if texts == nil {
			var err error
			if texts, err = b.publishedTexts(ctx, j.entry); err != nil {
				return nil, fmt.Errorf("build: search index of %d: %s: %w", cb.Meta.ID, j.id, err)
			}
		}
		words := wordsOf(texts)
		if !j.counted {
			bj.addWords(words)
			j.counted = true
		}
		w := publish.NewPackWriter()
		w.AddRaw(publish.NameSearch, "application/octet-stream", search.BuildPart(lang, search.Verses{Book: j.index, Texts: texts}))
		w.AddRaw(publish.NameWords, publish.JSON, mustJSON(words))
		ref, err := b.put(ctx, w, fmt.Sprintf("the search index of Bible %d, %s", cb.Meta.ID, j.id))
		if err != nil {
			return nil, err
		}
		parts[i].Pack = ref
	}
	if unchanged {
		b.count(func(r *Report) { r.Skipped++ })
		return &prev, nil
	}
	w := publish.NewPackWriter()
	w.AddRaw(publish.NameSearch, "application/octet-stream", search.BuildWith(lang, nil, syn).Encode())
	ref, err := b.put(ctx, w, fmt.Sprintf("the search base of Bible %d", cb.Meta.ID))
	b.count(func(r *Report) { r.SearchBuilt++; r.Search += time.Since(start) })
	if err != nil {
		return nil, err
	}
	return &publish.SearchEntry{Source: source, Pack: ref, Books: parts}, nil
}

// countWords adds a finished book's words to its Bible's: a rendered
// book's, counted from its text, or a reused book's, read from its part
// of the previous build's search index. Reading them here spreads the
// reads over the workers; a book left uncounted (no such part, or one
// that cannot be read) is counted by searchIndex.
func (b *builder) countWords(ctx context.Context, j *bookJob) {
	if j.words != nil {
		j.bible.addWords(j.words)
		j.counted, j.words = true, nil
		return
	}
	if ref, ok := b.prevSearchBooks[searchPartSource(j.bible.bible.Meta.LanguageTag, j.entry.Source)]; ok {
		b.countPart(ctx, j, ref)
	}
}

// countPart makes sure book j's words are in its Bible's, reading them
// from the book's published part of the search index when they are not
// yet: false when they cannot be read.
func (b *builder) countPart(ctx context.Context, j *bookJob, ref publish.PackRef) bool {
	if j.counted {
		return true
	}
	words, err := b.publishedWords(ctx, ref)
	if err != nil {
		return false
	}
	j.bible.addWords(words)
	j.counted = true
	return true
}

// searchPartSource is the source hash of a book's part of a search index.
func searchPartSource(lang, bookSource string) string {
	h := sha256.Sum256([]byte(search.Version + "\x00" + searchPartLayout + "\x00" + lang + "\x00" + bookSource))
	return hex.EncodeToString(h[:16])
}

// publishedWords reads the words of a book's published part of a search
// index, by range: the index beside them is of no use here.
func (b *builder) publishedWords(ctx context.Context, ref publish.PackRef) (map[string]int, error) {
	st := publish.StorePacks(b.opt.Store)
	h, err := publish.LoadHeader(ctx, st, ref, 4096, nil)
	if err != nil {
		return nil, err
	}
	e, ok, err := h.Entry(publish.NameWords)
	if err != nil {
		return nil, fmt.Errorf("search pack %s: %w", ref.Key, err)
	}
	if !ok || len(e.Reps) == 0 {
		return nil, fmt.Errorf("search pack %s without words", ref.Key)
	}
	body := make([]byte, e.Reps[0].Len)
	if err := st.ReadPack(ctx, &ref, h.BodyOffset()+e.Reps[0].Off, body); err != nil {
		return nil, err
	}
	return decodeWords(body)
}

// decodeWords decodes a words entry, a JSON object of word → count. It
// reads the shape the build writes (mustJSON of a map[string]int: no
// spaces, no escapes in most words) without reflection, several times
// faster than encoding/json over the thousands of parts a rebuild of a
// catalogue reads, and leaves anything else to encoding/json.
func decodeWords(body []byte) (map[string]int, error) {
	if words, ok := scanWords(body); ok {
		return words, nil
	}
	words := map[string]int{}
	return words, publish.DecodeEntry(publish.NameWords, body, &words)
}

// scanWords is decodeWords' fast path: false for anything but an object
// of plain strings (valid UTF-8, no escape or control character) to
// decimal counts of up to 18 digits, which encoding/json then reads.
func scanWords(b []byte) (map[string]int, bool) {
	if len(b) < 2 || b[0] != '{' {
		return nil, false
	}
	words := make(map[string]int, len(b)/12) // `"word":12,` and the like
	i := 1
	if b[i] == '}' {
		return words, len(b) == 2
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		j := i + 1
		for j < len(b) && b[j] != '"' {
			if b[j] == '\\' || b[j] < 0x20 {
				return nil, false
			}
			j++
		}
		if j+2 >= len(b) || b[j+1] != ':' {
			return nil, false
		}
		key := b[i+1 : j]
		i = j + 2
		n, k := 0, i
		for k < len(b) && k-i < 18 && '0' <= b[k] && b[k] <= '9' {
			n = n*10 + int(b[k]-'0')
			k++
		}
		if k == i || k == len(b) || b[i] == '0' && k-i > 1 || !utf8.Valid(key) {
			return nil, false
		}
		words[string(key)] = n
		switch i = k + 1; b[k] {
		case ',':
		case '}':
			return words, i == len(b)
		default:
			return nil, false
		}
	}
}

// publishedTexts reads a reused book's verse texts from its chapter packs.
func (b *builder) publishedTexts(ctx context.Context, e *publish.BookEntry) ([][]string, error) {
	chapters := make([][][]bible.Segment, len(e.Chapters))
	for i, c := range e.Chapters {
		p, err := publish.LoadPack(ctx, b.opt.Store, c.Pack)
		if err != nil {
			return nil, err
		}
		if err := p.Decode(publish.NameSegments, &chapters[i]); err != nil {
			return nil, err
		}
	}
	return segmentTexts(chapters), nil
}
