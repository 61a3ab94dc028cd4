package edge

import (
	"strings"
	"testing"

	"github.com/bibleplatform/platform/edge/internal/content"
)

// FuzzRoute checks that the router never panics and that what it accepts
// has the segments the handler reads.
func FuzzRoute(f *testing.F) {
	for _, s := range []string{"9001", "9001/index", "9001/books/JHN/chapters/3/verses/16", "9001/passages/JHN.3.16",
		"9001//books", "9001/books/", "/", "", "a/b/c/d/e/f/g/h/i"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		var rt route
		if !parseRoute([]byte(p), &rt) {
			return
		}
		if len(rt.Bible) == 0 || strings.Contains(string(rt.Bible), "/") {
			t.Fatalf("%q: bible segment %q", p, rt.Bible)
		}
		if rt.Kind == content.KindPassage && len(rt.Passage) == 0 {
			t.Fatalf("%q: empty passage", p)
		}
		if rt.Kind >= content.KindBook && rt.Kind <= content.KindVerse && len(rt.Book) == 0 {
			t.Fatalf("%q: empty book", p)
		}
	})
}
