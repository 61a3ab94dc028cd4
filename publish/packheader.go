package publish

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// The binary pack header (format "BPK2"). Reading it is the first thing an
// edge does with every pack it loads, from a store it does not control, so
// it is a plain sequence of unsigned varints and bytes that decodes
// without reflection and allocates a few slices, whatever the pack holds:
//
//	types    count, then each: length, bytes      (Content-Types)
//	codings  count, then each: length, bytes      (content codings, "" identity)
//	entries  count, then each:
//	         name length, name bytes               (names strictly increasing)
//	         type index
//	         12 bytes: the hash the entry's entity tags are made of (ETag)
//	         reps count, then each: coding index, offset, length
//
// Counts, lengths and indexes are uvarints (an entry's of at most five
// bytes each, as binary.AppendUvarint writes them); offsets are from the
// start of the bodies. A count or length the header's own size cannot
// hold, an index out of its table, a name out of order, an offset or length
// past 4 GiB or past the pack, and bytes after the last entry are refused.
//
// The JSON header of format "BPK1" is read into the same form: each
// representation's ETag must be the one ETag makes of some hash for its
// coding, which every build writes.

// etagHash is how many bytes of a body's SHA-256 its entity tags carry.
const etagHash = 12

// maxCoding is the longest content coding a pack may name: the entity tag
// made with it must fit MaxETag.
const maxCoding = MaxETag - 3 - 2*etagHash

// errHeader is the error of a malformed binary header.
var errHeader = errors.New("publish: pack header malformed")

// headerReader reads a binary header, remembering the first error.
type headerReader struct {
	b   []byte
	pos int
	err error
}

func (r *headerReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at byte %d", errHeader, what, r.pos)
	}
}

// uint reads a uvarint no larger than limit.
func (r *headerReader) uint(limit uint64, what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 {
		r.fail(what + ": bad number")
		return 0
	}
	if v > limit {
		r.fail(fmt.Sprintf("%s: %d (at most %d)", what, v, limit))
		return 0
	}
	r.pos += n
	return v
}

// bytes reads n bytes, returning their offset.
func (r *headerReader) bytes(n uint64, what string) int {
	if r.err != nil {
		return 0
	}
	if n > uint64(len(r.b)-r.pos) {
		r.fail(what + ": past the header's end")
		return 0
	}
	at := r.pos
	r.pos += int(n)
	return at
}

// table checks a table of at most 256 strings of at most maxLen bytes,
// returning how many it holds.
func (r *headerReader) table(maxLen uint64, what string) int {
	n := r.uint(math.MaxUint8+1, what)
	for range n {
		r.bytes(r.uint(maxLen, what), what)
		if r.err != nil {
			return 0
		}
	}
	return int(n)
}

// tableString is the i-th string of the checked table at h[at:], without
// copying.
func tableString(h []byte, at, i int) []byte {
	_, k := binary.Uvarint(h[at:])
	at += k
	for ; ; i-- {
		l, k := binary.Uvarint(h[at:])
		at += k
		if i == 0 {
			return h[at : at+int(l)]
		}
		at += int(l)
	}
}

// tableStrings copies the n strings of the checked table at h[at:].
func tableStrings(h []byte, at, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(tableString(h, at, i))
	}
	return out
}

// headerScan walks a binary header once, checking all of it (the format's
// rules above): init reads the tables and the entry count, each next one
// entry (into e and reps), and err says whether the header was sound once
// next has returned false. Both decoded forms (Pack, Header) are made by
// it, so that they refuse the same headers.
type headerScan struct {
	r                headerReader
	nTypes, nCodings int
	codingsAt        int    // where the codings table starts
	countAt          int    // where the entries' count starts (the tables end)
	n, left          uint64 // entries, and how many are left to read
	at               int    // where the entry next read starts
	prev             []byte // the name of the entry read before
	e                entryRec
	reps             [math.MaxUint8]repRec // e's, reps[:e.nReps]
}

func (s *headerScan) init(h []byte) {
	s.r = headerReader{b: h}
	s.nTypes = s.r.table(math.MaxUint8, "content types")
	s.codingsAt = s.r.pos
	s.nCodings = s.r.table(maxCoding, "content codings")
	s.countAt = s.r.pos
	// An entry takes 15 bytes at least: what the header can hold bounds
	// what is allocated for its entries before they are read.
	s.n = s.r.uint(uint64(len(h))/15, "entries")
	s.left = s.n
}

// next reads the next entry; false at the end of the entries or at the
// first error. An edge reads a header for nearly every pack it misses, and
// a chapter's holds about 1,800 numbers: they are read in line
// (uvarint5), and a fault's message is made only once one is found.
func (s *headerScan) next() bool {
	r := &s.r
	if r.err != nil || s.left == 0 {
		return false
	}
	s.left--
	s.at = r.pos
	b, e := r.b, &s.e
	l, p := uvarint5(b, r.pos)
	if p < 0 || l > math.MaxUint16 || l > uint64(len(b)-p) {
		return s.fault("name")
	}
	e.name, e.nameN = uint32(p), uint16(l)
	p += int(l)
	t, p := uvarint5(b, p)
	if p < 0 || t >= uint64(s.nTypes) {
		return s.fault("type")
	}
	e.typ = uint8(t)
	if len(b)-p < etagHash {
		return s.fault("entity tag")
	}
	copy(e.tag[:], b[p:])
	p += etagHash
	n, p := uvarint5(b, p)
	if p < 0 || n > math.MaxUint8 {
		return s.fault("representations")
	}
	e.nReps = uint8(n)
	for k := range n {
		var c, off, ln uint64
		if c, p = uvarint5(b, p); p < 0 || c >= uint64(s.nCodings) {
			return s.fault("coding")
		}
		if off, p = uvarint5(b, p); p < 0 || off > math.MaxUint32 {
			return s.fault("offset")
		}
		if ln, p = uvarint5(b, p); p < 0 || ln > math.MaxUint32 {
			return s.fault("length")
		}
		s.reps[k] = repRec{off: uint32(off), len: uint32(ln), coding: uint8(c)}
	}
	r.pos = p
	name := b[e.name : e.name+uint32(e.nameN)]
	if s.left+1 < s.n && string(s.prev) >= string(name) {
		r.err = fmt.Errorf("%w: entry %q after %q (names sorted, each once)", errHeader, name, s.prev)
		return false
	}
	s.prev = name
	return true
}

// fault ends the scan at the entry being read, whose field what is out of
// the format: a number that does not parse, is past its limit (a type or
// coding past its table) or runs past the header's end.
func (s *headerScan) fault(what string) bool {
	s.r.fail(what + " out of bounds or malformed in the entry")
	return false
}

// uvarint5 reads a uvarint of at most five bytes at b[p:] (a build writes
// every number of a header so: the largest is an offset, below 4 GiB),
// returning it and where the next begins; p is -1 when there is none such.
func uvarint5(b []byte, p int) (uint64, int) {
	var v uint64
	for shift := 0; shift < 35 && p < len(b); shift += 7 {
		c := b[p]
		p++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, p
		}
	}
	return 0, -1
}

// err is the header's first fault, once next has returned false.
func (s *headerScan) err() error {
	r := &s.r
	if r.err == nil && r.pos != len(r.b) {
		r.err = fmt.Errorf("%w: %d bytes after the last entry", errHeader, len(r.b)-r.pos)
	}
	return r.err
}

// decodeHeader decodes a binary header. The pack's names stay in h.
func decodeHeader(h []byte) (*Pack, error) {
	var s headerScan
	s.init(h)
	p := &Pack{strs: h}
	if s.r.err == nil {
		p.types = tableStrings(h, 0, s.nTypes)
		p.codings = tableStrings(h, s.codingsAt, s.nCodings)
	}
	p.ents = make([]entryRec, 0, s.n)
	// A rep takes 3 bytes at least.
	p.reps = make([]repRec, 0, min(3*s.n, uint64(len(h))/3))
	for s.next() {
		e := s.e
		e.rep = uint32(len(p.reps))
		p.reps = append(p.reps, s.reps[:e.nReps]...)
		p.ents = append(p.ents, e)
	}
	if err := s.err(); err != nil {
		return nil, err
	}
	return p, nil
}

// appendHeader appends p's binary header to b.
func (p *Pack) appendHeader(b []byte) []byte {
	table := func(ss []string) {
		b = binary.AppendUvarint(b, uint64(len(ss)))
		for _, s := range ss {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	table(p.types)
	table(p.codings)
	b = binary.AppendUvarint(b, uint64(len(p.ents)))
	for i, e := range p.ents {
		b = binary.AppendUvarint(b, uint64(e.nameN))
		b = append(b, p.Name(i)...)
		b = binary.AppendUvarint(b, uint64(e.typ))
		b = append(b, e.tag[:]...)
		b = binary.AppendUvarint(b, uint64(e.nReps))
		for _, r := range p.reps[e.rep : e.rep+uint32(e.nReps)] {
			b = binary.AppendUvarint(b, uint64(r.coding))
			b = binary.AppendUvarint(b, uint64(r.off))
			b = binary.AppendUvarint(b, uint64(r.len))
		}
	}
	return b
}

// decodeJSONHeader decodes the JSON header of format "BPK1".
func decodeJSONHeader(h []byte) (*Pack, error) {
	var entries []Entry
	if err := json.Unmarshal(h, &entries); err != nil {
		return nil, fmt.Errorf("publish: pack header: %w", err)
	}
	return packOf(entries)
}

// packOf is the pack of entries (sorted by name, each once), without
// bodies: the one place entries become a Pack's compact form.
func packOf(entries []Entry) (*Pack, error) {
	p := &Pack{ents: make([]entryRec, 0, len(entries))}
	index := func(table *[]string, s, what string) (uint8, error) {
		for i, t := range *table {
			if t == s {
				return uint8(i), nil
			}
		}
		if len(*table) > math.MaxUint8 {
			return 0, fmt.Errorf("publish: pack header: more than 256 %s", what)
		}
		*table = append(*table, s)
		return uint8(len(*table) - 1), nil
	}
	for i := range entries {
		e := &entries[i]
		if i > 0 && entries[i-1].Name >= e.Name {
			return nil, fmt.Errorf("publish: pack header: entry %q after %q (names sorted, each once)", e.Name, entries[i-1].Name)
		}
		if len(e.Name) > math.MaxUint16 || len(e.Reps) > math.MaxUint8 || len(e.Type) > math.MaxUint8 {
			return nil, fmt.Errorf("publish: pack header: entry %q too large", e.Name)
		}
		rec := entryRec{name: uint32(len(p.strs)), nameN: uint16(len(e.Name)), nReps: uint8(len(e.Reps)), rep: uint32(len(p.reps))}
		p.strs = append(p.strs, e.Name...)
		var err error
		if rec.typ, err = index(&p.types, e.Type, "content types"); err != nil {
			return nil, err
		}
		for k, r := range e.Reps {
			if len(r.Encoding) > maxCoding {
				return nil, fmt.Errorf("publish: pack header: entry %q: coding %q longer than %d bytes", e.Name, r.Encoding, maxCoding)
			}
			tag, ok := parseETag(r.ETag, r.Encoding)
			if !ok || k > 0 && tag != rec.tag {
				return nil, fmt.Errorf("publish: pack header: entry %q: ETag %q is not one a build makes", e.Name, r.ETag)
			}
			rec.tag = tag
			if r.Off < 0 || r.Len < 0 || r.Off > math.MaxUint32 || r.Len > math.MaxUint32 {
				return nil, fmt.Errorf("publish: pack entry %s out of bounds", e.Name)
			}
			c, err := index(&p.codings, r.Encoding, "content codings")
			if err != nil {
				return nil, err
			}
			p.reps = append(p.reps, repRec{off: uint32(r.Off), len: uint32(r.Len), coding: c})
		}
		p.ents = append(p.ents, rec)
	}
	return p, nil
}

// parseETag returns the hash an entity tag of coding enc was made of, if
// ETag made it.
func parseETag(t, enc string) (tag [etagHash]byte, ok bool) {
	if len(t) < 2+2*etagHash {
		return tag, false
	}
	if _, err := hex.Decode(tag[:], []byte(t[1:1+2*etagHash])); err != nil {
		return tag, false
	}
	return tag, etagOf(&tag, enc) == t
}

// etagOf is the entity tag of a body whose hash begins with tag, in coding
// enc (see ETag).
func etagOf(tag *[etagHash]byte, enc string) string {
	var b [MaxETag]byte
	return string(appendETag(b[:0], tag, enc))
}

// appendETag appends etagOf's tag to t.
func appendETag(t []byte, tag *[etagHash]byte, enc string) []byte {
	t = append(t, '"')
	t = hex.AppendEncode(t, tag[:])
	switch enc {
	case Identity:
	case Gzip:
		t = append(t, "-gz"...)
	default:
		t = append(append(t, '-'), enc...)
	}
	return append(t, '"')
}
