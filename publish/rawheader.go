package publish

import (
	"encoding/binary"
	"fmt"
)

// Header is a pack's header as read, for ranged reads of the pack's
// entries: checked whole once (NewHeader), then each entry asked for is
// found and read in place, the rest never decoded. An edge holds many of
// them (one per pack it reads by ranges), so it is one buffer without
// pointers: the binary header's bytes, then where each entry starts in
// them (a little-endian uint32 each, in name order, for a binary search).
// It takes the header's own size and 4 bytes an entry, a third of a
// decoded Pack's header, and the collector sees one object.
type Header struct {
	buf       []byte
	hlen      uint32 // the header is buf[:hlen]; the entries' starts follow
	n         uint32 // entries
	codingsAt uint32 // where the codings table starts
	bodyOff   int64  // where the bodies start within the pack
}

// NewHeader checks the header of a pack of size bytes, from the pack's
// first bytes (prefix and header; more is ignored), and returns it. It
// does not keep head. A header of the first format (JSON) is held in the
// binary form. It is held in buf when buf has room for it (a buffer a
// header no longer used gave back, Buffer), else in a new one.
func NewHeader(buf, head []byte, size int64) (Header, error) {
	n, err := packHeaderLen(head)
	if err != nil {
		return Header{}, err
	}
	end := int64(packHeaderPrefix) + n
	if end > size || end > int64(len(head)) {
		return Header{}, fmt.Errorf("publish: pack header of %d bytes in %d read of a pack of %d", n, len(head), size)
	}
	h := head[packHeaderPrefix:end:end]
	if string(head[:len(packMagic)]) == packMagicJSON {
		p, err := decodeJSONHeader(h)
		if err != nil {
			return Header{}, err
		}
		h = p.appendHeader(nil)
	}
	var s headerScan
	s.init(h)
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

// Index returns the index of the named entry, -1 when there is none.
func (x *Header) Index(name string) int {
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

// Entry returns the named entry, false when the pack has none: the same
// Entry a decoded Pack gives, its offsets from the start of the bodies.
func (x *Header) Entry(name string) (Entry, bool) {
	i := x.Index(name)
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
