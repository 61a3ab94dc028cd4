package packs

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// TestEntryIndex finds every entry of a pack by name, short names and
// names longer than a slot holds (some sharing a slot's whole prefix),
// and finds nothing for names the pack lacks.
func TestEntryIndex(t *testing.T) {
	long := strings.Repeat("x", slotName)
	w := publish.NewPackWriter()
	var names []string
	for i := range 300 {
		names = append(names, fmt.Sprintf("passage/%d/html-hn", i))
	}
	names = append(names, "", "a", long, long+"1", long+"2", long+strings.Repeat("y", 300))
	for i, n := range names {
		w.AddRaw(n, publish.JSON, fmt.Appendf(nil, "body %d", i))
	}
	p, err := publish.DecodePack(w.Bytes(publish.NewEncoder()))
	if err != nil {
		t.Fatal(err)
	}
	x := newEntryIndex(p, time.Unix(1e9, 0))
	for i, n := range names {
		r := x.find([]byte(n))
		if r == nil {
			t.Fatalf("%q not found", n)
		}
		if got, want := string(r.Reps[represent.CodingIdentity].Body()), fmt.Sprintf("body %d", i); got != want {
			t.Errorf("%q: body %q, want %q", n, got, want)
		}
	}
	for _, n := range []string{"passage/300/html-hn", "passage/1/html-h", "b", long[1:], long + "3", long + strings.Repeat("y", 299)} {
		if x.find([]byte(n)) != nil {
			t.Errorf("%q found", n)
		}
	}
	var none entryIndex
	if none.find([]byte("a")) != nil {
		t.Error("found in an empty index")
	}
	n := 0
	for name, r := range x.all() {
		if x.find([]byte(name)) != r {
			t.Errorf("all: %q is not the resource find returns", name)
		}
		n++
	}
	if n != len(names) {
		t.Errorf("all yielded %d entries, want %d", n, len(names))
	}
}

// FuzzPackIndex decodes arbitrary packs: a pack is refused or decoded
// without a panic, and every entry of a decoded one is found by its name,
// as the resource prepared from it.
func FuzzPackIndex(f *testing.F) {
	w := publish.NewPackWriter()
	w.Add("passage/16/html", publish.JSON, []byte(`{"data":"For God so loved the world, that he gave his only Son"}`))
	w.AddRaw(strings.Repeat("n", 40), publish.JSON, []byte(`{}`))
	f.Add(w.Bytes(publish.NewEncoder()))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := publish.DecodePack(data)
		if err != nil {
			return
		}
		x := newEntryIndex(p, time.Time{})
		for i := range p.Len() {
			e := p.At(i)
			if r := x.find([]byte(e.Name)); r != &x.res[i] {
				t.Fatalf("entry %d (%q) not found as itself", i, e.Name)
			}
			for _, rep := range e.Reps {
				if len(rep.ETag) > publish.MaxETag {
					t.Fatalf("entry %q: an ETag of %d bytes decoded", e.Name, len(rep.ETag))
				}
			}
		}
	})
}

// TestHitLayout holds the sizes the hit path's layout relies on
// (represent/resource.go, packs.go, entryindex.go): a coding is one cache line, a
// name slot half of one, a pack view whole lines with the fields a hit
// reads in its first.
func TestHitLayout(t *testing.T) {
	if n := unsafe.Sizeof(represent.Rep{}); n != 64 {
		t.Errorf("represent.Rep is %d bytes, want 64", n)
	}
	if n := unsafe.Sizeof(nameSlot{}); n != 32 {
		t.Errorf("nameSlot is %d bytes, want 32", n)
	}
	if n := unsafe.Sizeof(View{}); n%64 != 0 {
		t.Errorf("View is %d bytes, not whole cache lines (its padding is stale)", n)
	}
	var v View
	if end := unsafe.Offsetof(v.index) + unsafe.Offsetof(v.index.res) + unsafe.Sizeof(v.index.res); end > 64 ||
		unsafe.Offsetof(v.used) != 0 {
		t.Errorf("a hit's fields of View end at byte %d, past its first line", end)
	}
}
