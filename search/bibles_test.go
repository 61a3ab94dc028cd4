package search_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
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

// synonymsOf reads the fixture content's synonyms of a language, as the
// build hands them to search.BuildWith.
func synonymsOf(lang string) (search.Synonyms, error) {
	root, err := repotest.FindRoot()
	if err != nil {
		return nil, err
	}
	name := filepath.Join("synonyms", lang+".txt")
	data, err := os.ReadFile(filepath.Join(root, "fixtures", "content", name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	syn, errs := search.ParseSynonyms(name, data)
	return syn, errors.Join(errs...)
}

var (
	biblesMu sync.Mutex
	bibles   = map[string]*sync.Once{}
	loadedBy = map[string]*loaded{}
)

// sharedBible renders one shared Bible (once per test binary) into what
// the build hands to search.Build, and indexes it through the object
// format, as the edge reads it; with synonyms, with the fixture content's
// synonyms of its language.
func sharedBible(name string, synonyms bool) *loaded {
	key := fmt.Sprint(name, synonyms)
	biblesMu.Lock()
	once, ok := bibles[key]
	if !ok {
		once = new(sync.Once)
		bibles[key] = once
		loadedBy[key] = &loaded{}
	}
	l := loadedBy[key]
	biblesMu.Unlock()
	once.Do(func() {
		if synonyms {
			plain := sharedBible(name, false)
			if plain.err != nil {
				l.err = plain.err
				return
			}
			l.verses = plain.verses
		} else {
			l.verses, l.err = renderBible(name, sharedBibles[name])
		}
		var syn search.Synonyms
		if l.err == nil && synonyms {
			primary, _, _ := strings.Cut(sharedBibles[name], "-")
			syn, l.err = synonymsOf(primary)
		}
		if l.err == nil {
			l.index, l.err = search.Decode(search.BuildWith(sharedBibles[name], l.verses, syn).Encode())
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
func loadBible(t testing.TB, name string, synonyms bool) *search.Index {
	t.Helper()
	repotest.Shared(t, "bibles", name)
	l := sharedBible(name, synonyms)
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.index
}

func webVerses() ([]search.Verses, error) {
	l := sharedBible("eng-web", false)
	return l.verses, l.err
}

func loadWEB(t testing.TB) *search.Index { return loadBible(t, "eng-web", false) }
