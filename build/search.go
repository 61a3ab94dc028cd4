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

// searchPackLayout changes with what a Bible's search pack holds besides
// the index, so that an older pack is not reused.
const searchPackLayout = "words-1" // the Bible's words (publish.NameWords)

// searchIndex publishes a Bible's search pack: its search index, and its
// verse words with their counts (what its language's suggestions are made
// of, languagePacks), which change with the same verses. Both depend on
// the Bible's books alone, so the pack is reused whole when no book's
// source changed, the words read back from it; otherwise the books that
// were not rendered in this build give their text back from their
// published chapter packs. A one-verse change so writes the chapter, the
// search pack and the manifest, not the book's pack as well.
func (b *builder) searchIndex(ctx context.Context, bj *bibleJob) (*publish.SearchEntry, error) {
	cb, books := bj.bible, bj.books
	syn := b.synonymsFor(cb.Meta.LanguageTag)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%q\x00", search.Version, searchPackLayout, cb.Meta.LanguageTag, syn)
	for _, j := range books {
		fmt.Fprintf(h, "%s\x00", j.entry.Source)
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
	in := make([]search.Verses, len(books))
	for i, j := range books {
		texts := j.texts
		if texts == nil {
			var err error
			if texts, err = b.publishedTexts(ctx, j.entry); err != nil {
				return nil, fmt.Errorf("build: search index of %d: %s: %w", cb.Meta.ID, j.id, err)
			}
			bj.addWords(wordsOf(texts))
		}
		in[i] = search.Verses{Book: j.index, Texts: texts}
	}
	if bj.words == nil {
		bj.words = map[string]int{}
	}
	w := publish.NewPackWriter()
	w.AddRaw(publish.NameSearch, "application/octet-stream", search.BuildWith(cb.Meta.LanguageTag, in, syn).Encode())
	w.AddRaw(publish.NameWords, publish.JSON, mustJSON(bj.words))
	ref, err := b.put(ctx, w, fmt.Sprintf("the search index of Bible %d", cb.Meta.ID))
	b.count(func(r *Report) { r.SearchBuilt++; r.Search += time.Since(start) })
	if err != nil {
		return nil, err
	}
	return &publish.SearchEntry{Source: source, Pack: ref}, nil
}

// publishedWords reads a Bible's words from its published search pack,
// by range: the index beside them is of no use here.
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
