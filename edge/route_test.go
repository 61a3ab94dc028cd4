package edge

import (
	"strings"
	"testing"
)

func TestParsePathID(t *testing.T) {
	for _, c := range []struct {
		in   string
		id   int32
		want idParse
	}{
		{"1", 1, idOK},
		{"9001", 9001, idOK},
		{"2147483647", 2147483647, idOK},
		{"0", 0, idNone},
		{"-1", 0, idNone},
		{"-2147483648", 0, idNone},
		{"+1", 0, idNone},
		{"001", 0, idNone},
		{"-0", 0, idNone},
		{"", 0, idInvalid},
		{"-", 0, idInvalid},
		{"+", 0, idInvalid},
		{"abc", 0, idInvalid},
		{"1.0", 0, idInvalid},
		{"1e3", 0, idInvalid},
		{" 1", 0, idInvalid},
		{"2147483648", 0, idInvalid},
		{"-2147483649", 0, idInvalid},
		{"99999999999999999999", 0, idInvalid},
	} {
		id, got := parsePathID([]byte(c.in))
		if id != c.id || got != c.want {
			t.Errorf("parsePathID(%q) = %d, %d; want %d, %d", c.in, id, got, c.id, c.want)
		}
	}
}

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
		if len(rt.bible) == 0 || strings.Contains(string(rt.bible), "/") {
			t.Fatalf("%q: bible segment %q", p, rt.bible)
		}
		if rt.kind == routePassage && len(rt.passage) == 0 {
			t.Fatalf("%q: empty passage", p)
		}
		if rt.kind >= routeBook && rt.kind <= routeVerse && len(rt.book) == 0 {
			t.Fatalf("%q: empty book", p)
		}
	})
}
