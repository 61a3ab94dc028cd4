package build

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/usfm"
)

// ImportReport says what an import did. Problems are file:line:col
// diagnostics; a book with an error is left out and the others go on.
type ImportReport struct {
	Books      []bible.BookID // canonical books imported
	Peripheral []bible.BookID // front matter, glossary…: kept, not in books
	Errors     []error
	Warnings   []error
}

// Import reads the USFM files of SOURCE (a folder of .usfm/.sfm files,
// optionally gzip'd, or a .zip of them such as eBible's *_usfm.zip) and
// writes them, with meta, to content/bibles/<id>/. Fields of meta left
// empty keep the values of an earlier import of the same Bible. Book files
// from an earlier import that SOURCE no longer has are removed.
func Import(content, source string, meta BibleMeta) (*ImportReport, error) {
	files, err := readSources(source)
	if err != nil {
		return nil, err
	}
	if meta.ID <= 0 {
		return nil, errors.New("import: the Bible needs an id (--id)")
	}
	dir := filepath.Join(content, "bibles", fmt.Sprint(meta.ID))
	var old BibleMeta
	if err := readJSON(filepath.Join(dir, "bible.json"), &old); err == nil {
		meta = merge(old, meta)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := meta.Validate(); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	rep := &ImportReport{}
	if _, known := directionOf(meta.LanguageTag); !known && meta.TextDirection == "" {
		rep.Warnings = append(rep.Warnings, fmt.Errorf("bible %d: the text direction of %q is not known; assuming ltr (set text_direction or --direction)", meta.ID, meta.LanguageTag))
	}
	books := map[bible.BookID][]byte{}
	for _, f := range files {
		b, err := usfm.Parse(f.name, f.data)
		if err != nil {
			rep.Errors = append(rep.Errors, err)
			continue
		}
		for _, w := range b.Warnings {
			rep.Warnings = append(rep.Warnings, w)
		}
		id := bible.BookID(b.ID)
		if _, dup := books[id]; dup {
			rep.Errors = append(rep.Errors, fmt.Errorf("%s: book %s appears twice in the source", f.name, id))
			continue
		}
		books[id] = f.data
		if id.Canonical() {
			rep.Books = append(rep.Books, id)
		} else {
			rep.Peripheral = append(rep.Peripheral, id)
		}
	}
	if len(books) == 0 {
		return rep, fmt.Errorf("import: no book of %s could be read", source)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for id, data := range books {
		if err := writeFileIfChanged(filepath.Join(dir, string(id)+".usfm"), data); err != nil {
			return nil, err
		}
	}
	stale, _ := filepath.Glob(filepath.Join(dir, "*.usfm"))
	for _, p := range stale {
		if _, keep := books[bible.BookID(strings.TrimSuffix(filepath.Base(p), ".usfm"))]; !keep {
			if err := os.Remove(p); err != nil {
				return nil, err
			}
		}
	}
	sortBooks(rep.Books)
	sortBooks(rep.Peripheral)
	return rep, writeJSON(filepath.Join(dir, "bible.json"), meta)
}

func sortBooks(ids []bible.BookID) {
	sort.Slice(ids, func(i, j int) bool {
		if ids[i].Order() != ids[j].Order() {
			return ids[i].Order() < ids[j].Order()
		}
		return ids[i] < ids[j]
	})
}

// merge keeps old values where the new import leaves a field empty.
func merge(old, m BibleMeta) BibleMeta {
	keep := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	keep(&m.Abbreviation, old.Abbreviation)
	keep(&m.Title, old.Title)
	keep(&m.LocalizedTitle, old.LocalizedTitle)
	keep(&m.LocalizedAbbreviation, old.LocalizedAbbreviation)
	keep(&m.LanguageTag, old.LanguageTag)
	keep(&m.OrganizationID, old.OrganizationID)
	keep(&m.Copyright, old.Copyright)
	keep(&m.PromotionalContent, old.PromotionalContent)
	keep(&m.Info, old.Info)
	keep(&m.PublisherURL, old.PublisherURL)
	keep(&m.TextDirection, old.TextDirection)
	if m.LicenseID == 0 {
		m.LicenseID = old.LicenseID
	}
	return m
}

type sourceFile struct {
	name string
	data []byte
}

// isUSFMName reports whether a file name is a USFM book: .usfm or .sfm
// (any case), optionally gzip'd.
func isUSFMName(name string) bool {
	n := strings.ToLower(strings.TrimSuffix(strings.ToLower(name), ".gz"))
	return strings.HasSuffix(n, ".usfm") || strings.HasSuffix(n, ".sfm")
}

func readSources(source string) ([]sourceFile, error) {
	fi, err := os.Stat(source)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	var files []sourceFile
	switch {
	case fi.IsDir():
		err = filepath.WalkDir(source, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !isUSFMName(e.Name()) {
				return err
			}
			data, err := os.ReadFile(p)
			if err == nil {
				files = append(files, sourceFile{p, data})
			}
			return err
		})
	case strings.EqualFold(filepath.Ext(source), ".zip"):
		files, err = readZip(source)
	case isUSFMName(source):
		var data []byte
		data, err = os.ReadFile(source)
		files = append(files, sourceFile{source, data})
	default:
		err = fmt.Errorf("import: %s is not a folder, a .zip or a USFM file", source)
	}
	if err != nil {
		return nil, err
	}
	for i := range files {
		if strings.EqualFold(path.Ext(files[i].name), ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(files[i].data))
			if err == nil {
				files[i].data, err = io.ReadAll(io.LimitReader(zr, maxBookSize+1))
			}
			if err != nil {
				return nil, fmt.Errorf("import: %s: %w", files[i].name, err)
			}
		}
		if len(files[i].data) > maxBookSize {
			return nil, fmt.Errorf("import: %s: larger than %d MiB", files[i].name, maxBookSize>>20)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files, nil
}

// maxBookSize bounds one book file; the largest real book (Jeremiah with
// Strong's numbers) is about 1 MiB.
const maxBookSize = 64 << 20

func readZip(p string) ([]sourceFile, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer zr.Close()
	var files []sourceFile
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || !isUSFMName(f.Name) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("import: %s: %s: %w", p, f.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, maxBookSize+1))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("import: %s: %s: %w", p, f.Name, err)
		}
		files = append(files, sourceFile{p + ":" + f.Name, data})
	}
	return files, nil
}

func writeFileIfChanged(p string, data []byte) error {
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return os.WriteFile(p, data, 0o644)
}
