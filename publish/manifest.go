package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
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

// PackRef points at a pack: named by its content (Key), it is either an
// object of its own under that key or Size bytes at Offset of a volume
// object (Volume), which holds many packs written by one build. Builds
// before volumes name only packs of their own, and their manifests omit
// both fields, so that they read, and hash (BuildID), as they did.
type PackRef struct {
	Key    string `json:"key"`
	Size   int64  `json:"size"`
	Volume string `json:"volume,omitempty"`
	Offset int64  `json:"offset,omitempty"`
	// Modified is when this content was first published; it survives
	// rebuilds that do not change the pack (Last-Modified).
	Modified time.Time `json:"modified"`
}

// Object is the object that holds the pack and the pack's offset in it.
func (r *PackRef) Object() (key string, off int64) {
	if r.Volume == "" {
		return r.Key, 0
	}
	return r.Volume, r.Offset
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
// copy, written back when fn returns, for the packs of its maps), so that
// a caller can index a large manifest's packs without copying each
// reference, and the build can say where the packs it wrote lie; a
// pointer kept past fn's return is one into m only for packs not of a map.
func (m *Manifest) Packs(fn func(r *PackRef)) {
	if m.Site != nil {
		fn(m.Site)
	}
	for _, refs := range []map[string]PackRef{m.Files, m.Topics, m.Suggestions} {
		for k, f := range refs {
			fn(&f)
			refs[k] = f
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
	m, err := DecodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("load build %s: %w", build, err)
	}
	return m, nil
}

// DecodeManifest decodes a manifest's JSON, its references to one volume
// sharing one string: the decoder gives each its own, and 50 Bibles'
// 67,000 references name about 220 volumes. An edge keeps the manifest it
// serves for the build's life, where each copy was a heap object for the
// collector to mark.
func DecodeManifest(data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	internVolumes(&m)
	return &m, nil
}

// internVolumes makes m's references to one volume share one string
// (DecodeManifest says why).
func internVolumes(m *Manifest) {
	names := make(map[string]string)
	m.Packs(func(r *PackRef) {
		if r.Volume == "" {
			return
		}
		if v, ok := names[r.Volume]; ok {
			r.Volume = v
		} else {
			names[r.Volume] = r.Volume
		}
	})
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
	b, err := GetPack(ctx, s, &ref)
	if err != nil {
		return nil, err
	}
	return DecodePack(b)
}

// GetPack reads a whole pack: its own object, or its range of its volume.
func GetPack(ctx context.Context, s Store, ref *PackRef) ([]byte, error) {
	if ref.Volume == "" {
		return s.Get(ctx, ref.Key)
	}
	return s.GetRange(ctx, ref.Volume, ref.Offset, ref.Size)
}

// AppendPack appends a whole pack's bytes to dst (AppendGet, or a ranged
// read of its volume into dst), growing it when the pack does not fit.
func AppendPack(ctx context.Context, s Store, ref *PackRef, dst []byte) ([]byte, error) {
	if ref.Volume == "" {
		return AppendGet(ctx, s, ref.Key, dst)
	}
	n := len(dst)
	dst = slices.Grow(dst, int(ref.Size))[:n+int(ref.Size)]
	if err := ReadRange(ctx, s, ref.Volume, ref.Offset, dst[n:]); err != nil {
		return dst[:n], err
	}
	return dst, nil
}

// PackReader reads a pack by ranges (LoadHeader, an edge's entries).
type PackReader interface {
	// ReadPack reads len(b) bytes of pack ref at off, from the pack's
	// start, into b. Reading past the pack's end is an error.
	ReadPack(ctx context.Context, ref *PackRef, off int64, b []byte) error
}

// StorePacks reads packs from the store s.
func StorePacks(s Store) PackReader { return storePacks{s} }

type storePacks struct{ s Store }

func (p storePacks) ReadPack(ctx context.Context, ref *PackRef, off int64, b []byte) error {
	return ReadPackRange(ctx, p.s, ref, off, b)
}

// ReadPackRange reads len(b) bytes of pack ref at off into b, from the
// object that holds it (Object): within the pack, so that a read of a
// volume never strays into a neighbour's bytes.
func ReadPackRange(ctx context.Context, s Store, ref *PackRef, off int64, b []byte) error {
	if off < 0 || off+int64(len(b)) > ref.Size {
		return fmt.Errorf("pack %s [%d,+%d): past its %d bytes", ref.Key, off, len(b), ref.Size)
	}
	obj, at := ref.Object()
	return ReadRange(ctx, s, obj, at+off, b)
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
func LoadHeader(ctx context.Context, s PackReader, ref PackRef, probe int64, buf []byte) (Header, error) {
	bp, _ := probes.Get().(*[]byte)
	if bp == nil || int64(cap(*bp)) < probe {
		b := make([]byte, probe)
		bp = &b
	}
	defer probes.Put(bp)
	b := (*bp)[:max(min(ref.Size, probe), 0)]
	if err := s.ReadPack(ctx, &ref, 0, b); err != nil {
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
func headerRest(ctx context.Context, s PackReader, ref PackRef, b []byte) ([]byte, error) {
	n, err := packHeaderLen(b)
	if err != nil {
		return nil, err
	}
	end := min(int64(packHeaderPrefix)+n, ref.Size)
	if got := int64(len(b)); end > got {
		b = append(b[:got:got], make([]byte, end-got)...)
		if err := s.ReadPack(ctx, &ref, got, b[got:]); err != nil {
			return nil, err
		}
	}
	return b, nil
}
