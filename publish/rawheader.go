package publish

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"sync"
	"unsafe"
)

// Header is a pack's header for ranged reads of the pack's entries, in one
// buffer without pointers (an edge holds many, and the collector sees one
// object each), in one of two forms:
//
//   - As read (NewHeader): the binary header's bytes, checked only as far
//     as a lookup reads them. A lookup walks the entries in name order up
//     to the one asked for, checking each. An edge reads most headers for
//     one lookup and lets them go, so checking all of a header it will not
//     read again cost as much as reading it.
//   - Indexed (Index): checked whole once, then held in half the bytes,
//     found in from where a name's hash says among the hashes (they are
//     spread evenly) rather than by a binary search. The names are not
//     kept: each is the top 48 bits of a 64-bit hash, seeded anew in each
//     process (nameSeed), so that no name can be chosen to share the hash
//     of another. A name not in the pack is found with the chance of one in
//     2^48 for each name of the pack (about 5e-13 for a chapter's 150),
//     and a pack two of whose names share a hash is not indexed. What an
//     entry is after its name (its type, tag and codings) is kept once
//     for the entries in a row that share it (a passage's variants share
//     their bodies). Over the scale benchmark's catalogue (67,000
//     packs) a header indexed takes 3.5 KiB at the mean, where one
//     checked and held with a table of where its entries start took 7.4
//     KiB: the edge's share of memory for headers holds twice as many.
//
// Buffer layout, indexed: the header's two tables (types, codings), then
// the entries' records (what follows a name in the header), then a row
// for each name, 8 little-endian bytes in ascending order: the name's
// hash above where its record starts (rowAt).
type Header struct {
	buf       []byte
	n         uint32 // entries
	codingsAt uint32 // where the codings table starts
	// hashesAt is where the rows start when indexed; 0 when as read
	// (the header is then all of buf).
	hashesAt uint32
	bodyOff  int64 // where the bodies start within the pack
	bodies   int64 // their length
}

// nameSeed seeds the hashes of an indexed header's names.
var nameSeed = maphash.MakeSeed()

// hashName is a name's hash in an indexed header (a variable for a test
// that makes two names share one).
var hashName = func(name []byte) uint64 { return maphash.Bytes(nameSeed, name) }

// ErrNoIndex is Index's error for a sound header it cannot index (two
// of its names share a hash, or its records are too long for a row to
// say where one starts): it stays as read.
var ErrNoIndex = errors.New("publish: pack header cannot be indexed")

// rowAt is the bits of an indexed header's row that say where its record
// starts; the others are its name's hash.
const rowAt = 1<<16 - 1

// NewHeader returns the header of a pack of size bytes, from the pack's
// first bytes (prefix and header; more is ignored), as read: its prefix
// checked and its bytes copied, its entries checked when a lookup reads
// them. It does not keep head. A header of the first format (JSON) is
// checked whole and held in the binary form. It is held in buf when buf
// has room for it (a buffer a header no longer used gave back, Buffer),
// else in a new one.
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
	if s.r.err != nil {
		return Header{}, s.r.err
	}
	if cap(buf) < len(h) {
		buf = make([]byte, 0, len(h))
	}
	buf = append(buf[:0], h...)
	return Header{buf: buf, n: uint32(s.n), codingsAt: uint32(s.codingsAt), bodyOff: end, bodies: size - end}, nil
}

// Index checks all of x, a header as read, and returns it indexed, in a
// buffer of its own size. Its error is ErrNoIndex when x is sound but
// cannot be indexed; x is then still sound, as read.
func (x *Header) Index() (Header, error) {
	h := x.buf
	var s headerScan
	s.init(h)
	// A row is a name's hash (its top 48 bits) above where its record
	// starts (16 bits): rows sort by hash.
	sc, _ := indexScratch.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	// The tables and records fit in len(h).
	rows, buf := sc.rows[:0], append(slices.Grow(sc.buf[:0], len(h)), h[:s.countAt]...)
	defer func() {
		sc.rows, sc.buf = rows[:0], buf[:0]
		indexScratch.Put(sc)
	}()
	last := -1 // where the record last kept starts
	for s.next() {
		if err := s.inBounds(x.bodies); err != nil {
			return Header{}, err
		}
		rec := h[s.e.name+uint32(s.e.nameN) : s.r.pos]
		if last < 0 || !bytes.Equal(buf[last:], rec) {
			last = len(buf)
			buf = append(buf, rec...)
		}
		rows = append(rows, hashName(h[s.e.name:s.e.name+uint32(s.e.nameN)])&^rowAt|uint64(last))
	}
	if err := s.err(); err != nil {
		return Header{}, err
	}
	if len(buf) > rowAt {
		return Header{}, fmt.Errorf("%w: %d bytes of records", ErrNoIndex, len(buf))
	}
	slices.Sort(rows)
	for i := 1; i < len(rows); i++ {
		if rows[i]&^rowAt == rows[i-1]&^rowAt {
			return Header{}, fmt.Errorf("%w: two names share a hash", ErrNoIndex)
		}
	}
	hashesAt := len(buf)
	// Exactly what it holds: the buffer is held as long as the header.
	out := append(make([]byte, 0, len(buf)+8*len(rows)), buf...)
	for _, r := range rows {
		out = binary.LittleEndian.AppendUint64(out, r)
	}
	return Header{buf: out, n: uint32(len(rows)), codingsAt: x.codingsAt, hashesAt: uint32(hashesAt), bodyOff: x.bodyOff, bodies: x.bodies}, nil
}

// scratch is Index's working memory, kept between calls (indexScratch).
type scratch struct {
	rows []uint64
	buf  []byte
}

var indexScratch sync.Pool // *scratch

// inBounds checks that the entry just read lies within bodies bytes.
func (s *headerScan) inBounds(bodies int64) error {
	for _, r := range s.reps[:s.e.nReps] {
		if int64(r.off)+int64(r.len) > bodies {
			return fmt.Errorf("publish: pack entry %s out of bounds", s.r.b[s.e.name:s.e.name+uint32(s.e.nameN)])
		}
	}
	return nil
}

// Buffer is the buffer x is held in, for another header (NewHeader,
// Index) once nothing reads x any more.
func (x *Header) Buffer() []byte { return x.buf[:0] }

// Size is the bytes the header holds on the heap besides its own struct,
// each allocation rounded by round.
func (x *Header) Size(round func(int64) int64) int64 { return round(int64(cap(x.buf))) }

// Len is how many entries the pack holds.
func (x *Header) Len() int { return int(x.n) }

// Indexed reports whether x is indexed (Index).
func (x *Header) Indexed() bool { return x.hashesAt != 0 }

// BodyOffset is where the bodies start within the pack, for ranged reads.
func (x *Header) BodyOffset() int64 { return x.bodyOff }

// Entry returns the named entry, false when the pack has none: the same
// Entry a decoded Pack gives, its offsets from the start of the bodies.
// The error is that of a header as read whose entries, up to the one
// asked for, are not sound.
func (x *Header) Entry(name string) (Entry, bool, error) {
	if x.hashesAt != 0 {
		return x.indexedEntry(name)
	}
	var s headerScan
	s.init(x.buf)
	for s.next() {
		switch nm := x.buf[s.e.name : s.e.name+uint32(s.e.nameN)]; {
		case string(nm) == name:
			if err := s.inBounds(x.bodies); err != nil {
				return Entry{}, false, err
			}
			return x.record(int(s.e.name)+int(s.e.nameN), name), true, nil
		case string(nm) > name:
			// Past where the name would be: the entries are in order.
			return Entry{}, false, nil
		}
	}
	return Entry{}, false, s.err()
}

// indexedEntry is Entry of an indexed header.
func (x *Header) indexedEntry(name string) (Entry, bool, error) {
	h := hashName(unsafe.Slice(unsafe.StringData(name), len(name))) &^ rowAt
	rows := x.buf[x.hashesAt : x.hashesAt+8*x.n]
	row := func(i int) uint64 { return binary.LittleEndian.Uint64(rows[8*i:]) }
	// The hashes are spread evenly (a keyed hash), so a name's row is
	// near where its hash says among n (h*n/2^64): the search starts
	// there and steps to the first row not below h, a line or two of the
	// rows where a binary search touched five (most headers looked in are
	// not in the processor's caches).
	n := int(x.n)
	if n == 0 {
		return Entry{}, false, nil
	}
	guess, _ := bits.Mul64(h, uint64(n))
	i := int(guess)
	if row(i) < h {
		for i++; i < n && row(i) < h; i++ {
		}
	} else {
		for i > 0 && row(i-1) >= h {
			i--
		}
	}
	if i == n {
		return Entry{}, false, nil
	}
	r := row(i)
	if r&^rowAt != h {
		return Entry{}, false, nil
	}
	return x.record(int(r&rowAt), name), true, nil
}

// uvarint reads a number of a checked record at *at, moving past it.
func (x *Header) uvarint(at *int) int {
	v, k := binary.Uvarint(x.buf[*at:])
	*at += k
	return int(v)
}

// record is the entry called name whose record (what follows its name in
// the header, checked) starts at at.
func (x *Header) record(at int, name string) Entry {
	h := x.buf
	e := Entry{Name: name, Type: typeName(tableString(h, 0, x.uvarint(&at)))}
	tag := (*[etagHash]byte)(h[at : at+etagHash])
	at += etagHash
	e.Reps = make([]Rep, x.uvarint(&at))
	// The codings' tags are made in one buffer and are one string, of
	// which each tag is a part: an entry read by a miss costs one
	// allocation for them, not one a coding.
	var tb [3 * MaxETag]byte
	var eb [3]int
	tags, ends := tb[:0], eb[:0]
	for k := range e.Reps {
		enc := codingName(tableString(h, int(x.codingsAt), x.uvarint(&at)))
		off := x.uvarint(&at)
		e.Reps[k] = Rep{Encoding: enc, Off: int64(off), Len: int64(x.uvarint(&at))}
		tags = appendETag(tags, tag, enc)
		ends = append(ends, len(tags))
	}
	all, start := string(tags), 0
	for k, end := range ends {
		e.Reps[k].ETag, start = all[start:end], end
	}
	return e
}

// typeName is the content type named c, without allocating for the one
// nearly every entry has.
func typeName(c []byte) string {
	if string(c) == JSON {
		return JSON
	}
	return string(c)
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
