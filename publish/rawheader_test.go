package publish

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// found is what an edge does with a header to read entry name: Find,
// read its spans from the pack's bytes data, Open. Nil when the pack has
// no such entry.
func found(h *Header, data []byte, name string) (*Pack, error) {
	pl, ok := h.Find(name)
	if !ok {
		return nil, nil
	}
	var b []byte
	for _, s := range pl.Spans {
		b = append(b, data[h.BodyOffset()+s.Off:h.BodyOffset()+s.End]...)
	}
	pk, err := h.Open(&pl, name, b)
	if errors.Is(err, ErrNoEntry) {
		return nil, nil
	}
	return pk, err
}

// sameEntry says whether q, a pack of one entry, holds entry i of p: its
// name, type, codings, entity tags and bodies.
func sameEntry(p *Pack, i int, q *Pack) bool {
	if q == nil || q.Len() != 1 {
		return false
	}
	a, b := p.At(i), q.At(0)
	if a.Name != b.Name || a.Type != b.Type || len(a.Reps) != len(b.Reps) {
		return false
	}
	for k := range a.Reps {
		x, y := a.Reps[k], b.Reps[k]
		if x.Encoding != y.Encoding || x.ETag != y.ETag || string(p.Body(&x)) != string(q.Body(&y)) {
			return false
		}
	}
	return true
}

// headerPack rewrites a pack in the second format (BPK2: a binary header
// describing every entry).
func headerPack(t testing.TB, data []byte) []byte {
	p, err := DecodePack(data)
	if err != nil {
		t.Fatal(err)
	}
	h := p.appendHeader(nil)
	out := append([]byte(packMagic), binary.LittleEndian.AppendUint32(nil, uint32(len(h)))...)
	return append(append(out, h...), p.bodies...)
}

// TestHeader: a header held as read (of every format) finds every entry
// as the decoded pack has it, finds no other, and takes less memory.
func TestHeader(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"records", testPack()}, {"binary", headerPack(t, testPack())}, {"json", jsonPack(t, testPack())},
		{"chapter", chapterPack(t)}, {"chapter BPK2", headerPack(t, chapterPack(t))},
	} {
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
				name := p.Name(i)
				if one, err := found(&h, c.data, name); err != nil || !sameEntry(p, i, one) {
					t.Errorf("entry %q found as %v, %v", name, one, err)
				}
				// Names around this one are not in the pack.
				for _, other := range []string{name + "\x00", name[:len(name)-1]} {
					if p.Index(other) < 0 {
						if one, err := found(&h, c.data, other); one != nil || err != nil {
							t.Errorf("entry %q found: %v", other, err)
						}
					}
				}
			}
			for _, missing := range []string{"", "\x00", "zzzz", "passage"} {
				if one, err := found(&h, c.data, missing); one != nil || err != nil {
					t.Errorf("entry %q found: %v", missing, err)
				}
			}
			round := func(n int64) int64 { return n }
			if strings.HasPrefix(c.name, "chapter") && 2*h.Size(round) > p.HeaderSize(round)+int64(len(c.data)-len(p.bodies)) {
				t.Errorf("held as read %d bytes, decoded %d", h.Size(round), p.HeaderSize(round))
			}
			if c.name == "chapter" && h.Size(round) > int64(recordRow*h.Len()+64) {
				t.Errorf("a BPK3 header of %d entries held in %d bytes", h.Len(), h.Size(round))
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
	if _, err := NewHeader(nil, []byte("BPK9\x00\x00\x00\x00"), 8); err == nil {
		t.Error("an unknown format accepted")
	}
}

// FuzzHeader: any bytes, as a pack's first bytes, make a header held as
// read exactly when the decoder makes one of them, and the two find the
// same entries. Seeded with packs shaped like the catalogue's and with
// real chapter headers (testdata/fuzz/FuzzHeader).
func FuzzHeader(f *testing.F) {
	for _, data := range [][]byte{headerPack(f, testPack()), jsonPack(f, testPack()), headerPack(f, chapterPack(f))} {
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
		if packMagicOf(head) == packMagicRecords {
			return // its entries are read with the bodies: FuzzRecords
		}
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
			if got, ok := h.entry(want.Name); !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("Entry(%q) = %+v, %v; decoded %+v", want.Name, got, ok, want)
			}
		}
		// Whatever is asked, the lookup stays within the header.
		for _, name := range []string{"", "a", "passage/GEN.1.1/html", string(head[min(len(head), 9):min(len(head), 20)])} {
			if _, ok := h.entry(name); ok != (p.Index(name) >= 0) {
				t.Fatalf("Entry(%q): %v, decoded %v", name, ok, p.Index(name) >= 0)
			}
		}
	})
}

// BenchmarkNewHeader: a chapter pack's header checked and held as read,
// then one entry found and read from the pack (what a miss does), in
// either format; and a lookup in a header held.
func BenchmarkNewHeader(b *testing.B) {
	const name = "passage/JHN.3.17/html"
	for _, c := range []struct {
		format string
		data   []byte
	}{{"BPK3", chapterPack(b)}, {"BPK2", headerPack(b, chapterPack(b))}} {
		data := c.data
		n, _ := packHeaderLen(data)
		head := data[:packHeaderPrefix+int(n)]
		size := int64(len(data))
		b.Run(c.format+"/held", func(b *testing.B) {
			b.ReportMetric(float64(n), "header-bytes")
			b.ReportAllocs()
			for b.Loop() {
				h, err := NewHeader(nil, head, size)
				if err != nil {
					b.Fatal(err)
				}
				if one, err := found(&h, data, name); one == nil || err != nil {
					b.Fatal("no entry", err)
				}
			}
		})
		b.Run(c.format+"/lookup", func(b *testing.B) {
			h, err := NewHeader(nil, head, size)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := h.Find(name); !ok {
					b.Fatal("no entry")
				}
			}
		})
	}
}
