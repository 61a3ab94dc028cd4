package publish

import (
	"bytes"
	"reflect"
	"testing"
	"unsafe"
)

// TestHeader: a header held as read (binary or JSON) finds every entry
// as the decoded pack has it, finds no other, and takes less memory.
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
			if got, want := h.Len(), p.Len(); got != want {
				t.Fatalf("Len() = %d, want %d", got, want)
			}
			if got, want := h.BodyOffset(), p.BodyOffset(); got != want {
				t.Errorf("BodyOffset() = %d, want %d", got, want)
			}
			for i := range p.Len() {
				want := p.At(i)
				got, ok := h.Entry(want.Name)
				if !ok || !reflect.DeepEqual(got, want) {
					t.Errorf("Entry(%q) = %+v, %v; want %+v", want.Name, got, ok, want)
				}
				// Names around this one are not in the pack.
				for _, other := range []string{want.Name + "\x00", want.Name[:len(want.Name)-1]} {
					if p.Index(other) < 0 {
						if _, ok := h.Entry(other); ok {
							t.Errorf("Entry(%q) found", other)
						}
					}
				}
			}
			for _, missing := range []string{"", "\x00", "zzzz", "passage"} {
				if _, ok := h.Entry(missing); ok {
					t.Errorf("Entry(%q) found", missing)
				}
			}
			round := func(n int64) int64 { return n }
			if c.name == "chapter" && 2*h.Size(round) > p.HeaderSize(round)+int64(len(c.data)-len(p.bodies)) {
				t.Errorf("held as read %d bytes, decoded %d", h.Size(round), p.HeaderSize(round))
			}
		})
	}
}

// TestHeaderRefuses: every header the decoder refuses is refused held as
// read too, and so is an entry past the pack's end.
func TestHeaderRefuses(t *testing.T) {
	data := testPack()
	if _, err := NewHeader(nil, data, int64(len(data))-1); err == nil {
		t.Error("an entry past the pack's end accepted")
	}
	if _, err := NewHeader(nil, data[:packHeaderPrefix+3], int64(len(data))); err == nil {
		t.Error("a header cut short accepted")
	}
	if _, err := NewHeader(nil, []byte("BPK3\x00\x00\x00\x00"), 8); err == nil {
		t.Error("an unknown format accepted")
	}
}

// FuzzHeader: any bytes, as a pack's first bytes, make a header held as
// read exactly when the decoder makes one of them, and the two find the
// same entries. Seeded with packs shaped like the catalogue's and with
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
		if (err == nil) != (perr == nil) {
			t.Fatalf("held as read: %v; decoded: %v", err, perr)
		}
		if err != nil {
			return
		}
		if len(h.buf) <= cap(used) && unsafe.SliceData(h.buf) != unsafe.SliceData(used) {
			t.Fatal("a buffer with room for the header not used")
		}
		if h.Len() != p.Len() || h.BodyOffset() != p.BodyOffset() {
			t.Fatalf("%d entries at %d, decoded %d at %d", h.Len(), h.BodyOffset(), p.Len(), p.BodyOffset())
		}
		for i := range p.Len() {
			want := p.At(i)
			if got, ok := h.Entry(want.Name); !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("Entry(%q) = %+v, %v; decoded %+v", want.Name, got, ok, want)
			}
		}
		// Whatever is asked, the lookup stays within the header.
		for _, name := range []string{"", "a", "passage/GEN.1.1/html", string(head[min(len(head), 9):min(len(head), 20)])} {
			if _, ok := h.Entry(name); ok != (p.Index(name) >= 0) {
				t.Fatalf("Entry(%q): %v, decoded %v", name, ok, p.Index(name) >= 0)
			}
		}
	})
}

// BenchmarkNewHeader: a chapter pack's header checked and held as read,
// then one entry looked up (what a miss does), against decoding it.
func BenchmarkNewHeader(b *testing.B) {
	data := chapterPack(b)
	n, _ := packHeaderLen(data)
	head := data[:packHeaderPrefix+int(n)]
	size := int64(len(data))
	b.Run("held", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h, err := NewHeader(nil, head, size)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := h.Entry("passage/JHN.3.17/html"); !ok {
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
			if p.Entry("passage/JHN.3.17/html") == nil {
				b.Fatal("no entry")
			}
		}
	})
	b.Run("lookup", func(b *testing.B) {
		h, err := NewHeader(nil, head, size)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if h.Index("passage/JHN.3.17/html") < 0 {
				b.Fatal("no entry")
			}
		}
	})
}
