package search_test

import (
	"bytes"
	"testing"

	"github.com/bibleplatform/platform/search"
)

// TestMerge: the base and the books' segments, each through the object
// format, merge into the very index a build of every book at once makes.
func TestMerge(t *testing.T) {
	loadWEB(t)
	vs, err := webVerses()
	if err != nil {
		t.Fatal(err)
	}
	syn := search.Synonyms{{"lord", "yahweh"}}
	whole := search.BuildWith("en", vs, syn).Encode()
	base, err := search.Decode(search.BuildWith("en", nil, syn).Encode())
	if err != nil {
		t.Fatal(err)
	}
	segs := make([]*search.Index, len(vs))
	for i, v := range vs {
		part := search.BuildPart("en", v)
		if i == 0 && !bytes.Equal(part, search.BuildWith("en", []search.Verses{v}, nil).Encode()) {
			t.Fatal("BuildPart differs from BuildWith of the book alone")
		}
		if segs[i], err = search.Decode(part); err != nil {
			t.Fatal(err)
		}
	}
	x, err := search.Merge(base, segs)
	if err != nil {
		t.Fatal(err)
	}
	if got := x.Encode(); !bytes.Equal(got, whole) {
		t.Fatalf("merged index: %d bytes, differs from the whole build's %d", len(got), len(whole))
	}
	other, _ := search.Decode(search.BuildWith("es", nil, nil).Encode())
	if _, err := search.Merge(other, segs); err == nil {
		t.Error("English segments merged into a Spanish index")
	}
}
