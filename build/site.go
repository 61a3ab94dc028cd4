package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/licensehtml"
	"github.com/bibleplatform/platform/publish"
)

// site is what the content directory holds besides Bibles.
type site struct {
	organizations []json.RawMessage
	licenses      []publish.License
	fonts         []json.RawMessage
	fontFiles     map[string]string // name under fonts/ → file path
	votd          []publish.VerseOfTheDay
}

func readSite(content string) (*site, error) {
	s := &site{fontFiles: map[string]string{}}
	var err error
	if s.organizations, err = readRawDir(filepath.Join(content, "organizations")); err != nil {
		return nil, err
	}
	if s.fonts, err = readRawDir(filepath.Join(content, "fonts")); err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(content, "licenses", "*.json"))
	for _, p := range files {
		// licenses/<id>.json, with its text from licenses/<id>.html, which
		// may have been edited by hand since publish licenses add checked it.
		var l publish.License
		if err := readJSON(p, &l); err != nil {
			return nil, err
		}
		hp := strings.TrimSuffix(p, ".json") + ".html"
		html, err := os.ReadFile(hp)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if err := licensehtml.Check(string(html)); err != nil {
			return nil, fmt.Errorf("%s: %w", hp, err)
		}
		l.HTML = strings.TrimSpace(string(html))
		s.licenses = append(s.licenses, l)
	}
	sort.Slice(s.licenses, func(i, j int) bool { return s.licenses[i].ID < s.licenses[j].ID })
	fontDir := filepath.Join(content, "fonts", "files")
	_ = filepath.WalkDir(fontDir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(filepath.Join(content, "fonts"), p)
			s.fontFiles[filepath.ToSlash(rel)] = p
		}
		return nil
	})
	p := filepath.Join(content, "verse_of_the_day.json")
	if err := readJSON(p, &s.votd); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, v := range s.votd {
		if v.Day < 1 || v.Day > 366 {
			return nil, fmt.Errorf("%s: day %d is not in 1..366", p, v.Day)
		}
		if _, err := bible.ParseRef(v.PassageID); err != nil {
			return nil, fmt.Errorf("%s: day %d: %w", p, v.Day, err)
		}
	}
	sort.Slice(s.votd, func(i, j int) bool { return s.votd[i].Day < s.votd[j].Day })
	return s, nil
}

// readRawDir reads every *.json in dir as one JSON value each, sorted by
// file name.
func readRawDir(dir string) ([]json.RawMessage, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	out := []json.RawMessage{}
	for _, p := range files {
		var v json.RawMessage
		if err := readJSON(p, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// sitePack publishes the catalogues that are not one Bible's, and the font
// files as objects of their own.
// kept are the catalogue entries of Bibles kept as the previous build
// published them (keepUnread).
func (b *builder) sitePack(ctx context.Context, m *publish.Manifest, s *site, bibles []*ContentBible, kept map[int32]publish.CatalogBible) error {
	for i := range s.licenses {
		l := &s.licenses[i]
		l.BibleIDs = []int32{}
		for _, cb := range bibles {
			if cb.Meta.LicenseID == l.ID {
				l.BibleIDs = append(l.BibleIDs, cb.Meta.ID)
			}
		}
		for id, c := range kept {
			if c.LicenseID == l.ID {
				l.BibleIDs = append(l.BibleIDs, id)
			}
		}
		slices.Sort(l.BibleIDs)
	}
	if s.licenses == nil {
		s.licenses = []publish.License{}
	}
	if s.votd == nil {
		s.votd = []publish.VerseOfTheDay{}
	}
	w := publish.NewPackWriter()
	w.Add(publish.NameOrganizations, publish.JSON, mustJSON(s.organizations))
	w.Add(publish.NameLicenses, publish.JSON, mustJSON(s.licenses))
	w.Add(publish.NameFonts, publish.JSON, mustJSON(s.fonts))
	w.Add(publish.NameVerseOfDays, publish.JSON, mustJSON(dataOf(s.votd)))
	w.AddRaw(publish.NameCatalogBibles, publish.JSON, mustJSON(b.catalogBibles(m, bibles, kept)))
	ref, err := b.put(ctx, w, "the site catalogues")
	if err != nil {
		return err
	}
	m.Site = &ref
	names := make([]string, 0, len(s.fontFiles))
	for n := range s.fontFiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		data, err := os.ReadFile(s.fontFiles[n])
		if err != nil {
			return err
		}
		w := publish.NewPackWriter()
		w.AddRaw(n, fontType(n), data)
		ref, err := b.put(ctx, w, "font file "+n)
		if err != nil {
			return err
		}
		if m.Files == nil {
			m.Files = map[string]publish.PackRef{}
		}
		m.Files[publish.FontFile(n)] = ref
	}
	return nil
}

func fontType(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".woff2":
		return "font/woff2"
	case ".woff":
		return "font/woff"
	case ".ttf":
		return "font/ttf"
	case ".otf":
		return "font/otf"
	}
	return "application/octet-stream"
}

// catalogBibles is the Bible object of every Bible in m, the same one its
// own pack holds (biblePack), with its licence, by id; kept are those of
// Bibles kept from the previous build.
func (b *builder) catalogBibles(m *publish.Manifest, bibles []*ContentBible, kept map[int32]publish.CatalogBible) []publish.CatalogBible {
	type entry struct {
		id int32
		c  publish.CatalogBible
	}
	var list []entry
	for _, cb := range bibles {
		be := m.Bible(cb.Meta.ID)
		if be == nil {
			continue
		}
		ids := make([]bible.BookID, len(be.Books))
		for i, k := range be.Books {
			ids[i] = k.ID
		}
		list = append(list, entry{cb.Meta.ID, publish.CatalogBible{LicenseID: cb.Meta.LicenseID, Bible: mustJSON(cb.Meta.Bible(ids, b.opt.ReaderURL))}})
	}
	for id, c := range kept {
		list = append(list, entry{id, c})
	}
	slices.SortFunc(list, func(x, y entry) int { return int(x.id) - int(y.id) })
	out := make([]publish.CatalogBible, len(list))
	for i, e := range list {
		out[i] = e.c
	}
	return out
}
