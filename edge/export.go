package edge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// Export writes every published representation of the current build as a
// plain file, with a .gz sibling holding the gzip encoding, so that a
// static server (nginx with gzip_static) can serve the same bytes; passages
// lists extra passage ids (ranges) to compose and write as well. The layout
// is documented in docs/edge.md:
//
//	v1/bibles/<id>.json  v1/bibles/<id>/index.json  …/books/<BOOK>/chapters/<C>/verses/<V>.json
//	v1/bibles/<id>/books/canon/<canon>.json
//	v1/bibles/<id>/passages/<passage id>/<variant>.json
func (s *Server) Export(ctx context.Context, dir string, passages map[int32][]string) (int, error) {
	st := s.site.Load()
	if st == nil {
		return 0, errors.New("export: no build loaded")
	}
	n := 0
	write := func(rel string, res *represent.Resource) error {
		p := filepath.Join(dir, filepath.FromSlash(rel)+".json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, res.Reps[represent.CodingIdentity].Body(), 0o644); err != nil {
			return err
		}
		if res.Has(represent.CodingGzip) {
			if err := os.WriteFile(p+".gz", res.Reps[represent.CodingGzip].Body(), 0o644); err != nil {
				return err
			}
		}
		n++
		return nil
	}
	for _, be := range st.Manifest.Bibles {
		base := "v1/bibles/" + strconv.Itoa(int(be.ID))
		pv, err := s.packs.Get(ctx, be.Pack)
		if err != nil {
			return n, err
		}
		for name, res := range pv.Entries() {
			rel := ""
			switch {
			case name == publish.NameBible:
				rel = base
			case name == publish.NameIndex, name == publish.NameBooks:
				rel = base + "/" + name
			case strings.HasPrefix(name, publish.NameBooks+"/"):
				rel = base + "/books/canon/" + strings.TrimPrefix(name, publish.NameBooks+"/")
			}
			if rel != "" {
				if err := write(rel, res); err != nil {
					return n, err
				}
			}
		}
		for _, ke := range be.Books {
			book := base + "/books/" + string(ke.ID)
			pv, err := s.packs.Get(ctx, ke.Pack)
			if err != nil {
				return n, err
			}
			for name, res := range pv.Entries() {
				rel := ""
				switch {
				case name == publish.NameBook:
					rel = book
				case name == publish.NameChapters:
					rel = book + "/chapters"
				}
				if v, variant, ok := publish.CutPassageName(name); ok && v != "" {
					rel = base + "/passages/" + string(ke.ID) + "." + v + "/" + variant
				}
				if rel != "" {
					if err := write(rel, res); err != nil {
						return n, err
					}
				}
			}
			for _, ce := range ke.Chapters {
				chap := book + "/chapters/" + ce.ID
				pid := base + "/passages/" + string(ke.ID) + "." + ce.ID
				pv, err := s.packs.Get(ctx, ce.Pack)
				if err != nil {
					return n, err
				}
				for name, res := range pv.Entries() {
					rel := ""
					switch {
					case name == publish.NameChapter:
						rel = chap
					case name == publish.NameVerses:
						rel = chap + "/verses"
					}
					if v, ok := publish.CutVerseName(name); ok {
						rel = chap + "/verses/" + v
					} else if v, variant, ok := publish.CutPassageName(name); ok && v != "" {
						rel = pid + "." + v + "/" + variant
					} else if ok {
						rel = pid + "/" + variant
					}
					if rel != "" {
						if err := write(rel, res); err != nil {
							return n, err
						}
					}
				}
			}
		}
	}
	for id, ids := range passages {
		bv := st.Bibles[id]
		if bv == nil {
			return n, fmt.Errorf("export: Bible %d is not in build %s", id, st.Build)
		}
		for _, pid := range ids {
			r, err := bible.ParseRef(pid)
			if err != nil {
				return n, fmt.Errorf("export: %w", err)
			}
			if r.Kind() != bible.KindRange {
				continue // pre-rendered, already written
			}
			for _, variant := range publish.Variants {
				html, headings, notes := variantFlags(variant)
				res, err := s.bibles.Compose(ctx, bv, r, html, headings, notes)
				if err != nil {
					return n, fmt.Errorf("export %s: %w", pid, err)
				}
				if err := write("v1/bibles/"+strconv.Itoa(int(id))+"/passages/"+r.String()+"/"+variant, res); err != nil {
					return n, err
				}
			}
		}
	}
	return n, nil
}

// variantFlags is the inverse of publish.Variant.
func variantFlags(variant string) (html, headings, notes bool) {
	switch variant {
	case "html":
		return true, false, false
	case "html-h":
		return true, true, false
	case "html-n":
		return true, false, true
	case "html-hn":
		return true, true, true
	}
	return false, false, false
}
