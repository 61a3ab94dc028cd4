package build

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/build/usfm"
	"github.com/bibleplatform/platform/build/usx"
)

// ImportOptions tune an import.
type ImportOptions struct {
	// AllowDamaged imports books whose structure is damaged (see
	// usfm.Damage) instead of refusing them; the report lists them. A book
	// that cannot be published at all (no \id, a chapter number that
	// cannot be an id, beyond the caps) is refused all the same.
	AllowDamaged bool
	// Check reads and reports without writing anything.
	Check bool
	// VRS is a versification file for the Bible (named VRSName in
	// diagnostics); see settleScheme.
	VRS     []byte
	VRSName string
	// ReplaceAll removes the books of the Bible that the source does not
	// have; without it an import adds or replaces the source's books only.
	ReplaceAll bool
	// Replace imports a source whose identity differs from the Bible's
	// already at that id (see identityChanges); without it such an import
	// is refused.
	Replace bool
}

// ImportReport says what an import did. Errors and Warnings are
// file:line:col diagnostics.
type ImportReport struct {
	Bible      int32          // the Bible's id (chosen by the import for a bundle without --id)
	Books      []bible.BookID // canonical books imported
	Peripheral []bible.BookID // front matter, glossary…: kept, not in books
	// Refused are the books left out; an earlier import's copy of each is
	// kept untouched.
	Refused []bible.BookID
	// Damaged are books imported with damage because of AllowDamaged.
	Damaged []bible.BookID
	// Unreadable counts source files refused before their book was known
	// (no \id, not XML); they name no book, so ReplaceAll removes nothing
	// in such an import.
	Unreadable int
	Errors     []error
	Warnings   []error
	// Repairs counts the known source habits read as meant, by class.
	Repairs map[string]int
	// Removed are the books of the Bible the source does not have that
	// ReplaceAll removed (with Check, would remove).
	Removed []bible.BookID
	// Kept are the books of the Bible the source does not have, kept
	// because ReplaceAll was not given.
	Kept []bible.BookID
	// Wrote lists the content files written (none with Check).
	Wrote []string
	// Created says what a bundle import added besides the Bible (an
	// organization, a licence).
	Created []string
}

// Failed reports whether anything was left out.
func (r *ImportReport) Failed() bool { return len(r.Refused) > 0 || r.Unreadable > 0 }

// peripheralBooks are the USFM codes of books that are no part of a
// Bible's text but are kept with it.
var peripheralBooks = map[bible.BookID]bool{
	"FRT": true, "BAK": true, "OTH": true, "INT": true, "CNC": true, "GLO": true, "TDX": true, "NDX": true,
	"XXA": true, "XXB": true, "XXC": true, "XXD": true, "XXE": true, "XXF": true, "XXG": true,
}

// ParseBook parses a book file of a content directory or a source: USX
// for .usx (optionally .gz), USFM otherwise.
func ParseBook(name string, data []byte) (*usfm.Book, error) {
	if isUSXName(name) {
		return usx.Parse(name, data)
	}
	return usfm.Parse(name, data)
}

// checkedBook is one source file after the import's checks.
type checkedBook struct {
	file    sourceFile
	id      bible.BookID
	damage  []error
	fatal   error // cannot be published at all
	repairs []usfm.Diag
	texts   verseMap // verse texts of a canonical book, for identityChanges
}

// checkBook parses and renders a source book as the build will, and sorts
// its diagnostics.
func checkBook(f sourceFile, meta *BibleMeta, rep *ImportReport) checkedBook {
	cb := checkedBook{file: f}
	if err := tooManyVerseMarkers(f); err != nil {
		cb.fatal = err
		cb.id = bookCode(f.name, f.data)
		return cb
	}
	b, err := ParseBook(f.name, f.data)
	if err != nil {
		cb.fatal = err
		return cb
	}
	cb.id = bible.BookID(b.ID)
	if err := checkUTF8(f.name, f.data); err != nil {
		cb.fatal = err
		return cb
	}
	cb.sort(b.Warnings, rep)
	switch {
	case cb.id.Canonical():
		rb, err := render.Render(b, meta.renderOptions(f.name))
		if err != nil {
			cb.fatal = err
			return cb
		}
		cb.sort(rb.Warnings, rep)
		// What the build would refuse is refused here, where the source
		// can still be fixed, rather than after a build has run.
		if err := publishable(f, rb, MaxPackBytes); err != nil {
			cb.fatal = err
			return cb
		}
		cb.texts = versesOf(rb, f.data)
	case !peripheralBooks[cb.id]:
		cb.damage = append(cb.damage, usfm.Diag{File: f.name, Pos: usfm.Pos{Line: 1, Col: 1},
			Msg: fmt.Sprintf("book code %s is neither a book of the spec's table nor a USFM peripheral book", cb.id), Sev: usfm.Damage})
	}
	return cb
}

func (cb *checkedBook) sort(diags []usfm.Diag, rep *ImportReport) {
	for _, d := range diags {
		switch d.Sev {
		case usfm.Damage:
			cb.damage = append(cb.damage, d)
		case usfm.Repaired:
			cb.repairs = append(cb.repairs, d)
		default:
			rep.Warnings = append(rep.Warnings, d)
		}
	}
}

// Import reads the books of SOURCE and writes them, with meta, to
// content/bibles/<id>/. SOURCE is a folder, a .zip or one file of USFM
// (.usfm, .sfm) or USX (.usx) books, each optionally gzip'd, or a DBL text
// bundle (a folder or .zip with metadata.xml; see ImportBundle).
//
// Import is strict: a book with damaged structure (usfm.Damage) is refused
// with its file:line:col reasons unless opt.AllowDamaged, and a book that
// cannot be published is always refused. A refused book's copy from an
// earlier import stays untouched, and the other books are imported. Known
// habits of real sources are repaired and counted in Repairs. Fields of
// meta left empty keep the values of an earlier import of the same Bible.
//
// Import never destroys silently: books of the Bible that SOURCE does not
// have are kept (Kept) unless opt.ReplaceAll, and a SOURCE whose identity
// differs from the Bible's already at that id is refused unless
// opt.Replace. The language tag is stored canonical (lang.Canonical) or
// refused with a suggestion.
func Import(content, source string, meta BibleMeta, opt ImportOptions) (*ImportReport, error) {
	if bundle, err := findBundle(source); err != nil {
		return nil, err
	} else if bundle != nil {
		return importBundle(content, bundle, meta, opt)
	}
	files, err := readSources(source)
	if err != nil {
		return nil, err
	}
	return importFiles(content, source, files, meta, opt, nil)
}

// importFiles imports book files. extra are further files to write to the
// Bible's folder (a bundle's license.xml), by name.
func importFiles(content, source string, files []sourceFile, meta BibleMeta, opt ImportOptions, extra map[string][]byte) (*ImportReport, error) {
	if meta.ID <= 0 {
		return nil, errors.New("import: the Bible needs an id (--id)")
	}
	dir := filepath.Join(content, "bibles", fmt.Sprint(meta.ID))
	given := meta
	if given.LanguageTag != "" {
		tag, err := canonicalLanguage(given.LanguageTag)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		given.LanguageTag = tag
	}
	var old *BibleMeta
	var prev BibleMeta
	if err := readJSON(filepath.Join(dir, "bible.json"), &prev); err == nil {
		// Fields this import leaves empty keep the earlier import's values.
		old = &prev
		merged := prev
		merged.Override(given)
		meta = merged
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	} else {
		meta = given
	}
	if tag, err := canonicalLanguage(meta.LanguageTag); err == nil {
		meta.LanguageTag = tag
	} else if meta.LanguageTag != "" {
		return nil, fmt.Errorf("import: bible %d: %w", meta.ID, err)
	}
	if err := meta.Validate(); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	rep := &ImportReport{Bible: meta.ID, Repairs: map[string]int{}}
	extra, err := settleScheme(dir, &meta, opt, extra, rep)
	if err != nil {
		return nil, err
	}
	if err := CheckReferences(content, &ContentBible{Dir: dir, Meta: meta}); err != nil {
		// Not an import error: the licence or organization may be added
		// next. Until then the build leaves this Bible out.
		rep.Warnings = append(rep.Warnings, fmt.Errorf("bible %d cannot be built yet: %w", meta.ID, err))
	}
	if _, known := directionOf(meta.LanguageTag); !known && meta.TextDirection == "" {
		rep.Warnings = append(rep.Warnings, fmt.Errorf("bible %d: the text direction of %q is not known; assuming ltr (set text_direction or --direction)", meta.ID, meta.LanguageTag))
	}
	books := map[bible.BookID]sourceFile{}
	texts := map[bible.BookID]verseMap{}
	refused := map[bible.BookID]bool{}
	for _, f := range files {
		cb := checkBook(f, &meta, rep)
		for _, d := range cb.repairs {
			rep.Repairs[d.Class]++
			rep.Warnings = append(rep.Warnings, d)
		}
		if cb.id == "" {
			rep.Unreadable++
			rep.Errors = append(rep.Errors, cb.fatal)
			continue
		}
		if _, dup := books[cb.id]; dup {
			rep.Errors = append(rep.Errors, fmt.Errorf("%s: book %s appears twice in the source", f.name, cb.id))
			continue
		}
		rep.Errors = append(rep.Errors, cb.damage...)
		switch {
		case cb.fatal != nil:
			rep.Errors = append(rep.Errors, fmt.Errorf("%w (cannot be published)", cb.fatal))
			refused[cb.id] = true
			continue
		case len(cb.damage) > 0 && !opt.AllowDamaged:
			refused[cb.id] = true
			continue
		case len(cb.damage) > 0:
			rep.Damaged = append(rep.Damaged, cb.id)
		}
		books[cb.id] = f
		texts[cb.id] = cb.texts
		if cb.id.Canonical() {
			rep.Books = append(rep.Books, cb.id)
		} else {
			rep.Peripheral = append(rep.Peripheral, cb.id)
		}
	}
	for id := range refused {
		rep.Refused = append(rep.Refused, id)
	}
	sortBooks(rep.Books)
	sortBooks(rep.Peripheral)
	sortBooks(rep.Refused)
	sortBooks(rep.Damaged)
	if len(books) == 0 {
		return rep, fmt.Errorf("import: no book of %s could be imported: %d books refused (earlier copies kept), %d files unreadable", source, len(rep.Refused), rep.Unreadable)
	}
	existing, err := bookFiles(dir)
	if err != nil {
		return nil, err
	}
	if old != nil && !opt.Replace {
		if changes := identityChanges(*old, given, meta, existing, texts); len(changes) > 0 {
			return rep, fmt.Errorf("import: %s is not Bible %d as imported before: %s; "+
				"nothing was written (--replace imports it as Bible %d all the same)",
				source, meta.ID, strings.Join(changes, "; "), meta.ID)
		}
	}
	if old != nil && numberingOf(*old) != numberingOf(meta) {
		// The flag is explicit, and the text is the same; what changes is
		// what every id names, so the import says so.
		rep.Warnings = append(rep.Warnings, fmt.Errorf("bible %d: renumbered from its %s numbering to its %s one: where the two differ, "+
			"passage ids that apps stored (highlights among them) now name other verses", meta.ID, numberingOf(*old), numberingOf(meta)))
	}
	// Books of the Bible the source does not have: kept, unless the
	// import replaces the whole Bible. A refused book is in the source and
	// keeps its earlier copy; a file that could not be read might be any
	// book, so nothing is removed then.
	var absent []bible.BookID
	for id := range existing {
		if _, in := books[id]; !in && !refused[id] {
			absent = append(absent, id)
		}
	}
	sortBooks(absent)
	switch {
	case !opt.ReplaceAll:
		rep.Kept = absent
	case rep.Unreadable > 0 && len(absent) > 0:
		return rep, fmt.Errorf("import: --replace-all: %d files of %s could not be read and might be any of %s; nothing was written",
			rep.Unreadable, source, joinBooks(absent))
	default:
		rep.Removed = absent
	}
	if opt.Check {
		return rep, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	write := func(name string, data []byte) error {
		p := filepath.Join(dir, name)
		changed, err := writeFileIfChanged(p, data)
		if changed {
			rep.Wrote = append(rep.Wrote, p)
		}
		return err
	}
	for id, f := range books {
		if err := write(string(id)+bookExt(f.name), f.data); err != nil {
			return nil, err
		}
		// The book delivered in the other format replaces its old file.
		for _, p := range existing[id] {
			if filepath.Base(p) != string(id)+bookExt(f.name) {
				if err := os.Remove(p); err != nil {
					return nil, err
				}
			}
		}
	}
	for name, data := range extra {
		if err := write(name, data); err != nil {
			return nil, err
		}
	}
	for _, id := range rep.Removed {
		for _, p := range existing[id] {
			if err := os.Remove(p); err != nil {
				return nil, err
			}
		}
	}
	data, err := jsonBytes(meta)
	if err != nil {
		return nil, err
	}
	return rep, write("bible.json", data)
}

// bookFiles lists the book files of a Bible's folder by book (a book has
// two only when both a .usfm and a .usx were written by hand).
func bookFiles(dir string) (map[bible.BookID][]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.*"))
	if err != nil {
		return nil, err
	}
	out := map[bible.BookID][]string{}
	for _, p := range paths {
		if id, _, ok := bookFile(filepath.Base(p)); ok {
			out[id] = append(out[id], p)
		}
	}
	return out, nil
}

func joinBooks(ids []bible.BookID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, " ")
}

// bookExt is the extension a book is stored under in the content
// directory: .usx for USX sources, .usfm for the others.
func bookExt(source string) string {
	if isUSXName(source) {
		return ".usx"
	}
	return ".usfm"
}

// bookFile reads a content directory file name as a book file.
func bookFile(name string) (bible.BookID, string, bool) {
	ext := filepath.Ext(name)
	if ext != ".usfm" && ext != ".usx" {
		return "", "", false
	}
	id := strings.TrimSuffix(name, ext)
	if !bible.ValidBookID(id) {
		return "", "", false
	}
	return bible.BookID(id), ext, true
}

func sortBooks(ids []bible.BookID) {
	sort.Slice(ids, func(i, j int) bool {
		if ids[i].Order() != ids[j].Order() {
			return ids[i].Order() < ids[j].Order()
		}
		return ids[i] < ids[j]
	})
}

func writeFileIfChanged(p string, data []byte) (bool, error) {
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	return true, os.WriteFile(p, data, 0o644)
}
