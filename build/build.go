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
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
	"github.com/bibleplatform/platform/versification"
)

// renderVersion changes whenever rendering or the pack layout changes in a
// way that must republish unchanged sources.
const renderVersion = "render-6" // 3: \d titles before \v 1, verse numbers glued to text; 4: book packs carry their words; 5: the Bible's search pack does; 6: book and Bible packs carry their bridges

// MaxPackBytes caps what one pack may hold before compression (a chapter's
// passages in every variant, a book's metadata, a Bible's index). The
// largest real chapter (Psalm 119 of the WEB, 176 verses) makes a pack of
// about 1 MiB; a chapter that would pass the cap is refused with the Bible
// and the chapter named, rather than assembled in memory and served from
// the edge's cache (docs/storage.md).
const MaxPackBytes = 64 << 20

// Options configure a build.
type Options struct {
	Content string        // the content directory
	Store   publish.Store // where the build goes
	// ReaderURL is the base of platform_deep_link; the Bible id follows it.
	ReaderURL string
	Workers   int // parallel books; 0 means GOMAXPROCS
	// Progress, when set, is called as books finish (from several
	// goroutines, one call at a time).
	Progress func(Progress)
	Now      func() time.Time
	// MaxPackBytes overrides the cap on one pack (MaxPackBytes) when > 0.
	MaxPackBytes int64
	// VolumeBytes overrides the size of volumes (VolumeBytes) when > 0.
	VolumeBytes int64
	// AllowShrink publishes a build that leaves out more than MaxShrink of
	// the current build's Bibles; without it such a build is refused
	// before anything is written.
	AllowShrink bool
}

// MaxShrink is the share of the current build's Bibles a build may leave
// out without Options.AllowShrink: a content directory that lost its
// Bibles (a misspelt path, a half-finished checkout) must not take the
// catalogue offline.
const MaxShrink = 0.10

// Progress is how far a build is.
type Progress struct {
	Done, Total int    // books finished, books in the build
	Bible       string // the Bible whose book started last, e.g. "206 WEB"
}

// Report says what a build did; after an error, what it had done.
type Report struct {
	Build    string // the build id now current
	Switched bool   // false when the content was already published
	Written  int    // packs written, and the manifest
	Skipped  int    // packs the store already held (unchanged content)
	Bytes    int64  // bytes of the packs written, repacked included
	// Volumes are the volume objects the packs written went into, and
	// Repacked the packs of earlier builds moved into them from volumes
	// mostly of dead packs (repack).
	Volumes  int
	Repacked int
	Rendered int // books rendered
	Reused   int // books whose packs were reused without rendering
	// Warnings are those of every book of the build, rendered now or
	// reused from an earlier build.
	Warnings []error
	// Removed are the Bibles of the previous build that are not in the
	// content directory, and so not in this build.
	Removed []int32
	// Broken are the Bibles left out of this build because a book of
	// theirs could not be rendered (file:line:col and why); each keeps
	// what the previous build published of it, if anything.
	Broken   []error
	Duration time.Duration
	// SearchBuilt counts the search indexes built (not reused) and Search
	// is the time they took, part of Duration (build/search.go).
	SearchBuilt int
	Search      time.Duration
}

// Build renders the content directory and publishes it to the store. The
// new build becomes current only after every object it names is written;
// an unchanged content directory writes nothing.
//
// Work streams Bible by Bible: books are rendered in parallel (Workers at
// a time) in Bible order, and a Bible's books are let go once its own pack
// is written, so memory depends on the largest Bible, not on how many
// there are. The report is returned with an error too, saying what was
// written before it.
func Build(ctx context.Context, opt Options) (*Report, error) {
	start := time.Now()
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.MaxPackBytes <= 0 {
		opt.MaxPackBytes = MaxPackBytes
	}
	if opt.VolumeBytes <= 0 {
		opt.VolumeBytes = VolumeBytes
	}
	b := &builder{opt: opt, enc: publish.NewEncoder(), now: opt.Now().UTC(), rep: &Report{}, vols: newVolumes(opt.Store, opt.VolumeBytes)}
	rep, err := b.build(ctx)
	rep.Duration = time.Since(start)
	return rep, err
}

func (b *builder) build(ctx context.Context) (*Report, error) {
	opt := b.opt
	prev, prevID, err := publish.LoadCurrent(ctx, opt.Store)
	if err != nil && !publish.IsNotExist(err) {
		return b.rep, fmt.Errorf("build: read current build: %w", err)
	}
	b.prevKeys = map[string]*publish.PackRef{}
	b.prevBooks = map[string]publish.BookEntry{}
	b.prevSearch = map[string]publish.SearchEntry{}
	b.prevSearchBooks = map[string]publish.PackRef{}
	if prev != nil {
		prev.Packs(func(r *publish.PackRef) { b.prevKeys[r.Key] = r })
		for _, be := range prev.Bibles {
			if be.Search != nil {
				b.prevSearch[be.Search.Source] = *be.Search
				for _, sb := range be.Search.Books {
					b.prevSearchBooks[sb.Source] = sb.Pack
				}
			}
			for _, k := range be.Books {
				b.prevBooks[k.Source] = k
			}
		}
	}
	if fi, err := os.Stat(opt.Content); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return b.rep, fmt.Errorf("build: content directory %s: %w", opt.Content, err)
	}
	site, err := readSite(opt.Content)
	if err != nil {
		return b.rep, err
	}
	topics, warns, err := readTopics(opt.Content)
	if err != nil {
		return b.rep, err
	}
	b.rep.Warnings = append(b.rep.Warnings, warns...)
	if b.synonyms, warns, err = readSynonyms(opt.Content); err != nil {
		return b.rep, err
	}
	b.rep.Warnings = append(b.rep.Warnings, warns...)
	bibles, unread, err := readBibles(opt.Content)
	if err != nil {
		return b.rep, err
	}
	if len(bibles)+len(unread) == 0 {
		return b.rep, fmt.Errorf("build: the content directory %s holds no Bible (bibles/<id>/bible.json): nothing to publish", opt.Content)
	}
	present := map[int32]bool{}
	for _, cb := range bibles {
		present[cb.Meta.ID] = true
	}
	for _, u := range unread {
		present[u.id] = true // kept as published (keepUnread)
	}
	if b.rep.Removed, err = checkShrink(prev, present, opt.AllowShrink); err != nil {
		return b.rep, err
	}
	bibles, unread = withoutReferences(opt.Content, bibles, unread)
	if b.foundKeys, err = b.found(ctx, prev); err != nil {
		return b.rep, err
	}
	m := &publish.Manifest{Created: b.now, Bibles: make([]publish.BibleEntry, len(bibles))}
	var jobs []*bibleJob
	for i, cb := range bibles {
		bj := &bibleJob{bible: cb, slot: &m.Bibles[i], label: fmt.Sprintf("%d %s", cb.Meta.ID, cb.Meta.Abbreviation)}
		for id, file := range cb.Books {
			if id.Canonical() {
				bj.books = append(bj.books, &bookJob{bible: bj, id: id, file: file})
			}
		}
		jobs = append(jobs, bj)
	}
	if err := b.runBooks(ctx, jobs); err != nil {
		return b.rep, err
	}
	for _, bj := range jobs {
		b.broken(bj, prev)
	}
	// A broken Bible never published before has no entry.
	m.Bibles = slices.DeleteFunc(m.Bibles, func(e publish.BibleEntry) bool { return e.ID == 0 })
	kept, err := b.keepUnread(ctx, m, prev, unread)
	if err != nil {
		return b.rep, err
	}
	if len(m.Bibles) == 0 {
		why := make([]string, len(b.rep.Broken))
		for i, err := range b.rep.Broken {
			why[i] = err.Error()
		}
		return b.rep, fmt.Errorf("build: no Bible of %s could be published; nothing was switched:\n  %s", opt.Content, strings.Join(why, "\n  "))
	}
	if err := b.sitePack(ctx, m, site, bibles, kept); err != nil {
		return b.rep, err
	}
	if err := b.languagePacks(ctx, m, topics); err != nil {
		return b.rep, err
	}
	if err := b.repack(ctx, m); err != nil {
		return b.rep, err
	}
	if err := b.vols.flush(ctx); err != nil {
		return b.rep, fmt.Errorf("build: %w", err)
	}
	b.rep.Volumes = b.vols.objects
	if err := b.vols.place(m); err != nil {
		return b.rep, err
	}
	id := m.BuildID()
	b.rep.Build = id
	if id != prevID {
		data, err := json.Marshal(m)
		if err != nil {
			return b.rep, err
		}
		if err := opt.Store.Put(ctx, publish.ManifestKey(id), data); err != nil {
			return b.rep, fmt.Errorf("build: write manifest: %w", err)
		}
		b.rep.Written++
		b.rep.Bytes += int64(len(data))
		if err := opt.Store.SetCurrent(ctx, id); err != nil {
			return b.rep, fmt.Errorf("build: switch to %s: %w", id, err)
		}
		b.rep.Switched = true
	}
	return b.rep, nil
}

// checkShrink refuses a build that would leave out more than MaxShrink of
// prev's Bibles, unless allow. A Bible broken at build keeps its previous
// entry (see broken), so only Bibles gone from the content directory count.
func checkShrink(prev *publish.Manifest, have map[int32]bool, allow bool) ([]int32, error) {
	if prev == nil {
		return nil, nil
	}
	var gone []int32
	for _, be := range prev.Bibles {
		if !have[be.ID] {
			gone = append(gone, be.ID)
		}
	}
	if allow || float64(len(gone)) <= MaxShrink*float64(len(prev.Bibles)) {
		return gone, nil
	}
	return gone, fmt.Errorf("build: %d of the %d Bibles of the current build are not in the content directory (%s), more than %.0f%%; "+
		"nothing was written. Check --content; if they are meant to go offline, build again with --allow-shrink",
		len(gone), len(prev.Bibles), strings.Trim(fmt.Sprint(gone), "[]"), MaxShrink*100)
}

type builder struct {
	opt Options
	enc *publish.Encoder
	now time.Time
	// vols holds the packs written until their volume is (volume.go), and
	// foundKeys are the packs of volumes an interrupted build left (found).
	vols      *volumes
	foundKeys map[string]publish.PackRef
	// prevKeys are the previous build's packs by key, pointing into its
	// manifest: a catalogue's manifest names tens of thousands of packs.
	prevKeys  map[string]*publish.PackRef
	prevBooks map[string]publish.BookEntry
	mu        sync.Mutex // guards rep, langs and progress calls
	rep       *Report
	done      int // books finished
	// prevSearch are the previous build's search indexes by source, and
	// prevSearchBooks their books' parts by source.
	prevSearch      map[string]publish.SearchEntry
	prevSearchBooks map[string]publish.PackRef
	// synonyms are the content's synonyms by language tag.
	synonyms map[string]search.Synonyms
	// langs gathers each language's words and book names from the Bibles
	// as they are done, for its suggestions (topics.go).
	langs map[string]*langData
}

// bibleJob is one Bible of a build: its books, and where its manifest
// entry goes once the last of them is done.
type bibleJob struct {
	bible *ContentBible
	label string
	books []*bookJob
	left  atomic.Int32 // books not finished
	fail  atomic.Bool  // a book failed: no Bible pack
	err   error        // the Bible's own pack could not be made (see Report.Broken)
	slot  *publish.BibleEntry
	// words are the verse words of the Bible's books, with counts, each
	// book's added as it finishes (countWords) or, when they could not be
	// then, as its part of the search index is made (searchIndex).
	mu    sync.Mutex
	words map[string]int
}

type bookJob struct {
	bible *bibleJob
	id    bible.BookID
	file  string
	// results, held until the Bible's pack is written
	entry   *publish.BookEntry
	index   bible.Book
	texts   [][]string     // verse texts when rendered in this build (search.go)
	words   map[string]int // verse words as written, with counts, when rendered, until added to the Bible's (countWords)
	counted bool           // its words are in its Bible's
	err     error          // the book's source cannot be rendered (see Report.Broken)
}

// runBooks renders every book, Bible after Bible, with Workers books in
// flight. The worker that finishes a Bible's last book writes the Bible's
// pack and drops its books' indexes.
func (b *builder) runBooks(ctx context.Context, bibles []*bibleJob) error {
	total := 0
	for _, bj := range bibles {
		// Longest books first, so the last worker is not left with Psalms.
		sizes := make(map[*bookJob]int64, len(bj.books))
		for _, j := range bj.books {
			if fi, err := os.Stat(j.file); err == nil {
				sizes[j] = fi.Size()
			}
		}
		sort.SliceStable(bj.books, func(i, k int) bool { return sizes[bj.books[i]] > sizes[bj.books[k]] })
		bj.left.Store(int32(len(bj.books)))
		total += len(bj.books)
	}
	ch := make(chan *bookJob)
	var wg sync.WaitGroup
	var errs []error
	var errMu sync.Mutex
	fail := func(err error) {
		errMu.Lock()
		errs = append(errs, err)
		errMu.Unlock()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var current atomic.Pointer[string]
	for w := 0; w < b.opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				bj := j.bible
				current.Store(&bj.label)
				var be bookError
				if err := b.book(ctx, j); errors.As(err, &be) {
					// The Bible is left out (see broken); the build goes on.
					j.err = be.err
					bj.fail.Store(true)
				} else if err != nil {
					fail(err)
					bj.fail.Store(true)
				} else {
					b.countWords(ctx, j)
				}
				if bj.left.Add(-1) == 0 && !bj.fail.Load() && ctx.Err() == nil {
					b.finishBible(ctx, bj, fail)
				}
				b.mu.Lock()
				b.done++
				if b.opt.Progress != nil {
					b.opt.Progress(Progress{Done: b.done, Total: total, Bible: *current.Load()})
				}
				b.mu.Unlock()
			}
		}()
	}
	// A Bible without books gets its pack at once.
	for _, bj := range bibles {
		if len(bj.books) == 0 {
			b.finishBible(ctx, bj, fail)
		}
	}
feed:
	for _, bj := range bibles {
		for _, j := range bj.books {
			select {
			case ch <- j:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(ch)
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("build: %w", errors.Join(errs...))
	}
	return ctx.Err()
}

// finishBible writes bj's own pack. Content at fault (a pack beyond the
// cap) leaves the Bible out (see broken); a store error fails the build.
func (b *builder) finishBible(ctx context.Context, bj *bibleJob, fail func(error)) {
	var be bookError
	if err := b.biblePack(ctx, bj); errors.As(err, &be) {
		bj.err = be.err
	} else if err != nil {
		fail(err)
	}
}

// book publishes one book: reused whole when its source is unchanged,
// rendered otherwise.
func (b *builder) book(ctx context.Context, j *bookJob) error {
	src, err := os.ReadFile(j.file)
	if err != nil {
		return err
	}
	meta := j.bible.bible.Meta
	// The licence is not part of what a book is made from: the edge
	// decides at serve time what a licence allows (publish.Entry).
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s\x00%+v\x00", renderVersion, meta.ID, meta.LanguageTag, j.id, meta.BookNames[j.id])
	h.Write(src)
	source := hex.EncodeToString(h.Sum(nil)[:16])
	if prev, ok := b.prevBooks[source]; ok {
		if idx, warns, err := b.readBook(ctx, prev.Pack); err == nil {
			j.entry, j.index = &prev, idx
			b.count(func(r *Report) {
				r.Reused++
				r.Warnings = append(r.Warnings, warns...)
			})
			return nil
		}
		// The previous build is unreadable: render afresh.
	}
	if err := tooManyVerseMarkers(sourceFile{j.file, src}); err != nil {
		return bookError{err}
	}
	pb, err := ParseBook(j.file, src)
	if err != nil {
		return bookError{err}
	}
	if err := checkUTF8(j.file, src); err != nil {
		return bookError{err}
	}
	if n, ok := meta.BookNames[j.id]; ok {
		n.apply(pb.Headers)
	}
	rb, err := render.Render(pb, meta.renderOptions(j.file))
	if err != nil {
		return bookError{err}
	}
	if err := checkBookVerses(sourceFile{j.file, src}, rb); err != nil {
		return bookError{err}
	}
	warns := []string{}
	for _, w := range pb.Warnings {
		warns = append(warns, w.Error())
	}
	for _, w := range rb.Warnings {
		warns = append(warns, w.Error())
	}
	b.count(func(r *Report) {
		r.Rendered++
		for _, w := range warns {
			r.Warnings = append(r.Warnings, errors.New(w))
		}
	})
	e := &publish.BookEntry{ID: j.id, Source: source}
	book := &rb.Index
	for i := range book.Chapters {
		what := fmt.Sprintf("Bible %s, %s %s", j.bible.label, book.ID, book.Chapters[i].ID)
		w, err := chapterPack(book, i, rb.Chapters[i].Verses, what, b.opt.MaxPackBytes)
		if err != nil {
			return bookError{locateChapter(sourceFile{j.file, src}, book.Chapters[i].ID, err)}
		}
		ref, err := b.put(ctx, w, what)
		if err != nil {
			return err
		}
		// The manifest lives to the end of the build: a copy of the id, not
		// a slice of the book's source, which would keep the whole source.
		e.Chapters = append(e.Chapters, publish.ChapterEntry{ID: strings.Clone(book.Chapters[i].ID), Pack: ref})
	}
	texts := verseTexts(rb.Chapters)
	words := wordsOf(texts)
	w := publish.NewPackWriter()
	w.Add(publish.NameBook, publish.JSON, mustJSON(book))
	w.Add(publish.NameChapters, publish.JSON, mustJSON(dataOf(book.Chapters)))
	if book.Intro != nil {
		ref := bible.Ref{Book: book.ID, Chapter: bible.IntroChapter}
		addPassages(w, bible.IntroChapter, ref, ref.Label(book.Title, book.Intro.Title), rb.Intro)
	}
	if len(warns) > 0 {
		w.AddRaw(publish.NameWarnings, publish.JSON, mustJSON(warns))
	}
	if br := book.Bridges(); br != nil {
		w.AddRaw(publish.NameBridges, publish.JSON, mustJSON(br))
	}
	if e.Pack, err = b.put(ctx, w, fmt.Sprintf("Bible %s, %s", j.bible.label, book.ID)); err != nil {
		return err
	}
	j.entry, j.index, j.texts, j.words = e, detached(rb.Index), texts, words
	return nil
}

// detached is a copy of a rendered book's index whose strings are its
// own. The renderer's ids and titles are slices of the book's source, and
// the index is held until the Bible's pack is written (biblePack): kept as
// rendered, it would keep every book's whole source in memory until then.
func detached(b bible.Book) bible.Book {
	b.ID = bible.BookID(strings.Clone(string(b.ID)))
	b.Title, b.FullTitle, b.Abbreviation = strings.Clone(b.Title), strings.Clone(b.FullTitle), strings.Clone(b.Abbreviation)
	chapters := make([]bible.Chapter, len(b.Chapters))
	for i, c := range b.Chapters {
		verses := make([]bible.Verse, len(c.Verses))
		for k, v := range c.Verses {
			verses[k] = bible.Verse{ID: strings.Clone(v.ID), PassageID: strings.Clone(v.PassageID), Title: strings.Clone(v.Title), End: strings.Clone(v.End)}
		}
		chapters[i] = bible.Chapter{ID: strings.Clone(c.ID), PassageID: strings.Clone(c.PassageID), Title: strings.Clone(c.Title), Verses: verses}
	}
	b.Chapters = chapters
	if b.Intro != nil {
		in := bible.Intro{ID: strings.Clone(b.Intro.ID), PassageID: strings.Clone(b.Intro.PassageID), Title: strings.Clone(b.Intro.Title)}
		b.Intro = &in
	}
	return b
}

// readBook reads a published book's index and warnings.
func (b *builder) readBook(ctx context.Context, ref publish.PackRef) (bible.Book, []error, error) {
	var book bible.Book
	p, err := publish.LoadPack(ctx, b.opt.Store, ref)
	if err != nil {
		return book, nil, err
	}
	if err := p.Decode(publish.NameBook, &book); err != nil {
		return book, nil, err
	}
	var ws []string
	if err := p.Decode(publish.NameWarnings, &ws); err != nil && !errors.Is(err, publish.ErrNoEntry) {
		return book, nil, err
	}
	var br bible.Bridges
	if err := p.Decode(publish.NameBridges, &br); err != nil && !errors.Is(err, publish.ErrNoEntry) {
		return book, nil, err
	}
	if err := book.SetBridges(br); err != nil {
		return book, nil, err
	}
	var warns []error
	for _, w := range ws {
		warns = append(warns, errors.New(w))
	}
	return book, warns, nil
}

// chapterPack holds everything of one chapter: the chapter and verse
// objects, every passage of the chapter and of each verse, and the verse
// segments the edge composes ranges from. A chapter beyond max bytes is
// refused as soon as it passes it. Import assembles the same pack to
// refuse such a chapter before any build (publishable).
func chapterPack(book *bible.Book, i int, verses [][]bible.Segment, what string, max int64) (*publish.PackWriter, error) {
	c := &book.Chapters[i]
	w := publish.NewPackWriter()
	w.Add(publish.NameChapter, publish.JSON, mustJSON(c))
	w.Add(publish.NameVerses, publish.JSON, mustJSON(dataOf(c.Verses)))
	// A chapter whose id is not its number (PS2 "1_1", published "151")
	// is named by its title in references.
	label := bible.Ref{Book: book.ID, Chapter: c.Title}
	var all []bible.Segment
	for k, v := range c.Verses {
		w.Add(publish.VerseName(v.ID), publish.JSON, mustJSON(v))
		ref := bible.Ref{Book: book.ID, Chapter: c.ID, Verse: v.ID}
		label.Verse = v.Title
		addPassages(w, v.ID, ref, label.Label(book.Title, ""), verses[k])
		all = append(all, verses[k]...)
		if err := checkPackSize(w, what, max); err != nil {
			return nil, err
		}
	}
	label.Verse = ""
	addPassages(w, "", bible.Ref{Book: book.ID, Chapter: c.ID}, label.Label(book.Title, ""), all)
	w.AddRaw(publish.NameSegments, publish.JSON, mustJSON(verses))
	return w, checkPackSize(w, what, max)
}

// checkPackSize refuses a pack beyond max bytes. The error is a
// bookError: the content is at fault, and its Bible keeps its previous
// build while the others publish.
func checkPackSize(w *publish.PackWriter, what string, max int64) error {
	if w.Size() > max {
		return bookError{fmt.Errorf("%s: the pack would hold more than %s, the cap on one pack (build.MaxPackBytes); "+
			"no real chapter comes near it: check the source", what, capText(max))}
	}
	return nil
}

func capText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// addPassages adds the text passage and the four html ones. Identical
// bodies are stored once by the pack.
func addPassages(w *publish.PackWriter, verse string, ref bible.Ref, label string, segs []bible.Segment) {
	id := ref.String()
	w.Add(publish.PassageName(verse, "text"), publish.JSON,
		mustJSON(bible.Passage{ID: id, Content: bible.ComposeText(segs), Reference: label}))
	for _, h := range []bool{false, true} {
		for _, n := range []bool{false, true} {
			w.Add(publish.PassageName(verse, publish.Variant(true, h, n)), publish.JSON,
				mustJSON(bible.Passage{ID: id, Content: bible.ComposeHTML(segs, h, n), Reference: label}))
		}
	}
}

// biblePack writes a Bible's own pack once all its books are done, fills
// its manifest entry and lets its books' indexes go.
func (b *builder) biblePack(ctx context.Context, bj *bibleJob) error {
	books := bj.books
	sort.Slice(books, func(i, k int) bool { return books[i].id.Order() < books[k].id.Order() })
	cb := bj.bible
	be := publish.BibleEntry{ID: cb.Meta.ID}
	idx := bible.Index{TextDirection: cb.Meta.Direction(), Books: []bible.Book{}}
	var ids []bible.BookID
	for _, j := range books {
		be.Books = append(be.Books, *j.entry)
		idx.Books = append(idx.Books, j.index)
		ids = append(ids, j.id)
	}
	w := publish.NewPackWriter()
	w.Add(publish.NameBible, publish.JSON, mustJSON(cb.Meta.Bible(ids, b.opt.ReaderURL)))
	w.Add(publish.NameIndex, publish.JSON, mustJSON(idx))
	if br := idx.Bridges(); br != nil {
		w.AddRaw(publish.NameBridges, publish.JSON, mustJSON(br))
	}
	w.AddRaw(publish.NameVersification, versification.ContentType, versification.Encode(cb.Scheme))
	if err := schemeFit(&cb.Meta, cb.Scheme, &idx); err != nil {
		b.count(func(r *Report) { r.Warnings = append(r.Warnings, err) })
	}
	w.Add(publish.BooksName(""), publish.JSON, mustJSON(dataOf(idx.Books)))
	for _, c := range bible.Canons {
		sel := []bible.Book{}
		for _, bk := range idx.Books {
			if bk.Canon == c {
				sel = append(sel, bk)
			}
		}
		w.Add(publish.BooksName(c), publish.JSON, mustJSON(dataOf(sel)))
	}
	var err error
	if be.Pack, err = b.put(ctx, w, "Bible "+bj.label); err != nil {
		return err
	}
	if be.Search, err = b.searchIndex(ctx, bj); err != nil {
		return err
	}
	b.addLanguage(cb.Meta.LanguageTag, bj)
	*bj.slot = be
	bj.books, bj.words = nil, nil
	return nil
}

// put publishes a pack unless it is already published, and returns it. A
// pack already named by the previous build keeps its Modified time and its
// place; a new one goes into a volume (volumes), and its reference names
// its place once the build has written the volume (volumes.place). what
// names the pack's content in errors.
func (b *builder) put(ctx context.Context, w *publish.PackWriter, what string) (publish.PackRef, error) {
	if err := checkPackSize(w, what, b.opt.MaxPackBytes); err != nil {
		return publish.PackRef{}, err
	}
	key := w.Key()
	if ref, ok := b.prevKeys[key]; ok {
		b.count(func(r *Report) { r.Skipped++ })
		return *ref, nil
	}
	if ref, ok := b.foundKeys[key]; ok {
		// Written by an interrupted build: keep it.
		b.count(func(r *Report) { r.Skipped++ })
		ref.Modified = b.now
		return ref, nil
	}
	data := w.Bytes(b.enc)
	added, err := b.vols.add(ctx, key, data)
	if err != nil {
		return publish.PackRef{}, fmt.Errorf("%s: %w", what, err)
	}
	b.count(func(r *Report) {
		if added {
			r.Written++
			r.Bytes += int64(len(data))
		} else {
			r.Skipped++ // the same pack twice in this build
		}
	})
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
