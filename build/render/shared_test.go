package render

import (
	"errors"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/bibleplatform/platform/build/usfm"
	"github.com/bibleplatform/platform/internal/repotest"
)

func sharedDir(tb testing.TB) string { return repotest.Shared(tb) }

// parsedBible is one Bible folder parsed once per test binary.
type parsedBible struct {
	once  sync.Once
	books []*usfm.Book
	err   error
}

var parsed = map[string]*parsedBible{
	"eng-web": {}, "eng-bsb": {}, "hbo-uhb": {}, "eng-kjv1611": {}, "spa-rv1909": {},
}

// parseBible parses every *.usfm.gz (any case: the KJV 1611's are .USFM)
// of a shared Bible folder, in file name order.
func parseBible(tb testing.TB, name string) []*usfm.Book {
	tb.Helper()
	p := parsed[name]
	if p == nil {
		tb.Fatalf("no entry for %s", name)
	}
	dir := filepath.Join(sharedDir(tb), "bibles", name)
	p.once.Do(func() {
		files, err := filepath.Glob(filepath.Join(dir, "*.[uU][sS][fF][mM].gz"))
		if err != nil || len(files) == 0 {
			p.err = errors.New("no *.usfm.gz in " + name)
			return
		}
		sort.Strings(files)
		for _, f := range files {
			src, err := repotest.ReadGzip(f)
			if err != nil {
				p.err = err
				return
			}
			b, err := usfm.Parse(filepath.Base(f), src)
			if err != nil {
				p.err = err
				return
			}
			p.books = append(p.books, b)
		}
	})
	if p.err != nil {
		tb.Fatal(p.err)
	}
	return p.books
}

// renderBible renders every canonical book of a shared Bible folder.
func renderBible(tb testing.TB, name, lang string) []*Book {
	tb.Helper()
	var out []*Book
	for _, b := range parseBible(tb, name) {
		rb, err := Render(b, Options{Language: lang, File: b.ID})
		if errors.Is(err, ErrPeripheral) {
			continue
		}
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, rb)
	}
	return out
}

func findBook(books []*Book, id string) *Book {
	for _, b := range books {
		if string(b.Index.ID) == id {
			return b
		}
	}
	return nil
}
