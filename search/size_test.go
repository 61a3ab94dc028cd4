package search_test

import (
	"runtime"
	"testing"

	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
)

// TestSize holds Index.Size to the heap that loading an index as the
// edge does (a base and a part per book, merged) really takes, for the
// shared Bibles of three scripts: a cache bounded by Size must not hold
// much more than its bound.
func TestSize(t *testing.T) {
	for _, name := range []string{"eng-web", "spa-rv1909", "hbo-uhb"} {
		t.Run(name, func(t *testing.T) {
			x := loadBible(t, name, false)
			lang := x.Language()
			vs := sharedBible(name, false).verses
			parts := map[string][]byte{"base": search.BuildWith(lang, nil, nil).Encode()}
			e := &publish.SearchEntry{Pack: publish.PackRef{Key: "base"}}
			for _, v := range vs {
				id := string(v.Book.ID)
				parts[id] = search.BuildPart(lang, v)
				e.Books = append(e.Books, publish.SearchBook{ID: id, Pack: publish.PackRef{Key: id}})
			}
			before := heapAfterGC()
			x, err := search.Load(e, func(ref publish.PackRef) ([]byte, error) {
				// A copy, as a pack read from the store is: the index
				// keeps what it needs of it, and the rest is garbage.
				return append([]byte(nil), parts[ref.Key]...), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			took := heapAfterGC() - before
			got := x.Size()
			runtime.KeepAlive(parts) // freed during the load, it would hide the index's own heap
			t.Logf("Size %d bytes, heap taken %d bytes (%.2f)", got, took, float64(got)/float64(took))
			if r := float64(got) / float64(took); r < 0.85 || r > 1.15 {
				t.Errorf("Size() = %d bytes, but the decoded index takes %d bytes of heap (ratio %.2f, want 0.85–1.15)", got, took, r)
			}
		})
	}
}

func heapAfterGC() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
