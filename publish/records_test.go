package publish

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// collidingNames are two entry names with the same hash (nameHash).
func collidingNames(t testing.TB) (string, string) {
	seen := map[uint32]string{}
	for i := 0; ; i++ {
		name := fmt.Sprintf("verse/GEN.%d", i)
		if other, ok := seen[nameHash(name)]; ok {
			return other, name
		}
		seen[nameHash(name)] = name
		if i > 1<<22 {
			t.Fatal("no two names of the same hash")
		}
	}
}

// TestPackLayouts: a pack is written as BPK3, and as BPK2 when two of its
// names have the same hash; either reads as the entries written.
func TestPackLayouts(t *testing.T) {
	a, b := collidingNames(t)
	for _, c := range []struct {
		names  []string
		format string
	}{
		{[]string{"chapter", "verse/GEN.1.1", "verse/GEN.1.2"}, packMagicRecords},
		{[]string{"chapter", a, b}, packMagic},
	} {
		w := NewPackWriter()
		for _, name := range c.names {
			w.Add(name, JSON, []byte(`{"name":"`+strings.Repeat(name, 20)+`"}`))
		}
		data := w.Bytes(NewEncoder())
		if got := packMagicOf(data); got != c.format {
			t.Errorf("%q: written as %s, want %s", c.names, got, c.format)
		}
		p, err := DecodePack(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range c.names {
			var v struct{ Name string }
			if err := p.Decode(name, &v); err != nil || v.Name != strings.Repeat(name, 20) {
				t.Errorf("%q: %q, %v", name, v.Name, err)
			}
		}
	}
}

// TestRecordReach: a body met again within recordReach is stored once,
// and one met further back is stored again, so that a record stays
// short; either way every entry reads back whole through its record.
func TestRecordReach(t *testing.T) {
	body := func(seed, n int) []byte {
		b := make([]byte, n)
		x := uint32(seed*7919 + 1)
		for i := range b {
			x = x*1664525 + 1013904223
			b[i] = 'a' + byte(x>>27)
		}
		return b
	}
	same := body(0, 2000)
	near := NewPackWriter()
	near.AddRaw("a", JSON, same)
	near.AddRaw("b", JSON, same)
	far := NewPackWriter()
	far.AddRaw("a", JSON, same)
	far.AddRaw("m", JSON, body(1, recordReach+1000))
	far.AddRaw("z", JSON, same)
	for _, c := range []struct {
		name   string
		w      *PackWriter
		copies int
	}{{"near", near, 1}, {"far", far, 2}} {
		data := c.w.Bytes(NewEncoder())
		if got := bytes.Count(data, same); got != c.copies {
			t.Errorf("%s: %d copies of the body, want %d", c.name, got, c.copies)
		}
		p, err := DecodePack(data)
		if err != nil {
			t.Fatal(err)
		}
		h, err := NewHeader(nil, data, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.Len() {
			pl, _ := h.Find(p.Name(i))
			if pl.N > int64(len(same))+recordReach+1100 {
				t.Errorf("%s: %s's record of %d bytes", c.name, p.Name(i), pl.N)
			}
			if one, err := found(&h, data, p.Name(i)); err != nil || !sameEntry(p, i, one) {
				t.Errorf("%s: entry %s read as %v, %v", c.name, p.Name(i), one, err)
			}
		}
	}
}

// records rewrites the BPK3 pack data with its header changed by edit
// (which gets the header's bytes and where its rows start).
func records(t testing.TB, data []byte, edit func(h []byte, rows int) []byte) []byte {
	end, err := packHeaderEnd(data, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	h := append([]byte(nil), data[packHeaderPrefix:end]...)
	var s headerScan
	s.init(h, recordRow)
	h = edit(h, s.r.pos)
	out := append([]byte(packMagicRecords), binary.LittleEndian.AppendUint32(nil, uint32(len(h)))...)
	return append(append(out, h...), data[end:]...)
}

// TestRecordsChecks: a BPK3 pack whose rows or records are out of the
// format is refused, whole (DecodePack) or read by its header (NewHeader
// for the rows, Open for a record).
func TestRecordsChecks(t *testing.T) {
	data := testPack()
	if packMagicOf(data) != packMagicRecords {
		t.Fatal("the test pack is not BPK3")
	}
	end, _ := packHeaderEnd(data, int64(len(data)))
	row := func(h []byte, rows, i, field int) []byte { return h[rows+recordRow*i+4*field:] }
	set := func(i, field int, v uint32) func([]byte, int) []byte {
		return func(h []byte, rows int) []byte {
			binary.LittleEndian.PutUint32(row(h, rows, i, field), v)
			return h
		}
	}
	for _, c := range []struct {
		name string
		pack []byte
		rows bool // the rows are refused, not only a record
	}{
		{"rows swapped", records(t, data, func(h []byte, rows int) []byte {
			r0 := append([]byte(nil), row(h, rows, 0, 0)[:recordRow]...)
			copy(row(h, rows, 0, 0), row(h, rows, 1, 0)[:recordRow])
			copy(row(h, rows, 1, 0), r0)
			return h
		}), true},
		{"a row missing", records(t, data, func(h []byte, rows int) []byte { return h[:len(h)-recordRow] }), true},
		{"a row too many", records(t, data, func(h []byte, rows int) []byte { return append(h, make([]byte, recordRow)...) }), true},
		{"a record past the bodies", records(t, data, set(0, 2, uint32(len(data)-int(end))+1)), true},
		{"a record too short", records(t, data, set(0, 2, 3)), true},
		{"another hash", records(t, data, func(h []byte, rows int) []byte {
			binary.LittleEndian.PutUint32(row(h, rows, 0, 0), binary.LittleEndian.Uint32(row(h, rows, 0, 0))-1)
			return h
		}), false},
		{"a record cut short at its start", records(t, data, func(h []byte, rows int) []byte {
			off := binary.LittleEndian.Uint32(row(h, rows, 0, 1))
			ln := binary.LittleEndian.Uint32(row(h, rows, 0, 2))
			binary.LittleEndian.PutUint32(row(h, rows, 0, 1), off+1)
			binary.LittleEndian.PutUint32(row(h, rows, 0, 2), ln-1)
			return h
		}), false},
		{"a record cut short at its end", records(t, data, func(h []byte, rows int) []byte {
			binary.LittleEndian.PutUint32(row(h, rows, 0, 2), binary.LittleEndian.Uint32(row(h, rows, 0, 2))-1)
			return h
		}), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := DecodePack(c.pack); err == nil {
				t.Error("decoded")
			}
			h, err := NewHeader(nil, c.pack, int64(len(c.pack)))
			if (err != nil) != c.rows {
				t.Fatalf("rows refused: %v, want %v", err, c.rows)
			}
			if err != nil {
				return
			}
			p, _ := DecodePack(data)
			bad := 0
			for i := range p.Len() {
				if one, err := found(&h, c.pack, p.Name(i)); err != nil || !sameEntry(p, i, one) {
					bad++
				}
			}
			if bad == 0 {
				t.Error("every entry read")
			}
		})
	}
}

// FuzzRecords: any bytes decode as a whole pack exactly when their header
// is held and every entry of them read through it, and both read the same
// entries; a header held never reads outside what it was given.
func FuzzRecords(f *testing.F) {
	for _, data := range [][]byte{testPack(), chapterPack(f)} {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if packMagicOf(data) != packMagicRecords {
			return // FuzzDecodePack, FuzzHeader
		}
		p, perr := DecodePack(data)
		h, err := NewHeader(nil, data, int64(len(data)))
		if perr == nil && err != nil {
			t.Fatalf("decoded, but the header refused: %v", err)
		}
		if err != nil {
			return
		}
		if perr == nil {
			for i := range p.Len() {
				if one, err := found(&h, data, p.Name(i)); err != nil || !sameEntry(p, i, one) {
					t.Fatalf("entry %q read as %v, %v", p.Name(i), one, err)
				}
			}
		}
		// Whatever is asked, the lookup and the read stay within the pack;
		// a name the decoded pack has not is not found.
		for _, name := range []string{"", "a", "passage/GEN.1.1/html", string(data[min(len(data), 9):min(len(data), 20)])} {
			one, err := found(&h, data, name)
			if perr == nil && (one != nil) != (p.Index(name) >= 0) {
				t.Fatalf("entry %q: found %v (%v), decoded %v", name, one != nil, err, p.Index(name) >= 0)
			}
		}
	})
}
