package publish

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
)

// Header is a pack's header as read, for ranged reads of the pack's
// entries: checked once (NewHeader: a BPK2 header whole, a BPK3 header's
// rows; Open checks the record it reads), then each entry asked for is
// found (Find), read, and made into a pack of one entry (Open), the rest
// never decoded. An edge holds many of them (one per pack it reads by
// ranges), so it is one buffer without pointers: the header's bytes and,
// for a BPK1 or BPK2 pack, where each entry starts in them (a
// little-endian uint32 each, in name order, for a binary search). A BPK2
// chapter's takes the header's own size and 4 bytes an entry, a third of
// a decoded Pack's header; a BPK3 one's 12 bytes an entry, its rows, a
// fourth of that again. The collector sees one object.
type Header struct {
	buf       []byte
	hlen      uint32 // the header is buf[:hlen]; the entries' starts follow
	n         uint32 // entries
	codingsAt uint32 // where the codings table starts
	rowsAt    uint32 // where a BPK3 header's rows start, 0 for the other formats
	bodyOff   int64  // where the bodies start within the pack
}

// NewHeader checks the header of a pack of size bytes, from the pack's
// first bytes (prefix and header; more is ignored), and returns it. It
// does not keep head. A header of the first format (JSON) is held in the
// binary form. It is held in buf when buf has room for it (a buffer a
// header no longer used gave back, Buffer), else in a new one.
func NewHeader(buf, head []byte, size int64) (Header, error) {
	end, err := packHeaderEnd(head, size)
	if err != nil {
		return Header{}, err
	}
	h := head[packHeaderPrefix:end:end]
	switch packMagicOf(head) {
	case packMagicRecords:
		return newRecordsHeader(buf, h, end, size)
	case packMagicJSON:
		p, err := decodeJSONHeader(h)
		if err != nil {
			return Header{}, err
		}
		h = p.appendHeader(nil)
	}
	var s headerScan
	s.init(h, minDescribed)
	bodies := size - end
	if need := len(h) + 4*int(s.n); cap(buf) >= need {
		buf = buf[:need]
	} else {
		buf = make([]byte, need)
	}
	x := Header{buf: buf, hlen: uint32(len(h)), n: uint32(s.n), codingsAt: uint32(s.codingsAt), bodyOff: end}
	copy(x.buf, h)
	for i := 0; s.next(); i++ {
		for _, r := range s.reps[:s.e.nReps] {
			if int64(r.off)+int64(r.len) > bodies {
				return Header{}, fmt.Errorf("publish: pack entry %s out of bounds", h[s.e.name:s.e.name+uint32(s.e.nameN)])
			}
		}
		binary.LittleEndian.PutUint32(x.buf[len(h)+4*i:], uint32(s.at))
	}
	if err := s.err(); err != nil {
		return Header{}, err
	}
	return x, nil
}

// newRecordsHeader is NewHeader of a BPK3 header h, which ends at end in
// a pack of size bytes: its rows are checked, not the records they point
// at (Open checks the one it reads).
func newRecordsHeader(buf, h []byte, end, size int64) (Header, error) {
	var s headerScan
	s.init(h, recordRow)
	if s.r.err != nil {
		return Header{}, s.r.err
	}
	if err := recordRows(h, s.r.pos, s.n, size-end); err != nil {
		return Header{}, err
	}
	if cap(buf) >= len(h) {
		buf = buf[:len(h)]
	} else {
		buf = make([]byte, len(h))
	}
	copy(buf, h)
	return Header{buf: buf, hlen: uint32(len(h)), n: uint32(s.n), codingsAt: uint32(s.codingsAt), bodyOff: end, rowsAt: uint32(s.r.pos)}, nil
}

// Buffer is the buffer x is held in, for another header (NewHeader) once
// nothing reads x any more.
func (x *Header) Buffer() []byte { return x.buf[:0] }

// Size is the bytes the header holds on the heap besides its own struct,
// each allocation rounded by round.
func (x *Header) Size(round func(int64) int64) int64 { return round(int64(cap(x.buf))) }

// Len is how many entries the pack holds.
func (x *Header) Len() int { return int(x.n) }

// BodyOffset is where the bodies start within the pack, for ranged reads.
func (x *Header) BodyOffset() int64 { return x.bodyOff }

// entryAt is where the i-th entry starts in the header.
func (x *Header) entryAt(i int) int {
	return int(binary.LittleEndian.Uint32(x.buf[int(x.hlen)+4*i:]))
}

// uvarint reads a number of the checked header at *at, moving past it.
func (x *Header) uvarint(at *int) int {
	v, k := binary.Uvarint(x.buf[*at:x.hlen])
	*at += k
	return int(v)
}

// name is the name of the entry starting at at, without copying, and
// where the entry goes on after it.
func (x *Header) name(at int) ([]byte, int) {
	l := x.uvarint(&at)
	return x.buf[at : at+l], at + l
}

// index returns the index of the named entry of a BPK1 or BPK2 header,
// -1 when there is none.
func (x *Header) index(name string) int {
	lo, hi := 0, int(x.n)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if nm, _ := x.name(x.entryAt(m)); string(nm) < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < int(x.n) {
		if nm, _ := x.name(x.entryAt(lo)); string(nm) == name {
			return lo
		}
	}
	return -1
}

// entry returns the named entry of a BPK1 or BPK2 header, false when the
// pack has none: the same Entry a decoded Pack gives, its offsets from
// the start of the bodies.
func (x *Header) entry(name string) (Entry, bool) {
	i := x.index(name)
	if i < 0 {
		return Entry{}, false
	}
	nm, at := x.name(x.entryAt(i))
	h := x.buf[:x.hlen]
	e := Entry{Name: string(nm), Type: string(tableString(h, 0, x.uvarint(&at)))}
	tag := (*[etagHash]byte)(h[at : at+etagHash])
	at += etagHash
	e.Reps = make([]Rep, x.uvarint(&at))
	for k := range e.Reps {
		enc := codingName(tableString(h, int(x.codingsAt), x.uvarint(&at)))
		off := x.uvarint(&at)
		e.Reps[k] = Rep{Encoding: enc, Off: int64(off), Len: int64(x.uvarint(&at)), ETag: etagOf(tag, enc)}
	}
	return e, true
}

// Span is a range of a pack's bodies: [Off, End) from their start.
type Span struct{ Off, End int64 }

// Place is where an entry's bytes lie in a pack's bodies (Header.Find):
// the ranges to read, in order, N bytes in all.
type Place struct {
	Spans []Span
	N     int64
	entry Entry // a BPK1 or BPK2 pack's entry, known from its header
}

// mergeGap: codings of one entry of a BPK2 pack are stored next to each
// other, but identical bodies are stored once and may sit elsewhere.
// Ranges less than this apart are read together.
const mergeGap = 4 << 10

// Find returns where the named entry's bytes lie, false when the pack has
// no such entry. In a BPK3 pack that is its record, which may turn out to
// be another entry's (Open says so): only the name's hash was compared.
func (x *Header) Find(name string) (Place, bool) {
	if x.rowsAt != 0 {
		hash := nameHash(name)
		h := x.buf[:x.hlen]
		i := sort.Search(int(x.n), func(i int) bool {
			r, _, _ := recordRowAt(h, int(x.rowsAt), i)
			return r >= hash
		})
		if i == int(x.n) {
			return Place{}, false
		}
		r, off, ln := recordRowAt(h, int(x.rowsAt), i)
		if r != hash {
			return Place{}, false
		}
		return Place{Spans: []Span{{int64(off), int64(off) + int64(ln)}}, N: int64(ln)}, true
	}
	e, ok := x.entry(name)
	if !ok {
		return Place{}, false
	}
	pl := Place{entry: e}
	spans := make([]Span, 0, len(e.Reps))
	for _, r := range e.Reps {
		spans = append(spans, Span{r.Off, r.Off + r.Len})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].Off < spans[j].Off })
	for _, s := range spans {
		if k := len(pl.Spans) - 1; k >= 0 && s.Off <= pl.Spans[k].End+mergeGap {
			pl.Spans[k].End = max(pl.Spans[k].End, s.End)
			continue
		}
		pl.Spans = append(pl.Spans, s)
	}
	for _, s := range pl.Spans {
		pl.N += s.End - s.Off
	}
	return pl, true
}

// Open returns the pack of the one entry name found at pl, from b, the
// bytes of pl's spans read one after another: it reads like a whole pack
// of that entry, its bodies in b. ErrNoEntry when pl turns out to hold
// another entry (the pack has none of this name).
func (x *Header) Open(pl *Place, name string, b []byte) (*Pack, error) {
	if int64(len(b)) != pl.N {
		return nil, fmt.Errorf("publish: %d bytes read of an entry's %d", len(b), pl.N)
	}
	if x.rowsAt == 0 {
		e := &pl.entry
		offs := make([]int64, len(e.Reps))
		for i, r := range e.Reps {
			at := int64(0)
			for _, s := range pl.Spans {
				if s.Off <= r.Off && r.Off+r.Len <= s.End {
					offs[i] = at + r.Off - s.Off
					break
				}
				at += s.End - s.Off
			}
		}
		return WithBodies(e, b, offs)
	}
	h := x.buf[:x.hlen]
	nTypes, _ := binary.Uvarint(h)
	nCodings, _ := binary.Uvarint(h[x.codingsAt:])
	s := headerScan{nTypes: int(nTypes), nCodings: int(nCodings)}
	off := pl.Spans[0].Off
	if _, err := s.record(b, uint32(off)); err != nil {
		return nil, err
	}
	nm := b[s.e.name : s.e.name+uint32(s.e.nameN)]
	if string(nm) != name {
		return nil, fmt.Errorf("pack entry %q: %w", name, ErrNoEntry)
	}
	e := Entry{Name: name, Type: string(tableString(h, 0, int(s.e.typ))), Reps: make([]Rep, s.e.nReps)}
	offs := make([]int64, s.e.nReps)
	for k, r := range s.reps[:s.e.nReps] {
		enc := codingName(tableString(h, int(x.codingsAt), int(r.coding)))
		e.Reps[k] = Rep{Encoding: enc, Off: int64(r.off), Len: int64(r.len), ETag: etagOf(&s.e.tag, enc)}
		offs[k] = int64(r.off) - off
	}
	return WithBodies(&e, b, offs)
}

// ReadEntry reads the named entry of pack key from s by ranges (Find,
// then Open), as a pack of that one entry; ErrNoEntry when it has none.
func (x *Header) ReadEntry(ctx context.Context, s Store, key, name string) (*Pack, error) {
	pl, ok := x.Find(name)
	if !ok {
		return nil, fmt.Errorf("pack entry %q: %w", name, ErrNoEntry)
	}
	b := make([]byte, 0, pl.N)
	for _, sp := range pl.Spans {
		r, err := s.GetRange(ctx, key, x.bodyOff+sp.Off, sp.End-sp.Off)
		if err != nil {
			return nil, err
		}
		b = append(b, r...)
	}
	return x.Open(&pl, name, b)
}

// codingName is the coding named c, without allocating for the codings
// a build writes.
func codingName(c []byte) string {
	switch string(c) {
	case Identity:
		return Identity
	case Brotli:
		return Brotli
	case Gzip:
		return Gzip
	}
	return string(c)
}
