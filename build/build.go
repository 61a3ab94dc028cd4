package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/publish"
)

// renderVersion changes whenever rendering or the pack layout changes in a
// way that must republish unchanged sources.
const renderVersion = "render-3" // 3: \d titles before \v 1, verse numbers glued to text

// Cache-Control values. Public-domain (open) texts may be kept by shared
// caches; a licensed text is "private" so that a CDN never hands one app's
// licensed passages to an app that is not licensed (the edge answers 403 to
// it). Metadata (Bible, index, books, chapters, verses) carries no text and
// is served to every app, so it is public.
const (
	CachePublic  = "public, max-age=3600, stale-while-revalidate=86400"
	CachePrivate = "private, max-age=3600"
)

// Options configure a build.
type Options struct {
	Content string        // the content directory
	Store   publish.Store // where the build goes
	// ReaderURL is the base of platform_deep_link; the Bible id follows it.
	ReaderURL string
	Workers   int // parallel books; 0 means GOMAXPROCS
	// Progress, when set, is called as books finish.
	Progress func(done, total int)
	Now      func() time.Time
}

// Report says what a build did.
type Report struct {
	Build    string // the build id now current
	Switched bool   // false when the content was already published
	Written  int    // objects written
	Skipped  int    // objects already in the store
	Bytes    int64  // bytes written
	Rendered int    // books rendered
	Reused   int    // books whose packs were reused without rendering
	Warnings []error
	// Broken are the Bibles left out of this build because a book of
	// theirs could not be rendered (file:line:col and why); each keeps
	// what the previous build published of it, if anything.
	Broken   []error
	Duration time.Duration
}

// Build renders the content directory and publishes it to the store. The
// new build becomes current only after every object it names is written;
// an unchanged content directory writes nothing.
func Build(ctx context.Context, opt Options) (*Report, error) {
	start := time.Now()
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	b := &builder{opt: opt, enc: publish.NewEncoder(), now: opt.Now().UTC(), rep: &Report{}}
	prev, prevID, err := publish.LoadCurrent(ctx, opt.Store)
	if err != nil && !publish.IsNotExist(err) {
		return nil, fmt.Errorf("build: read current build: %w", err)
	}
	b.prevKeys = map[string]publish.PackRef{}
	b.prevBooks = map[string]publish.BookEntry{}
	if prev != nil {
		prev.Packs(func(r publish.PackRef) { b.prevKeys[r.Key] = r })
		for _, be := range prev.Bibles {
			for _, k := range be.Books {
				b.prevBooks[k.Source] = k
			}
		}
	}
	site, err := readSite(opt.Content)
	if err != nil {
		return nil, err
	}
	bibles, err := ReadBibles(opt.Content)
	if err != nil {
		return nil, err
	}
	if err := CheckReferences(opt.Content, bibles); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	m := &publish.Manifest{Created: b.now}
	var jobs []*bookJob
	for _, cb := range bibles {
		for id, file := range cb.Books {
			if id.Canonical() {
				jobs = append(jobs, &bookJob{bible: cb, id: id, file: file, open: site.open(cb.Meta.LicenseID)})
			}
		}
	}
	if err := b.runBooks(ctx, jobs); err != nil {
		return nil, err
	}
	for _, cb := range bibles {
		var mine []*bookJob
		for _, j := range jobs {
			if j.bible == cb && j.entry != nil {
				mine = append(mine, j)
			}
		}
		if b.broken(cb, jobs, prev, m) {
			continue
		}
		sort.Slice(mine, func(i, k int) bool { return mine[i].id.Order() < mine[k].id.Order() })
		be, err := b.biblePack(ctx, cb, mine, site.open(cb.Meta.LicenseID))
		if err != nil {
			return nil, err
		}
		m.Bibles = append(m.Bibles, be)
	}
	if err := b.sitePack(ctx, m, site, bibles); err != nil {
		return nil, err
	}
	id := m.BuildID()
	b.rep.Build = id
	if id != prevID {
		data, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		if err := opt.Store.Put(ctx, publish.ManifestKey(id), data); err != nil {
			return nil, fmt.Errorf("build: write manifest: %w", err)
		}
		b.rep.Written++
		b.rep.Bytes += int64(len(data))
		if err := opt.Store.SetCurrent(ctx, id); err != nil {
			return nil, fmt.Errorf("build: switch to %s: %w", id, err)
		}
		b.rep.Switched = true
	}
	b.rep.Duration = time.Since(start)
	return b.rep, nil
}

type builder struct {
	opt       Options
	enc       *publish.Encoder
	now       time.Time
	prevKeys  map[string]publish.PackRef
	prevBooks map[string]publish.BookEntry
	mu        sync.Mutex // guards rep
	rep       *Report
}

type bookJob struct {
	bible *ContentBible
	id    bible.BookID
	file  string
	open  bool
	// results
	entry *publish.BookEntry
	index bible.Book
	err   error // the book's source cannot be rendered (see Report.Broken)
}

func (b *builder) runBooks(ctx context.Context, jobs []*bookJob) error {
	// Longest books first, so the last worker is not left with Psalms.
	sizes := make(map[*bookJob]int64, len(jobs))
	for _, j := range jobs {
		if fi, err := os.Stat(j.file); err == nil {
			sizes[j] = fi.Size()
		}
	}
	order := append([]*bookJob(nil), jobs...)
	sort.SliceStable(order, func(i, k int) bool { return sizes[order[i]] > sizes[order[k]] })
	ch := make(chan *bookJob)
	var wg sync.WaitGroup
	var done atomic.Int64
	var errs []error
	var errMu sync.Mutex
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for w := 0; w < b.opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				var be bookError
				if err := b.book(ctx, j); errors.As(err, &be) {
					j.err = be.err
				} else if err != nil {
					errMu.Lock()
					errs = append(errs, err)
					errMu.Unlock()
				}
				if b.opt.Progress != nil {
					b.opt.Progress(int(done.Add(1)), len(jobs))
				}
			}
		}()
	}
	for _, j := range order {
		if ctx.Err() != nil {
			break
		}
		ch <- j
	}
	close(ch)
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("build: %w", errors.Join(errs...))
	}
	return ctx.Err()
}

// book publishes one book: reused whole when its source is unchanged,
// rendered otherwise.
func (b *builder) book(ctx context.Context, j *bookJob) error {
	src, err := os.ReadFile(j.file)
	if err != nil {
		return err
	}
	meta := j.bible.Meta
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s\x00%t\x00%+v\x00", renderVersion, meta.ID, meta.LanguageTag, j.id, j.open, meta.BookNames[j.id])
	h.Write(src)
	source := hex.EncodeToString(h.Sum(nil)[:16])
	if prev, ok := b.prevBooks[source]; ok {
		if idx, err := b.readBookIndex(ctx, prev.Pack); err == nil {
			j.entry, j.index = &prev, idx
			b.count(func(r *Report) { r.Reused++ })
			return nil
		}
		// The previous build is unreadable: render afresh.
	}
	pb, err := ParseBook(j.file, src)
	if err != nil {
		return bookError{err}
	}
	if n, ok := meta.BookNames[j.id]; ok {
		n.apply(pb.Headers)
	}
	rb, err := render.Render(pb, render.Options{Language: meta.LanguageTag, File: j.file})
	if err != nil {
		return bookError{err}
	}
	b.count(func(r *Report) {
		r.Rendered++
		for _, w := range pb.Warnings {
			r.Warnings = append(r.Warnings, w)
		}
		for _, w := range rb.Warnings {
			r.Warnings = append(r.Warnings, w)
		}
	})
	e := &publish.BookEntry{ID: j.id, Source: source}
	cache := CachePublic
	if !j.open {
		cache = CachePrivate
	}
	book := &rb.Index
	for i := range book.Chapters {
		w := chapterPack(book, i, rb.Chapters[i].Verses, cache)
		ref, err := b.put(ctx, w)
		if err != nil {
			return err
		}
		e.Chapters = append(e.Chapters, publish.ChapterEntry{ID: book.Chapters[i].ID, Pack: ref})
	}
	w := publish.NewPackWriter()
	w.Add(publish.NameBook, publish.JSON, CachePublic, mustJSON(book))
	w.Add(publish.NameChapters, publish.JSON, CachePublic, mustJSON(dataOf(book.Chapters)))
	if book.Intro != nil {
		ref := bible.Ref{Book: book.ID, Chapter: bible.IntroChapter}
		addPassages(w, bible.IntroChapter, ref, ref.Label(book.Title, book.Intro.Title), rb.Intro, cache)
	}
	if e.Pack, err = b.put(ctx, w); err != nil {
		return err
	}
	j.entry, j.index = e, rb.Index
	return nil
}

func (b *builder) readBookIndex(ctx context.Context, ref publish.PackRef) (bible.Book, error) {
	var book bible.Book
	p, err := publish.LoadPack(ctx, b.opt.Store, ref)
	if err != nil {
		return book, err
	}
	return book, p.Decode(publish.NameBook, &book)
}

// chapterPack holds everything of one chapter: the chapter and verse
// objects, every passage of the chapter and of each verse, and the verse
// segments the edge composes ranges from.
func chapterPack(book *bible.Book, i int, verses [][]bible.Segment, cache string) *publish.PackWriter {
	c := &book.Chapters[i]
	w := publish.NewPackWriter()
	w.Add(publish.NameChapter, publish.JSON, CachePublic, mustJSON(c))
	w.Add(publish.NameVerses, publish.JSON, CachePublic, mustJSON(dataOf(c.Verses)))
	// A chapter whose id is not its number (PS2 "1_1", published "151")
	// is named by its title in references.
	label := bible.Ref{Book: book.ID, Chapter: c.Title}
	var all []bible.Segment
	for k, v := range c.Verses {
		w.Add(publish.VerseName(v.ID), publish.JSON, CachePublic, mustJSON(v))
		ref := bible.Ref{Book: book.ID, Chapter: c.ID, Verse: v.ID}
		label.Verse = v.Title
		addPassages(w, v.ID, ref, label.Label(book.Title, ""), verses[k], cache)
		all = append(all, verses[k]...)
	}
	label.Verse = ""
	addPassages(w, "", bible.Ref{Book: book.ID, Chapter: c.ID}, label.Label(book.Title, ""), all, cache)
	w.AddRaw(publish.NameSegments, publish.JSON, mustJSON(verses))
	return w
}

// addPassages adds the text passage and the four html ones. Identical
// bodies are stored once by the pack.
func addPassages(w *publish.PackWriter, verse string, ref bible.Ref, label string, segs []bible.Segment, cache string) {
	id := ref.String()
	w.Add(publish.PassageName(verse, "text"), publish.JSON, cache,
		mustJSON(bible.Passage{ID: id, Content: bible.ComposeText(segs), Reference: label}))
	for _, h := range []bool{false, true} {
		for _, n := range []bool{false, true} {
			w.Add(publish.PassageName(verse, publish.Variant(true, h, n)), publish.JSON, cache,
				mustJSON(bible.Passage{ID: id, Content: bible.ComposeHTML(segs, h, n), Reference: label}))
		}
	}
}

func (b *builder) biblePack(ctx context.Context, cb *ContentBible, books []*bookJob, open bool) (publish.BibleEntry, error) {
	be := publish.BibleEntry{ID: cb.Meta.ID}
	idx := bible.Index{TextDirection: cb.Meta.Direction(), Books: []bible.Book{}}
	var ids []bible.BookID
	for _, j := range books {
		be.Books = append(be.Books, *j.entry)
		idx.Books = append(idx.Books, j.index)
		ids = append(ids, j.id)
	}
	w := publish.NewPackWriter()
	w.Add(publish.NameBible, publish.JSON, CachePublic, mustJSON(cb.Meta.Bible(ids, b.opt.ReaderURL)))
	w.Add(publish.NameIndex, publish.JSON, CachePublic, mustJSON(idx))
	w.Add(publish.BooksName(""), publish.JSON, CachePublic, mustJSON(dataOf(idx.Books)))
	for _, c := range bible.Canons {
		sel := []bible.Book{}
		for _, bk := range idx.Books {
			if bk.Canon == c {
				sel = append(sel, bk)
			}
		}
		w.Add(publish.BooksName(c), publish.JSON, CachePublic, mustJSON(dataOf(sel)))
	}
	var err error
	be.Pack, err = b.put(ctx, w)
	return be, err
}

// put publishes a pack unless it is already published, and returns where it
// is. A pack already named by the previous build keeps its Modified time.
func (b *builder) put(ctx context.Context, w *publish.PackWriter) (publish.PackRef, error) {
	key := w.Key()
	if ref, ok := b.prevKeys[key]; ok {
		b.count(func(r *Report) { r.Skipped++ })
		return ref, nil
	}
	if n, err := b.opt.Store.Stat(ctx, key); err == nil {
		// Written by an interrupted build: keep it.
		b.count(func(r *Report) { r.Skipped++ })
		return publish.PackRef{Key: key, Size: n, Modified: b.now}, nil
	} else if !publish.IsNotExist(err) {
		return publish.PackRef{}, err
	}
	data := w.Bytes(b.enc)
	if err := b.opt.Store.Put(ctx, key, data); err != nil {
		return publish.PackRef{}, fmt.Errorf("write %s: %w", key, err)
	}
	b.count(func(r *Report) { r.Written++; r.Bytes += int64(len(data)) })
	return publish.PackRef{Key: key, Size: int64(len(data)), Modified: b.now}, nil
}

func (b *builder) count(f func(*Report)) {
	b.mu.Lock()
	f(b.rep)
	b.mu.Unlock()
}

type data[T any] struct {
	Data []T `json:"data"`
}

func dataOf[T any](v []T) data[T] {
	if v == nil {
		v = []T{}
	}
	return data[T]{v}
}

// mustJSON encodes without HTML escaping: passages carry HTML, and
// \u003c in every tag would only cost bytes.
func mustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // our own types only
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
