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

// sharedBibles are the Bibles of ../shared/bibles, by folder, with their
// language tags.
var sharedBibles = map[string]string{
	"eng-web":     "en",
	"eng-bsb":     "en",
	"eng-kjv1611": "en",
	"spa-rv1909":  "es",
	"hbo-uhb":     "hbo",
}

type loaded struct {
	verses []search.Verses
	index  *search.Index
	err    error
}

var (
	biblesMu sync.Mutex
	bibles   = map[string]*sync.Once{}
	loadedBy = map[string]*loaded{}
)

// bibleVerses renders one shared Bible (once per test binary) into what
// the build hands to search.Build, and indexes it through the object
// format, as the edge reads it.
func sharedBible(name string) *loaded {
	biblesMu.Lock()
	once, ok := bibles[name]
	if !ok {
		once = new(sync.Once)
		bibles[name] = once
		loadedBy[name] = &loaded{}
	}
	l := loadedBy[name]
	biblesMu.Unlock()
	once.Do(func() {
		l.verses, l.err = renderBible(name, sharedBibles[name])
		if l.err == nil {
			l.index, l.err = search.Decode(search.Build(sharedBibles[name], l.verses).Encode())
		}
	})
	return l
}

func renderBible(name, lang string) ([]search.Verses, error) {
	dir, err := repotest.FindShared("bibles", name)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, pat := range []string{"*.usfm.gz", "*.USFM.gz"} {
		fs, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
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
			rb, err := render.Render(pb, render.Options{Language: lang, File: f})
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
}

// loadBible returns the index of a shared Bible, skipping the test when
// ../shared does not have it.
func loadBible(t testing.TB, name string) *search.Index {
	t.Helper()
	repotest.Shared(t, "bibles", name)
	l := sharedBible(name)
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.index
}

func webVerses() ([]search.Verses, error) {
	l := sharedBible("eng-web")
	return l.verses, l.err
}

func loadWEB(t testing.TB) *search.Index { return loadBible(t, "eng-web") }
