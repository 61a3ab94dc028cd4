package publish

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestPackReader(t *testing.T) {
	w := NewPackWriter()
	w.Add("book", JSON, []byte(`{"id":"JHN","title":"John John John John John John John John John John"}`))
	w.AddRaw(NameSegments, JSON, []byte(`[[{"Para":1}]]`))
	data := w.Bytes(NewEncoder())
	p, err := DecodePack(data)
	if err != nil {
		t.Fatal(err)
	}
	var book struct{ ID string }
	if err := p.Decode("book", &book); err != nil || book.ID != "JHN" {
		t.Fatalf("Decode: %+v %v", book, err)
	}
	if _, err := p.Raw("nothing"); !errors.Is(err, ErrNoEntry) {
		t.Fatalf("Raw of a missing entry: %v", err)
	}
	var bad int
	if err := p.Decode(NameSegments, &bad); err == nil || errors.Is(err, ErrNoEntry) {
		t.Fatalf("Decode into the wrong type: %v", err)
	}

	// The header alone reads like the whole pack's.
	h, err := decodePackHeaderOf(data, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodePackHeaderOf(data[:packHeaderPrefix+2], int64(len(data))); err == nil {
		t.Fatal("truncated header accepted")
	}
	if _, err := decodePackHeaderOf(data, h.BodyOffset()+1); err == nil {
		t.Fatal("entries past the pack's end accepted")
	}
}

// TestLoadHeader: the header read by range, in one read or in two
// when it is longer than the probe, is the whole pack's.
func TestLoadHeader(t *testing.T) {
	w := NewPackWriter()
	w.Add("book", JSON, []byte(`{"id":"JHN"}`))
	w.AddRaw(NameSegments, JSON, []byte(`[[{"Para":1}]]`))
	data := w.Bytes(NewEncoder())
	s, err := OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ref := PackRef{Key: "packs/p", Size: int64(len(data))}
	if err := s.Put(ctx, ref.Key, data); err != nil {
		t.Fatal(err)
	}
	whole, err := DecodePack(data)
	if err != nil {
		t.Fatal(err)
	}
	// From a store that reads into the caller's buffer and from one that
	// does not.
	for _, st := range []Store{s, struct{ Store }{s}} {
		for _, probe := range []int64{int64(packHeaderPrefix), 64 << 10, 16} {
			h, err := LoadHeader(ctx, StorePacks(st), ref, probe, nil)
			if err != nil {
				t.Fatalf("%T, probe %d: %v", st, probe, err)
			}
			if h.BodyOffset() != whole.BodyOffset() || h.Len() != whole.Len() {
				t.Errorf("%T, probe %d: %d entries at %d, want %d at %d", st, probe, h.Len(), h.BodyOffset(), whole.Len(), whole.BodyOffset())
			}
			for i := range whole.Len() {
				if e, ok, err := h.Entry(whole.Name(i)); !ok || err != nil || !reflect.DeepEqual(e, whole.At(i)) {
					t.Errorf("%T, probe %d: Entry(%q) = %+v, %v, %v", st, probe, whole.Name(i), e, ok, err)
				}
			}
		}
		if _, err := LoadHeader(ctx, StorePacks(st), PackRef{Key: ref.Key, Size: int64(packHeaderPrefix) + 2}, 64<<10, nil); err == nil {
			t.Errorf("%T: a header past the pack's size accepted", st)
		}
		if _, err := LoadHeader(ctx, StorePacks(st), PackRef{Key: ref.Key, Size: int64(len(data)) + 1}, 64<<10, nil); err == nil {
			t.Errorf("%T: a read past the pack's end accepted", st)
		}
	}
}

// TestPackHeaderChecks: a header naming an entry twice, or holding an ETag
// longer than MaxETag, is refused; the longest ETag a build writes fits.
func TestPackHeaderChecks(t *testing.T) {
	for _, bad := range []string{
		`[{"n":"a","t":"x","r":[]},{"n":"a","t":"x","r":[]}]`,
		`[{"n":"a","t":"x","r":[{"o":0,"l":0,"g":"\"` + strings.Repeat("0", MaxETag-1) + `\""}]}]`,
	} {
		if _, err := decodeJSONHeader([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	var sum [32]byte
	for i := range sum {
		sum[i] = byte(i * 37)
	}
	seen := map[string]bool{}
	for _, enc := range []string{Identity, Brotli, Gzip} {
		tag := ETag(&sum, enc)
		if len(tag) > MaxETag || tag[0] != '"' || tag[len(tag)-1] != '"' || seen[tag] {
			t.Errorf("ETag(%q) = %s", enc, tag)
		}
		seen[tag] = true
	}
}

// entries is every entry of p, in order.
func entries(p *Pack) []Entry {
	var out []Entry
	for i := range p.Len() {
		out = append(out, p.At(i))
	}
	return out
}
