package search_test

import (
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/build/usfm"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/search"
)

// webVerses renders the WEB from ../shared (once per test binary) into
// what the build hands to search.Build.
var webVerses = sync.OnceValues(func() ([]search.Verses, error) {
	dir, err := repotest.FindShared("bibles", "eng-web")
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.usfm.gz"))
	if err != nil {
		return nil, err
	}
	out := make([]*search.Verses, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			src, err := repotest.ReadGzip(f)
			if err != nil {
				errs[i] = err
				return
			}
			pb, err := usfm.Parse(f, src)
			if err != nil {
				errs[i] = err
				return
			}
			rb, err := render.Render(pb, render.Options{Language: "en", File: f})
			if err != nil {
				return // peripheral books
			}
			v := &search.Verses{Book: rb.Index}
			for _, c := range rb.Chapters {
				texts := make([]string, len(c.Verses))
				for k, segs := range c.Verses {
					texts[k] = bible.ComposeText(segs)
				}
				v.Texts = append(v.Texts, texts)
			}
			out[i] = v
		}()
	}
	wg.Wait()
	var vs []search.Verses
	for i, v := range out {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if v != nil && v.Book.ID.Canonical() {
			vs = append(vs, *v)
		}
	}
	sort.Slice(vs, func(i, k int) bool { return vs[i].Book.ID.Order() < vs[k].Book.ID.Order() })
	return vs, nil
})

var webIndex = sync.OnceValues(func() (*search.Index, error) {
	vs, err := webVerses()
	if err != nil {
		return nil, err
	}
	// Through the object format, as the edge reads it.
	return search.Decode(search.Build("en", vs).Encode())
})

func loadWEB(t testing.TB) *search.Index {
	t.Helper()
	repotest.Shared(t, "bibles", "eng-web")
	x, err := webIndex()
	if err != nil {
		t.Fatal(err)
	}
	return x
}
