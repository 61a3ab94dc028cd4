package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

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

// searchPackLayout changes with what a Bible's search packs hold, so
// that older packs are not reused.
const searchPackLayout = "books-1" // a base with the Bible's words (publish.NameWords), a part per book with its words

// searchIndex publishes a Bible's search index in parts (search.Merge
// joins them): a pack per book, with the book's index and its verse words
// with their counts, and a base pack, with the language's synonyms and the
// Bible's words (what its language's suggestions are made of,
// languagePacks). A book's part depends on its source alone, so a change
// in one book writes that book's part and the base, nothing else; an
// unchanged Bible reuses everything, its words read back from the base.
// A book not rendered in this build whose part must be made again (a new
// index version) gives its text back from its published chapter packs.
func (b *builder) searchIndex(ctx context.Context, bj *bibleJob) (*publish.SearchEntry, error) {
	cb, books := bj.bible, bj.books
	lang := cb.Meta.LanguageTag
	syn := b.synonymsFor(lang)
	parts := make([]publish.SearchBook, len(books))
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%q\x00", search.Version, searchPackLayout, lang, syn)
	for i, j := range books {
		parts[i] = publish.SearchBook{ID: string(j.id), Source: searchPartSource(lang, j.entry.Source)}
		fmt.Fprintf(h, "%s\x00", parts[i].Source)
	}
	source := hex.EncodeToString(h.Sum(nil)[:16])
	if prev, ok := b.prevSearch[source]; ok {
		if words, err := b.publishedWords(ctx, prev.Pack); err == nil {
			// Every book's words, whether rendered again or not.
			bj.words = words
			b.count(func(r *Report) { r.Skipped++ })
			return &prev, nil
		}
		// The previous pack is unreadable: build it afresh.
	}
	start := time.Now()
	fresh := map[int]map[string]int{} // the words of the parts made now
	for i, j := range books {
		if prev, ok := b.prevSearchBooks[parts[i].Source]; ok {
			parts[i].Pack = prev
			continue
		}
		texts := j.texts
		if texts == nil {
			var err error
			if texts, err = b.publishedTexts(ctx, j.entry); err != nil {
				return nil, fmt.Errorf("build: search index of %d: %s: %w", cb.Meta.ID, j.id, err)
			}
		}
		fresh[i] = wordsOf(texts)
		w := publish.NewPackWriter()
		w.AddRaw(publish.NameSearch, "application/octet-stream", search.BuildPart(lang, search.Verses{Book: j.index, Texts: texts}))
		w.AddRaw(publish.NameWords, publish.JSON, mustJSON(fresh[i]))
		ref, err := b.put(ctx, w, fmt.Sprintf("the search index of Bible %d, %s", cb.Meta.ID, j.id))
		if err != nil {
			return nil, err
		}
		parts[i].Pack = ref
	}
	words, err := b.searchWords(ctx, cb.Meta.ID, parts, fresh)
	if err != nil {
		return nil, fmt.Errorf("build: search index of %d: %w", cb.Meta.ID, err)
	}
	bj.words = words
	w := publish.NewPackWriter()
	w.AddRaw(publish.NameSearch, "application/octet-stream", search.BuildWith(lang, nil, syn).Encode())
	w.AddRaw(publish.NameWords, publish.JSON, mustJSON(bj.words))
	ref, err := b.put(ctx, w, fmt.Sprintf("the search index of Bible %d", cb.Meta.ID))
	b.count(func(r *Report) { r.SearchBuilt++; r.Search += time.Since(start) })
	if err != nil {
		return nil, err
	}
	return &publish.SearchEntry{Source: source, Pack: ref, Books: parts}, nil
}

// searchWords returns a Bible's verse words with their counts: the
// previous build's, less those of the parts that went and plus those of
// the parts made now (fresh, by index in parts), which reads two objects
// for a one-book change; or, without a previous build's, the sum of every
// part's.
func (b *builder) searchWords(ctx context.Context, id int32, parts []publish.SearchBook, fresh map[int]map[string]int) (map[string]int, error) {
	add := func(to, from map[string]int, sign int) {
		for w, n := range from {
			if to[w] += sign * n; to[w] <= 0 {
				delete(to, w)
			}
		}
	}
	if prev, ok := b.prevSearchOf[id]; ok && len(prev.Books) > 0 {
		if words, err := b.publishedWords(ctx, prev.Pack); err == nil {
			kept := map[string]bool{}
			for _, p := range parts {
				kept[p.Source] = true
			}
			for _, p := range prev.Books {
				if !kept[p.Source] {
					old, err := b.publishedWords(ctx, p.Pack)
					if err != nil {
						words = nil
						break
					}
					add(words, old, -1)
				}
			}
			if words != nil {
				for _, f := range fresh {
					add(words, f, 1)
				}
				return words, nil
			}
		}
		// The previous build's words are unreadable: count them afresh.
	}
	words := map[string]int{}
	for i, p := range parts {
		f, ok := fresh[i]
		if !ok {
			var err error
			if f, err = b.publishedWords(ctx, p.Pack); err != nil {
				return nil, err
			}
		}
		add(words, f, 1)
	}
	return words, nil
}

// searchPartSource is the source hash of a book's part of a search index.
func searchPartSource(lang, bookSource string) string {
	h := sha256.Sum256([]byte(search.Version + "\x00" + searchPackLayout + "\x00" + lang + "\x00" + bookSource))
	return hex.EncodeToString(h[:16])
}

// publishedWords reads the words of a published search pack (a Bible's
// base or a book's part), by range: the index beside them is of no use here.
func (b *builder) publishedWords(ctx context.Context, ref publish.PackRef) (map[string]int, error) {
	st := b.opt.Store
	p, err := publish.LoadPackHeader(ctx, st, ref, 4096)
	if err != nil {
		return nil, err
	}
	e := p.Entry(publish.NameWords)
	if e == nil || len(e.Reps) == 0 {
		return nil, fmt.Errorf("search pack %s without words", ref.Key)
	}
	body, err := st.GetRange(ctx, ref.Key, p.BodyOffset()+e.Reps[0].Off, e.Reps[0].Len)
	if err != nil {
		return nil, err
	}
	words := map[string]int{}
	return words, publish.DecodeEntry(publish.NameWords, body, &words)
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
