// Package site is one published build as the edge serves it: the
// manifest plus maps for the lookups a request needs (a Bible by id, a
// book, a chapter with one probe), and what the routes derive from the
// build once and keep with it (its catalogue, its search aids, each
// Bible's decoded index and search index). Requests load the build's
// *Site once and keep using it to the end, so a build swap never mixes two
// builds in one response.
package site

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// Site is one build.
type Site struct {
	Build    string
	Manifest *publish.Manifest
	Bibles   map[int32]*Bible
	Catalog  Slot // the catalogues, built with the site
	Aids     Slot // each language's topics and suggestions

	// What the Bibles' decoded indexes hold, reserved in the pack tier's
	// bound (packs.Packs.Reserve) until the site is let go (Release).
	mu       sync.Mutex
	reserved int64
	released bool
}

// Bible is one Bible of the build.
type Bible struct {
	ID    int32
	Entry *publish.BibleEntry
	Books map[string]*Book
	site  *Site

	// Every chapter of every book, found by "BOOK.CHAPTER" with one probe
	// (packs.NameIndex): a passage's chapter is a lookup of every hit.
	chapterIdx packs.NameIndex
	chapters   []Chapter
	// chapterKeys holds every chapter's "BOOK.CHAPTER", the i-th ending at
	// chapterEnds[i]: one string, not one allocation a chapter (50 Bibles
	// have 59,000 chapters), which the collector would mark at each cycle
	// for the build's life.
	chapterKeys string
	chapterEnds []uint32

	mu    sync.Mutex
	index *bible.Index // decoded on first need (range composition), with its bridges

	Search Slot // the Bible's search index, loaded by the search routes
	Scheme Slot // the Bible's versification, loaded by the content routes
	Cite   Slot // the resolver of citations of its books, made by the content routes
}

// Book is one book of a Bible.
type Book struct {
	Entry *publish.BookEntry
}

// Chapter is a chapter of the build and, once a request has found the
// chapter's pack whole in memory, that pack (Slot): the chapter's next
// requests go straight to it, without the pack cache's lookup and lock.
type Chapter struct {
	*publish.ChapterEntry
	Slot packs.Slot
}

// New prepares build id, whose manifest is m.
func New(id string, m *publish.Manifest) *Site {
	s := &Site{Build: id, Manifest: m, Bibles: make(map[int32]*Bible, len(m.Bibles))}
	for i := range m.Bibles {
		be := &m.Bibles[i]
		bv := &Bible{ID: be.ID, Entry: be, Books: make(map[string]*Book, len(be.Books)), site: s}
		var keys strings.Builder
		for j := range be.Books {
			ke := &be.Books[j]
			bv.Books[string(ke.ID)] = &Book{Entry: ke}
			for k := range ke.Chapters {
				ce := &ke.Chapters[k]
				bv.chapters = append(bv.chapters, Chapter{ChapterEntry: ce, Slot: packs.Slot{Pack: packs.IDOf(ce.Pack.Key)}})
				keys.WriteString(string(ke.ID))
				keys.WriteByte('.')
				keys.WriteString(ce.ID)
				bv.chapterEnds = append(bv.chapterEnds, uint32(keys.Len()))
			}
		}
		bv.chapterKeys = keys.String()
		bv.chapterIdx = packs.NewNameIndex(len(bv.chapterEnds), bv.chapterKey)
		s.Bibles[be.ID] = bv
	}
	return s
}

// Chapter returns chapter id of book, nil when the build has none.
func (bv *Bible) Chapter(book bible.BookID, id string) *Chapter {
	var kb [32]byte
	i := bv.chapterIdx.Find(append(append(append(kb[:0], book...), '.'), id...), bv.chapterKey)
	if i < 0 {
		return nil
	}
	return &bv.chapters[i]
}

func (bv *Bible) chapterKey(i int) string {
	start := uint32(0)
	if i > 0 {
		start = bv.chapterEnds[i-1]
	}
	return bv.chapterKeys[start:bv.chapterEnds[i]]
}

// Chapters is every chapter of every book, in the manifest's order.
func (bv *Bible) Chapters() []Chapter { return bv.chapters }

// Index returns the Bible's decoded index, read from its pack through p
// the first time.
func (bv *Bible) Index(ctx context.Context, p *packs.Packs) (*bible.Index, error) {
	bv.mu.Lock()
	defer bv.mu.Unlock()
	if bv.index != nil {
		return bv.index, nil
	}
	// By entry, not by pack: the Bible's pack holds every book list too
	// and is large enough to be read by ranges.
	r, err := p.Entry(ctx, nil, &bv.Entry.Pack, []byte(publish.NameIndex))
	if err != nil {
		return nil, err
	}
	if r == nil || !r.Has(represent.CodingIdentity) {
		return nil, fmt.Errorf("bible %d: pack has no index", bv.ID)
	}
	idx, err := DecodeIndex(r.Reps[represent.CodingIdentity].Body())
	if err != nil {
		return nil, fmt.Errorf("bible %d: %w", bv.ID, err)
	}
	// Where the index's bridges end (\v 15-16): absent when the Bible has
	// none, and from builds before render-6, whose bridges are then found
	// by their first number only.
	if r, err = p.Entry(ctx, nil, &bv.Entry.Pack, []byte(publish.NameBridges)); err != nil {
		return nil, err
	}
	if r != nil && r.Has(represent.CodingIdentity) {
		var br bible.Bridges
		if err := publish.DecodeEntry(publish.NameBridges, r.Reps[represent.CodingIdentity].Body(), &br); err != nil {
			return nil, fmt.Errorf("bible %d: %w", bv.ID, err)
		}
		if err := idx.SetBridges(br); err != nil {
			return nil, fmt.Errorf("bible %d: %w", bv.ID, err)
		}
	}
	bv.index = idx
	bv.site.reserve(p, IndexSize(idx))
	return bv.index, nil
}

// reserve counts n bytes of decoded indexes in p's bound, unless the site
// has been let go (a request still on it decoded one).
func (s *Site) reserve(p *packs.Packs, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.released {
		s.reserved += n
		p.Reserve(n)
	}
}

// Release gives back to p what the site's decoded indexes reserved: the
// site is no longer served (requests still on it finish, and their
// indexes go with them).
func (s *Site) Release(p *packs.Packs) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.released {
		s.released = true
		p.Reserve(-s.reserved)
		s.reserved = 0
	}
}

// Slot is where a route keeps what it derives from the build, made once:
// the site holds it without knowing its type, so that the routes that
// make it own it.
type Slot struct {
	mu sync.Mutex
	v  atomic.Pointer[any]
}

// Load returns what s holds, nil when nothing yet (or something not a T).
func Load[T any](s *Slot) *T {
	if p := s.v.Load(); p != nil {
		v, _ := (*p).(*T)
		return v
	}
	return nil
}

// Make returns what s holds, running fn first if it holds nothing yet;
// one fn runs at a time, and a failed one is tried again by the next
// caller.
func Make[T any](s *Slot, fn func() (*T, error)) (*T, error) {
	if v := Load[T](s); v != nil {
		return v, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := Load[T](s); v != nil {
		return v, nil
	}
	v, err := fn()
	if err != nil {
		return nil, err
	}
	var a any = v
	s.v.Store(&a)
	return v, nil
}

// Forget empties s if it still holds v (a cache that bounds what the
// slots hold lets v go); the next Make makes it again.
func Forget[T any](s *Slot, v *T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if Load[T](s) == v {
		s.v.Store(nil)
	}
}
