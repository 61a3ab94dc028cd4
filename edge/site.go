package edge

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
)

// site is one published build as the edge serves it: the manifest plus
// maps for the lookups a request needs. Requests load the pointer once and
// keep using that build to the end, so a build swap never mixes two builds
// in one response.
type site struct {
	build    string
	manifest *publish.Manifest
	bibles   map[int32]*bibleView
	catalog  catalogSlot // the catalogues, built with the site (catalog.go)
	aids     aidsSlot    // each language's topics and suggestions (search_lang.go)
}

type bibleView struct {
	id    int32
	entry *publish.BibleEntry
	books map[string]*bookView

	// Every chapter of every book, found by "BOOK.CHAPTER" with one probe
	// (packs.NameIndex): a passage's chapter is a lookup of every hit.
	chapterIdx  packs.NameIndex
	chapters    []chapterView
	chapterKeys []string

	mu    sync.Mutex
	index *bible.Index // decoded on first need (range composition)

	searchMu sync.Mutex // held while the search index loads
	search   atomic.Pointer[search.Index]
}

type bookView struct {
	entry *publish.BookEntry
}

// chapterView is a chapter of the build and, once a request has found the
// chapter's pack whole in memory, that pack: the chapter's next requests
// go straight to it, without the pack cache's lookup and lock (packs.Slot).
type chapterView struct {
	*publish.ChapterEntry
	pack packs.Slot
}

func newSite(build string, m *publish.Manifest) *site {
	s := &site{build: build, manifest: m, bibles: make(map[int32]*bibleView, len(m.Bibles))}
	for i := range m.Bibles {
		be := &m.Bibles[i]
		bv := &bibleView{id: be.ID, entry: be, books: make(map[string]*bookView, len(be.Books))}
		for j := range be.Books {
			ke := &be.Books[j]
			bv.books[string(ke.ID)] = &bookView{entry: ke}
			for k := range ke.Chapters {
				bv.chapters = append(bv.chapters, chapterView{ChapterEntry: &ke.Chapters[k]})
				bv.chapterKeys = append(bv.chapterKeys, string(ke.ID)+"."+ke.Chapters[k].ID)
			}
		}
		bv.chapterIdx = packs.NewNameIndex(len(bv.chapterKeys), bv.chapterKey)
		s.bibles[be.ID] = bv
	}
	return s
}

// chapter returns chapter id of book, nil when the build has none.
func (bv *bibleView) chapter(book bible.BookID, id string) *chapterView {
	var kb [32]byte
	i := bv.chapterIdx.Find(append(append(append(kb[:0], book...), '.'), id...), bv.chapterKey)
	if i < 0 {
		return nil
	}
	return &bv.chapters[i]
}

func (bv *bibleView) chapterKey(i int) string { return bv.chapterKeys[i] }

// bibleIndex returns the Bible's decoded index, from its pack.
func (s *bibleRoutes) bibleIndex(ctx context.Context, bv *bibleView) (*bible.Index, error) {
	bv.mu.Lock()
	defer bv.mu.Unlock()
	if bv.index != nil {
		return bv.index, nil
	}
	// By entry, not by pack: the Bible's pack holds every book list too
	// and is large enough to be read by ranges.
	r, err := s.packs.Entry(ctx, nil, &bv.entry.Pack, []byte(publish.NameIndex))
	if err != nil {
		return nil, err
	}
	if r == nil || !r.Has(represent.CodingIdentity) {
		return nil, fmt.Errorf("bible %d: pack has no index", bv.id)
	}
	var idx bible.Index
	if err := publish.DecodeEntry(publish.NameIndex, r.Reps[represent.CodingIdentity].Body(), &idx); err != nil {
		return nil, fmt.Errorf("bible %d: %w", bv.id, err)
	}
	bv.index = &idx
	return bv.index, nil
}
