package publish

import (
	"bytes"
	"errors"
	"hash/maphash"
	"reflect"
	"testing"
	"unsafe"
)

// heldForms are a header's two forms: as read, and indexed.
func heldForms(t testing.TB, h Header) map[string]Header {
	t.Helper()
	ix, err := h.Index()
	if err != nil {
		t.Fatal(err)
	}
	if !ix.Indexed() || h.Indexed() {
		t.Fatal("Index did not index, or indexed the header as read")
	}
	return map[string]Header{"read": h, "indexed": ix}
}

// TestHeader: a header as read and indexed (binary or JSON) finds every
// entry as the decoded pack has it and finds no other; indexed, it takes
// less memory than as read, and both than decoded.
func TestHeader(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
	}{{"binary", testPack()}, {"json", jsonPack(t, testPack())}, {"chapter", chapterPack(t)}} {
		t.Run(c.name, func(t *testing.T) {
			p, err := DecodePack(c.data)
			if err != nil {
				t.Fatal(err)
			}
			h, err := NewHeader(nil, c.data, int64(len(c.data)))
			if err != nil {
				t.Fatal(err)
			}
			forms := heldForms(t, h)
			for form, h := range forms {
				if got, want := h.Len(), p.Len(); got != want {
					t.Fatalf("%s: Len() = %d, want %d", form, got, want)
				}
				if got, want := h.BodyOffset(), p.BodyOffset(); got != want {
					t.Errorf("%s: BodyOffset() = %d, want %d", form, got, want)
				}
				for i := range p.Len() {
					want := p.At(i)
					got, ok, err := h.Entry(want.Name)
					if !ok || err != nil || !reflect.DeepEqual(got, want) {
						t.Errorf("%s: Entry(%q) = %+v, %v, %v; want %+v", form, want.Name, got, ok, err, want)
					}
					// Names around this one are not in the pack.
					for _, other := range []string{want.Name + "\x00", want.Name[:len(want.Name)-1]} {
						if p.Index(other) < 0 {
							if _, ok, err := h.Entry(other); ok || err != nil {
								t.Errorf("%s: Entry(%q) found (%v)", form, other, err)
							}
						}
					}
				}
				for _, missing := range []string{"", "\x00", "zzzz", "passage"} {
					if _, ok, err := h.Entry(missing); ok || err != nil {
						t.Errorf("%s: Entry(%q) found (%v)", form, missing, err)
					}
				}
			}
			round := func(n int64) int64 { return n }
			read, ix := forms["read"], forms["indexed"]
			decoded := p.HeaderSize(round) + int64(len(c.data)-len(p.bodies))
			if c.name == "chapter" && (2*read.Size(round) > decoded || ix.Size(round) >= read.Size(round)) {
				t.Errorf("as read %d bytes, indexed %d, decoded %d", read.Size(round), ix.Size(round), decoded)
			}
		})
	}
}

// TestHeaderRefuses: every header the decoder refuses is refused indexed,
// and so is an entry past the pack's end, and a header as read fails the
// lookups that read its faults.
func TestHeaderRefuses(t *testing.T) {
	data := testPack()
	h, err := NewHeader(nil, data, int64(len(data))-1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Index(); err == nil {
		t.Error("an entry past the pack's end indexed")
	}
	p, _ := DecodePack(data)
	past := 0 // the entries past the pack's end fail
	for i := range p.Len() {
		e := p.At(i)
		_, _, err := h.Entry(e.Name)
		if end := e.Reps[len(e.Reps)-1]; end.Off+end.Len == int64(len(p.bodies)) {
			past++
			if err == nil {
				t.Errorf("Entry(%q), past the pack's end, read", e.Name)
			}
		}
	}
	if past == 0 {
		t.Fatal("no entry ends the pack")
	}
	if _, err := NewHeader(nil, data[:packHeaderPrefix+3], int64(len(data))); err == nil {
		t.Error("a header cut short accepted")
	}
	if _, err := NewHeader(nil, []byte("BPK3\x00\x00\x00\x00"), 8); err == nil {
		t.Error("an unknown format accepted")
	}
}

// TestHeaderNameHash: a header two of whose names share a hash is not
// indexed (ErrNoIndex), and stays sound as read. The seed is made to
// give two of the chapter's names the same hash by making every name's
// hash the same: a seed cannot be chosen, so the hashing is swapped.
func TestHeaderNameHash(t *testing.T) {
	data := chapterPack(t)
	h, err := NewHeader(nil, data, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer func(f func([]byte) uint64) { hashName = f }(hashName)
	hashName = func([]byte) uint64 { return 7 }
	if _, err := h.Index(); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("Index with every name's hash alike: %v", err)
	}
	p, _ := DecodePack(data)
	if e, ok, err := h.Entry(p.Name(3)); !ok || err != nil || !reflect.DeepEqual(e, p.At(3)) {
		t.Errorf("as read after a failed Index: %+v, %v, %v", e, ok, err)
	}
}

// TestHeaderSkewedHashes: an indexed lookup starts where an evenly spread
// hash would lie, and still finds every name, and no other, when the
// hashes are bunched at either end of their range (it then walks far up
// or down from where it starts).
func TestHeaderSkewedHashes(t *testing.T) {
	data := chapterPack(t)
	p, _ := DecodePack(data)
	defer func(f func([]byte) uint64) { hashName = f }(hashName)
	for _, tc := range []struct {
		name string
		hash func(uint64) uint64
	}{
		{"low", func(x uint64) uint64 { return x >> 12 }},
		{"high", func(x uint64) uint64 { return ^(x >> 12) }},
		{"middle", func(x uint64) uint64 { return 1<<63 + x>>20 }},
	} {
		hashName = func(b []byte) uint64 { return tc.hash(maphash.Bytes(nameSeed, b)) }
		h, err := NewHeader(nil, data, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		ix, err := h.Index()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i := range p.Len() {
			if e, ok, err := ix.Entry(p.Name(i)); !ok || err != nil || !reflect.DeepEqual(e, p.At(i)) {
				t.Fatalf("%s: %s: %+v, %v, %v", tc.name, p.Name(i), e, ok, err)
			}
			if _, ok, _ := ix.Entry(p.Name(i) + "x"); ok {
				t.Fatalf("%s: %sx found", tc.name, p.Name(i))
			}
		}
	}
}

// FuzzHeader: any bytes, as a pack's first bytes, make an indexed header
// exactly when the decoder makes one of them, and the header as read and
// indexed find the same entries as the decoder (as read: those its scan
// reaches soundly). Seeded with packs shaped like the catalogue's and with
// real chapter headers (testdata/fuzz/FuzzHeader).
func FuzzHeader(f *testing.F) {
	for _, data := range [][]byte{testPack(), jsonPack(f, testPack()), chapterPack(f)} {
		n, _ := packHeaderLen(data)
		end := packHeaderPrefix + int(n)
		f.Add(data[:end], uint32(len(data)-end))
	}
	f.Fuzz(func(t *testing.T, head []byte, bodies uint32) {
		size := int64(len(head)) + int64(bodies)
		// Held in a buffer another header gave back, full of its bytes:
		// nothing of them may show through.
		used := bytes.Repeat([]byte{0xa5}, 5*len(head)+64)
		h, err := NewHeader(used[:0], head, size)
		p, perr := decodePackHeaderOf(head, size)
		if err != nil && perr == nil {
			t.Fatalf("as read: %v; decoded", err)
		}
		if err != nil {
			return
		}
		if len(h.buf) <= cap(used) && unsafe.SliceData(h.buf) != unsafe.SliceData(used) {
			t.Fatal("a buffer with room for the header not used")
		}
		ix, ierr := h.Index()
		if (ierr == nil) != (perr == nil) {
			t.Fatalf("indexed: %v; decoded: %v", ierr, perr)
		}
		// Whatever is asked, the lookup stays within the header; as read,
		// it finds what the decoder finds or fails.
		names := []string{"", "a", "passage/GEN.1.1/html", string(head[min(len(head), 9):min(len(head), 20)])}
		if perr != nil {
			for _, name := range names {
				e, ok, err := h.Entry(name)
				if !ok {
					continue
				}
				if err != nil || e.Name != name {
					t.Fatalf("Entry(%q) of a refused header: %+v, %v", name, e, err)
				}
				// What it finds lies within the pack.
				for _, r := range e.Reps {
					if r.Off+r.Len > size-h.BodyOffset() {
						t.Fatalf("Entry(%q) of a refused header past the pack's end: %+v", name, e)
					}
				}
			}
			return
		}
		if h.Len() != p.Len() || h.BodyOffset() != p.BodyOffset() || ix.Len() != p.Len() || ix.BodyOffset() != p.BodyOffset() {
			t.Fatalf("%d and %d entries at %d, decoded %d at %d", h.Len(), ix.Len(), h.BodyOffset(), p.Len(), p.BodyOffset())
		}
		for i := range p.Len() {
			want := p.At(i)
			names = append(names, want.Name)
			for _, x := range []*Header{&h, &ix} {
				if got, ok, err := x.Entry(want.Name); !ok || err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("Entry(%q) = %+v, %v, %v; decoded %+v", want.Name, got, ok, err, want)
				}
			}
		}
		for _, name := range names {
			for _, x := range []*Header{&h, &ix} {
				if _, ok, err := x.Entry(name); ok != (p.Index(name) >= 0) || err != nil {
					t.Fatalf("Entry(%q): %v, %v; decoded %v", name, ok, err, p.Index(name) >= 0)
				}
			}
		}
	})
}

// BenchmarkNewHeader: a chapter pack's header read and one entry looked up
// (what a miss does), as read and indexed, against decoding it; and a
// lookup in a header held, as read and indexed.
func BenchmarkNewHeader(b *testing.B) {
	data := chapterPack(b)
	n, _ := packHeaderLen(data)
	head := data[:packHeaderPrefix+int(n)]
	size := int64(len(data))
	const name = "passage/JHN.3.17/html"
	buf := make([]byte, 0, len(head))
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h, err := NewHeader(buf, head, size)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok, _ := h.Entry(name); !ok {
				b.Fatal("no entry")
			}
		}
	})
	b.Run("indexed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h, err := NewHeader(buf, head, size)
			if err != nil {
				b.Fatal(err)
			}
			ix, err := h.Index()
			if err != nil {
				b.Fatal(err)
			}
			if _, ok, _ := ix.Entry(name); !ok {
				b.Fatal("no entry")
			}
		}
	})
	b.Run("decoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := decodePackHeaderOf(append([]byte(nil), head...), size)
			if err != nil {
				b.Fatal(err)
			}
			if p.Entry(name) == nil {
				b.Fatal("no entry")
			}
		}
	})
	h, err := NewHeader(nil, head, size)
	if err != nil {
		b.Fatal(err)
	}
	for form, h := range heldForms(b, h) {
		b.Run("lookup-"+form, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, _ := h.Entry(name); !ok {
					b.Fatal("no entry")
				}
			}
		})
	}
}
