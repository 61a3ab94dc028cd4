package publish

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// testPack is a pack of a few entries: codings folded, a raw entry, a
// name longer than the edge's slots.
func testPack() []byte {
	w := NewPackWriter()
	long := []byte(`{"content":"` + strings.Repeat("In the beginning, God created the heavens and the earth. ", 8) + `"}`)
	w.Add("passage/GEN.1.1-GEN.1.3/html-with-a-long-name", JSON, long)
	w.Add("a", JSON, []byte(`{}`))
	w.Add("b", "text/html; charset=utf-8", long)
	w.AddRaw(NameSegments, JSON, long)
	return w.Bytes(NewEncoder())
}

// jsonPack rewrites a pack in the first format (a JSON header).
func jsonPack(t testing.TB, data []byte) []byte {
	p, err := DecodePack(data)
	if err != nil {
		t.Fatal(err)
	}
	h, err := json.Marshal(entries(p))
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(packMagicJSON), binary.LittleEndian.AppendUint32(nil, uint32(len(h)))...)
	return append(append(out, h...), p.bodies...)
}

// TestPackFormats: a pack in the first format (JSON header) reads as the
// same entries and bodies as in the binary one.
func TestPackFormats(t *testing.T) {
	data := testPack()
	bin, err := DecodePack(data)
	if err != nil {
		t.Fatal(err)
	}
	js, err := DecodePack(jsonPack(t, data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(entries(bin), entries(js)) {
		t.Fatalf("binary header %+v\nJSON header %+v", entries(bin), entries(js))
	}
	for i := range bin.Len() {
		e := bin.At(i)
		for k := range e.Reps {
			if string(bin.Body(&e.Reps[k])) != string(js.Body(&js.At(i).Reps[k])) {
				t.Errorf("%s rep %d: bodies differ", e.Name, k)
			}
		}
	}
	if got, want := len(data)-len(bin.bodies), len(jsonPack(t, data))-len(js.bodies); got >= want {
		t.Errorf("binary header of %d bytes, JSON one %d", got, want)
	}
	// Name and Index do not allocate: the edge's lookups use them.
	if n := testing.AllocsPerRun(100, func() {
		if bin.Index(bin.Name(2)) != 2 {
			t.Fatal("Index(Name(2)) != 2")
		}
	}); n != 0 {
		t.Errorf("Name and Index: %v allocations", n)
	}
	if bin.Index("nothing") != -1 || bin.Entry("zz") != nil {
		t.Error("a missing entry found")
	}
}

// TestBinaryHeaderChecks: every malformed binary header is refused.
func TestBinaryHeaderChecks(t *testing.T) {
	u := func(vs ...uint64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.AppendUvarint(b, v)
		}
		return b
	}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	tag := make([]byte, etagHash)
	tables := cat(u(1, 1), []byte("t"), u(1, 0))                     // type "t"; coding identity
	entry := func(name string, typ, coding, off, ln uint64) []byte { // one rep
		return cat(u(uint64(len(name))), []byte(name), u(typ), tag, u(1, coding, off, ln))
	}
	good := cat(tables, u(2), entry("a", 0, 0, 0, 1), entry("b", 0, 0, 1, 1))
	if p, err := decodeHeader(good); err != nil || p.Len() != 2 || p.Name(1) != "b" {
		t.Fatalf("a good header: %v", err)
	}
	for _, c := range []struct {
		name string
		h    []byte
	}{
		{"empty", nil},
		{"truncated", good[:len(good)-1]},
		{"trailing bytes", cat(good, []byte{0})},
		{"out of order", cat(tables, u(2), entry("b", 0, 0, 0, 1), entry("a", 0, 0, 1, 1))},
		{"twice", cat(tables, u(2), entry("a", 0, 0, 0, 1), entry("a", 0, 0, 1, 1))},
		{"type out of table", cat(tables, u(1), entry("a", 1, 0, 0, 1))},
		{"coding out of table", cat(tables, u(1), entry("a", 0, 1, 0, 1))},
		{"no type table", cat(u(0, 1, 0), u(1), entry("a", 0, 0, 0, 1))},
		{"coding too long", cat(u(1, 1), []byte("t"), u(1, maxCoding+1), []byte(strings.Repeat("x", maxCoding+1)), u(0))},
		{"more entries than bytes", cat(tables, u(1<<40))},
		{"offset past 4 GiB", cat(tables, u(1), entry("a", 0, 0, 1<<32, 1))},
		{"bad varint", cat(tables, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})},
		{"name past the end", cat(tables, u(1, 100), []byte("a"))},
	} {
		if _, err := decodeHeader(c.h); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	// Bounds against the pack's size are checked with the prefix.
	pk := cat([]byte(packMagic), binary.LittleEndian.AppendUint32(nil, uint32(len(good))), good, []byte{'x'})
	if _, err := DecodePack(pk); err == nil {
		t.Error("an entry past the bodies accepted")
	}
	if _, err := DecodePack(append(pk, 'y')); err != nil {
		t.Errorf("a pack of two one-byte bodies: %v", err)
	}
}

// FuzzDecodePack: any bytes decode to an error or to a pack whose every
// entry and body can be read, and a binary header written back from it
// reads as the same entries.
func FuzzDecodePack(f *testing.F) {
	data := testPack()
	f.Add(data)
	f.Add(jsonPack(f, data))
	f.Add(data[:packHeaderPrefix+10])
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePack(data)
		if err != nil {
			return
		}
		for i := range p.Len() {
			e := p.At(i)
			if p.Index(e.Name) != i {
				t.Fatalf("entry %d (%q) found at %d", i, e.Name, p.Index(e.Name))
			}
			for k := range e.Reps {
				_ = p.Body(&e.Reps[k])
				if len(e.Reps[k].ETag) > MaxETag {
					t.Fatalf("an ETag of %d bytes", len(e.Reps[k].ETag))
				}
			}
		}
		h := p.appendHeader(nil)
		q, err := decodeHeader(h)
		if err != nil {
			t.Fatalf("a header written back: %v", err)
		}
		if !reflect.DeepEqual(entries(p), entries(q)) {
			t.Fatalf("written back %+v, read %+v", entries(q), entries(p))
		}
	})
}

// chapterPack is a pack shaped like a chapter's (the catalogue's median:
// 140 entries, each verse in a few variants, identity, br and gzip), with
// short bodies: a header's cost does not depend on its bodies'.
func chapterPack(b testing.TB) []byte {
	w := NewPackWriter()
	for v := range 35 {
		for _, variant := range []string{"html", "html-h", "text", "text-h"} {
			body := []byte(strings.Repeat(fmt.Sprintf("verse %d of the chapter, as %s. ", v, variant), 4))
			w.Add(fmt.Sprintf("passage/JHN.3.%d/%s", v+1, variant), JSON, body)
		}
	}
	return w.Bytes(NewEncoder())
}

// BenchmarkDecodePackHeader: a chapter pack's header, binary and JSON.
func BenchmarkDecodePackHeader(b *testing.B) {
	bin := chapterPack(b)
	for _, c := range []struct {
		name string
		data []byte
	}{{"binary", bin}, {"json", jsonPack(b, bin)}} {
		b.Run(c.name, func(b *testing.B) {
			n, _ := packHeaderLen(c.data)
			b.ReportMetric(float64(n), "header-bytes")
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodePack(c.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGCDecodedHeaders: what a collection costs with 4,000 chapter
// headers live (a full pack cache's), kept as this Pack keeps them and as
// the decoded JSON entries were kept ([]Entry).
func BenchmarkGCDecodedHeaders(b *testing.B) {
	data := chapterPack(b)
	js := jsonPack(b, data)
	n, _ := packHeaderLen(js)
	const packs = 4000
	for _, c := range []struct {
		name string
		keep func() any
	}{
		{"pack", func() any {
			p, err := DecodePack(append([]byte(nil), data...))
			if err != nil {
				b.Fatal(err)
			}
			return p
		}},
		{"entries", func() any {
			var e []Entry
			if err := json.Unmarshal(js[packHeaderPrefix:packHeaderPrefix+int(n)], &e); err != nil {
				b.Fatal(err)
			}
			return e
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			live := make([]any, packs)
			for i := range live {
				live[i] = c.keep()
			}
			runtime.GC()
			b.ResetTimer()
			for b.Loop() {
				runtime.GC()
			}
			runtime.KeepAlive(live)
		})
	}
}
