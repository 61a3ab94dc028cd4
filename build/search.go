package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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

// searchIndex publishes a Bible's search index. The index depends on the
// Bible's books alone, so it is reused whole when no book's source changed;
// otherwise the books that were not rendered in this build give their
// text back from their published chapter packs.
func (b *builder) searchIndex(ctx context.Context, cb *ContentBible, books []*bookJob) (*publish.SearchEntry, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", search.Version, cb.Meta.LanguageTag)
	for _, j := range books {
		fmt.Fprintf(h, "%s\x00", j.entry.Source)
	}
	source := hex.EncodeToString(h.Sum(nil)[:16])
	if prev, ok := b.prevSearch[source]; ok {
		b.count(func(r *Report) { r.Skipped++ })
		return &prev, nil
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
		}
		in[i] = search.Verses{Book: j.index, Texts: texts}
	}
	w := publish.NewPackWriter()
	w.AddRaw(publish.NameSearch, "application/octet-stream", search.Build(cb.Meta.LanguageTag, in).Encode())
	ref, err := b.put(ctx, w, fmt.Sprintf("the search index of Bible %d", cb.Meta.ID))
	b.count(func(r *Report) { r.SearchBuilt++; r.Search += time.Since(start) })
	if err != nil {
		return nil, err
	}
	return &publish.SearchEntry{Source: source, Pack: ref}, nil
}

// publishedTexts reads a reused book's verse texts from its chapter packs.
func (b *builder) publishedTexts(ctx context.Context, e *publish.BookEntry) ([][]string, error) {
	chapters := make([][][]bible.Segment, len(e.Chapters))
	for i, c := range e.Chapters {
		p, err := publish.LoadPack(ctx, b.opt.Store, c.Pack)
		if err != nil {
			return nil, err
		}
		seg := p.Entry(publish.NameSegments)
		if seg == nil {
			return nil, errors.New("chapter pack without segments")
		}
		if err := json.Unmarshal(p.Body(&seg.Reps[0]), &chapters[i]); err != nil {
			return nil, err
		}
	}
	return segmentTexts(chapters), nil
}
