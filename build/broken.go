package build

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/bibleplatform/platform/publish"
)

// bookError is a book whose source cannot be rendered: its Bible is left
// out of the build, and the other Bibles are published.
type bookError struct{ err error }

func (e bookError) Error() string { return e.err.Error() }

// broken reports whether a book of bj could not be rendered. Such a Bible
// is reported in Report.Broken with every reason (file:line:col), and the
// new build keeps what the previous build published of it (nothing, for a
// Bible never published), so that one broken Bible neither stops the other
// Bibles from publishing nor disappears from the API.
func (b *builder) broken(bj *bibleJob, prev *publish.Manifest) bool {
	cb := bj.bible
	var errs []error
	if bj.err != nil {
		errs = append(errs, bj.err)
	}
	for _, j := range bj.books {
		if j.err != nil {
			errs = append(errs, j.err)
		}
	}
	if len(errs) == 0 {
		return false
	}
	kept := "it is not published"
	if prev != nil {
		if be := prev.Bible(cb.Meta.ID); be != nil {
			*bj.slot = *be
			kept = "the previous build's copy stays published"
		}
	}
	for _, err := range errs {
		b.rep.Broken = append(b.rep.Broken, fmt.Errorf("bible %d (%s): %w; %s", cb.Meta.ID, cb.Dir, err, kept))
	}
	return true
}

// keepUnread keeps the Bibles whose folder cannot be read (unreadBible)
// as the previous build published them: their manifest entries, and
// their entries of the previous Bible catalogue, which it returns by id
// for sitePack. Each is reported in Report.Broken. m.Bibles ends sorted
// by id.
func (b *builder) keepUnread(ctx context.Context, m *publish.Manifest, prev *publish.Manifest, unread []unreadBible) (map[int32]publish.CatalogBible, error) {
	kept := map[int32]publish.CatalogBible{}
	var catalog map[int32]publish.CatalogBible
	for _, u := range unread {
		what := "it is not published"
		var be *publish.BibleEntry
		if prev != nil && u.id != 0 && m.Bible(u.id) == nil {
			be = prev.Bible(u.id)
		}
		if be != nil && catalog == nil {
			var err error
			if catalog, err = b.prevCatalog(ctx, prev); err != nil {
				return nil, fmt.Errorf("build: read the previous build's Bible catalogue: %w", err)
			}
		}
		if cat, ok := catalog[u.id]; be != nil && ok {
			m.Bibles = append(m.Bibles, *be)
			slices.SortFunc(m.Bibles, func(x, y publish.BibleEntry) int { return int(x.ID) - int(y.ID) })
			kept[u.id] = cat
			what = "the previous build's copy stays published"
		}
		b.rep.Broken = append(b.rep.Broken, fmt.Errorf("bible folder %s: %w; %s", u.dir, u.err, what))
	}
	return kept, nil
}

// prevCatalog is the previous build's Bible catalogue by id.
func (b *builder) prevCatalog(ctx context.Context, prev *publish.Manifest) (map[int32]publish.CatalogBible, error) {
	out := map[int32]publish.CatalogBible{}
	if prev.Site == nil {
		return out, nil
	}
	p, err := publish.LoadPack(ctx, b.opt.Store, *prev.Site)
	if err != nil {
		return nil, err
	}
	var list []publish.CatalogBible
	if err := p.Decode(publish.NameCatalogBibles, &list); err != nil {
		return nil, err
	}
	for _, c := range list {
		var head struct {
			ID int32 `json:"id"`
		}
		if err := json.Unmarshal(c.Bible, &head); err != nil {
			return nil, err
		}
		out[head.ID] = c
	}
	return out, nil
}
