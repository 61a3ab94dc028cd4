package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/bibleplatform/platform/bible"
)

// Manifest names every pack of one build. Its key is derived from its
// content (Created aside), so an unchanged rebuild produces the same build
// id and writes nothing.
type Manifest struct {
	Created time.Time    `json:"created"`
	Bibles  []BibleEntry `json:"bibles"` // sorted by ID
	// Site holds the catalogues that are not one Bible's: organizations,
	// licences, fonts, the verse-of-the-day calendar.
	Site *PackRef `json:"site,omitempty"`
	// Files are published static files (font files), by path; each is a
	// pack with one raw entry named by the path below fonts/.
	Files map[string]PackRef `json:"files,omitempty"`
	// Topics and Suggestions are each language's search aids, by the
	// language tag (a topics file's name, a Bible's language_tag): its
	// topical list, and its as-you-type suggestions (NameTopics,
	// NameSuggestions).
	Topics      map[string]PackRef `json:"topics,omitempty"`
	Suggestions map[string]PackRef `json:"suggestions,omitempty"`
}

// BibleEntry is one Bible of a build.
type BibleEntry struct {
	ID    int32       `json:"id"`
	Pack  PackRef     `json:"pack"` // bible, index, books
	Books []BookEntry `json:"books"`
	// Search is the Bible's verse search index (search.Decode reads its
	// NameSearch entry); absent from builds made before search existed.
	Search *SearchEntry `json:"search,omitempty"`
}

// SearchEntry is a Bible's search index.
type SearchEntry struct {
	// Source is a hash of the index version and of the Bible's book
	// sources: a build that finds the same Source reuses the index.
	Source string  `json:"source"`
	Pack   PackRef `json:"pack"`
	// Books are the index's parts, one per book in canonical order, which
	// search.Merge joins to the base in Pack; absent from builds that put
	// the whole index in Pack.
	Books []SearchBook `json:"books,omitempty"`
}

// Packs calls fn for the index's packs: the base, then each book's part.
func (e *SearchEntry) Packs(fn func(r *PackRef)) {
	fn(&e.Pack)
	for k := range e.Books {
		fn(&e.Books[k].Pack)
	}
}

// Modified is when the index last changed: the latest of its packs'.
// The base is shared by the Bibles of a language and stays as a book's
// text changes: its own time alone would be too early.
func (e *SearchEntry) Modified() time.Time {
	mod := e.Pack.Modified
	for k := range e.Books {
		if m := e.Books[k].Pack.Modified; m.After(mod) {
			mod = m
		}
	}
	return mod
}

// SearchBook is one book's part of a Bible's search index.
type SearchBook struct {
	ID string `json:"id"`
	// Source is a hash of the index version, the language and the book's
	// source: a build that finds the same Source reuses the part.
	Source string  `json:"source"`
	Pack   PackRef `json:"pack"`
}

// BookEntry is one book of a Bible.
type BookEntry struct {
	ID bible.BookID `json:"id"`
	// Source is a hash of everything the book's packs are made from; a
	// build that finds the same Source reuses the packs without rendering.
	Source   string         `json:"source"`
	Pack     PackRef        `json:"pack"` // book, chapters, intro passages
	Chapters []ChapterEntry `json:"chapters"`
}

// ChapterEntry is one chapter of a book.
type ChapterEntry struct {
	ID   string  `json:"id"`
	Pack PackRef `json:"pack"` // chapter, verses, verse, passages, segments
}

// PackRef points at a pack object.
type PackRef struct {
	Key  string `json:"key"`
	Size int64  `json:"size"`
	// Modified is when this content was first published; it survives
	// rebuilds that do not change the pack (Last-Modified).
	Modified time.Time `json:"modified"`
}

// Bible returns the entry for id, or nil.
func (m *Manifest) Bible(id int32) *BibleEntry {
	i := sort.Search(len(m.Bibles), func(i int) bool { return m.Bibles[i].ID >= id })
	if i < len(m.Bibles) && m.Bibles[i].ID == id {
		return &m.Bibles[i]
	}
	return nil
}

// Packs calls fn for every pack the manifest names. r points into m (a
// copy for the packs of its maps), so that a caller can index a large
// manifest's packs without copying each reference; fn must not change it.
func (m *Manifest) Packs(fn func(r *PackRef)) {
	if m.Site != nil {
		fn(m.Site)
	}
	for _, refs := range []map[string]PackRef{m.Files, m.Topics, m.Suggestions} {
		for _, f := range refs {
			fn(&f)
		}
	}
	for i := range m.Bibles {
		b := &m.Bibles[i]
		fn(&b.Pack)
		if b.Search != nil {
			b.Search.Packs(fn)
		}
		for k := range b.Books {
			bk := &b.Books[k]
			fn(&bk.Pack)
			for c := range bk.Chapters {
				fn(&bk.Chapters[c].Pack)
			}
		}
	}
}

// BuildID is the manifest's content address.
func (m *Manifest) BuildID() string {
	c := *m
	c.Created = time.Time{}
	b, err := json.Marshal(&c)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:10])
}

// ManifestKey is the object key of a build's manifest.
func ManifestKey(build string) string { return "builds/" + build + ".json" }

// loadManifest reads a build's manifest.
func loadManifest(ctx context.Context, s Store, build string) (*Manifest, error) {
	b, err := s.Get(ctx, ManifestKey(build))
	if err != nil {
		return nil, fmt.Errorf("load build %s: %w", build, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("load build %s: %w", build, err)
	}
	return &m, nil
}

// LoadCurrent reads the current build's manifest and its id.
func LoadCurrent(ctx context.Context, s Store) (*Manifest, string, error) {
	id, err := s.Current(ctx)
	if err != nil {
		return nil, "", err
	}
	m, err := loadManifest(ctx, s, id)
	return m, id, err
}

// LoadPack reads and decodes a whole pack.
func LoadPack(ctx context.Context, s Store, ref PackRef) (*Pack, error) {
	b, err := s.Get(ctx, ref.Key)
	if err != nil {
		return nil, err
	}
	return DecodePack(b)
}

// probes are LoadHeader's buffers: a header held as read is copied out of
// its probe, so the probe is reused rather than allocated for each pack.
var probes sync.Pool // *[]byte

// LoadHeader reads a pack's header alone, held as read (Header), for
// ranged reads of its bodies at BodyOffset: one ranged read of its first
// probe bytes, into a reused buffer, and a second for the rest when the
// header is longer. The edge keeps one for each pack it reads by ranges;
// the build reads a search part's words so. The header is held in buf
// when it has room (NewHeader).
func LoadHeader(ctx context.Context, s Store, ref PackRef, probe int64, buf []byte) (Header, error) {
	bp, _ := probes.Get().(*[]byte)
	if bp == nil || int64(cap(*bp)) < probe {
		b := make([]byte, probe)
		bp = &b
	}
	defer probes.Put(bp)
	b := (*bp)[:max(min(ref.Size, probe), 0)]
	if err := ReadRange(ctx, s, ref.Key, 0, b); err != nil {
		return Header{}, err
	}
	b, err := headerRest(ctx, s, ref, b)
	if err != nil {
		return Header{}, err
	}
	return NewHeader(buf, b, ref.Size)
}

// headerRest reads the rest of a pack's header after its first bytes b,
// when it is longer: b then holds at least up to the end of the header
// unless the pack is shorter.
func headerRest(ctx context.Context, s Store, ref PackRef, b []byte) ([]byte, error) {
	n, err := packHeaderLen(b)
	if err != nil {
		return nil, err
	}
	end := min(int64(packHeaderPrefix)+n, ref.Size)
	if got := int64(len(b)); end > got {
		rest, err := s.GetRange(ctx, ref.Key, got, end-got)
		if err != nil {
			return nil, err
		}
		b = append(b[:got:got], rest...)
	}
	return b, nil
}
