package publish

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
)

// The pack format "BPK3": each entry's description next to its bodies, and
// a header that only says where each entry is. An edge serving a
// catalogue reads most entries by range, one pack's header and then one
// entry, and holds the headers of the packs it reads so (docs/edge.md,
// "Cache tiers"). A BPK2 header describes every entry (7 KiB for a
// chapter, about 50 bytes an entry), more than the edge could hold for
// every pack of a catalogue, and each is checked whole when read. A BPK3
// header takes 12 bytes an entry, fixed, and is checked row by row:
//
//	"BPK3", uint32 header length (little-endian)
//	header:  types table, codings table, entry count (as BPK2's)
//	         then a row per entry, 12 bytes: the FNV-1a hash of its name,
//	         and the offset and length of its record, uint32 little-endian
//	         each, the rows in strictly increasing order of hash
//	bodies:  the records. An entry's record is the bytes from its first
//	         body to its description; the description is the entry as
//	         a BPK2 header writes it (name, type, tag, each coding's
//	         offset and length from the start of the bodies), then its
//	         length (uint32 little-endian).
//
// So one ranged read of a record gives an entry and all its bodies. A
// body repeated within an entry's reach (recordReach) is stored once, and
// a later entry's record then begins at it. A pack two of whose names have
// the same hash is written as BPK2 (PackWriter.Bytes), so that a lookup
// has one row to read, and a reader refuses rows out of order.
const packMagicRecords = "BPK3"

// recordRow is how many bytes a row of a BPK3 header takes.
const recordRow = 12

// recordReach is how far back in the bodies an entry's record may begin:
// a body met before within it is not stored again. Variants of a verse
// whose bodies agree sit next to each other, so a record reads little more
// than its own bodies.
const recordReach = 16 << 10

// nameHash is the FNV-1a hash (32 bits) of an entry's name.
func nameHash[S ~string | ~[]byte](name S) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h ^= uint32(name[i])
		h *= 16777619
	}
	return h
}

// recordRows checks the rows of a BPK3 header h, from at on (after the
// entry count n), against bodies bytes of bodies: exactly n rows, hashes
// strictly increasing, each record within the bodies and long enough for
// its description's length.
func recordRows(h []byte, at int, n uint64, bodies int64) error {
	if uint64(len(h)-at) != n*recordRow {
		return fmt.Errorf("%w: %d bytes of rows for %d entries", errHeader, len(h)-at, n)
	}
	var prev uint32
	for i := range int(n) {
		hash, off, ln := recordRowAt(h, at, i)
		if i > 0 && hash <= prev {
			return fmt.Errorf("%w: row %d out of order", errHeader, i)
		}
		prev = hash
		if ln < 4 || int64(off)+int64(ln) > bodies {
			return fmt.Errorf("publish: pack record %d out of bounds", i)
		}
	}
	return nil
}

// recordRowAt reads the i-th row of the rows at h[at:].
func recordRowAt(h []byte, at, i int) (hash, off, ln uint32) {
	r := h[at+recordRow*i : at+recordRow*(i+1)]
	return binary.LittleEndian.Uint32(r), binary.LittleEndian.Uint32(r[4:]), binary.LittleEndian.Uint32(r[8:])
}

// record reads the entry of a record rec (the record's bytes, at off in
// the bodies) into s.e and s.reps, as next reads one of a BPK2 header,
// with e.name from the start of rec; s's tables are the header's. It
// checks that the entry's bodies lie in the record before its description,
// and returns where the description starts in rec.
func (s *headerScan) record(rec []byte, off uint32) (int, error) {
	if len(rec) < 4 {
		return 0, fmt.Errorf("%w: a record of %d bytes", errHeader, len(rec))
	}
	m := binary.LittleEndian.Uint32(rec[len(rec)-4:])
	if uint64(m) > uint64(len(rec)-4) {
		return 0, fmt.Errorf("%w: a description of %d bytes in a record of %d", errHeader, m, len(rec))
	}
	at := len(rec) - 4 - int(m)
	s.r = headerReader{b: rec[at : len(rec)-4]}
	s.n, s.left, s.prev = 1, 1, nil
	if !s.next() {
		return 0, s.err()
	}
	if err := s.err(); err != nil {
		return 0, err
	}
	s.e.name += uint32(at)
	for _, r := range s.reps[:s.e.nReps] {
		if r.off < off || uint64(r.off)+uint64(r.len) > uint64(off)+uint64(at) {
			return 0, fmt.Errorf("publish: pack entry %s out of its record", rec[s.e.name:s.e.name+uint32(s.e.nameN)])
		}
	}
	return at, nil
}

// decodeRecords decodes a BPK3 pack: h its header, bodies the rest. The
// names stay in bodies.
func decodeRecords(h, bodies []byte) (*Pack, error) {
	var s headerScan
	s.init(h, recordRow)
	if s.r.err != nil {
		return nil, s.r.err
	}
	if err := recordRows(h, s.r.pos, s.n, int64(len(bodies))); err != nil {
		return nil, err
	}
	p := &Pack{strs: bodies, inData: true, types: tableStrings(h, 0, s.nTypes), codings: tableStrings(h, s.codingsAt, s.nCodings)}
	n := int(s.n)
	p.ents = make([]entryRec, 0, n)
	p.reps = make([]repRec, 0, 3*n)
	// The records in the order they were written, which is the names'
	// (each ends past the one before): the entries then come out sorted,
	// and a name out of order or twice is refused as in a BPK2 header.
	rows := make([][3]uint32, n)
	for i := range rows {
		rows[i][0], rows[i][1], rows[i][2] = recordRowAt(h, s.r.pos, i)
	}
	slices.SortFunc(rows, func(a, b [3]uint32) int { return cmp.Compare(a[1]+a[2], b[1]+b[2]) })
	var prev []byte
	for _, r := range rows {
		hash, off, ln := r[0], r[1], r[2]
		if _, err := s.record(bodies[int(off):int(off)+int(ln)], off); err != nil {
			return nil, err
		}
		e := s.e
		e.name += off
		name := bodies[e.name : e.name+uint32(e.nameN)]
		if nameHash(name) != hash {
			return nil, fmt.Errorf("%w: the row of %q has another hash", errHeader, name)
		}
		if len(p.ents) > 0 && string(prev) >= string(name) {
			return nil, fmt.Errorf("%w: entry %q after %q (names sorted, each once)", errHeader, name, prev)
		}
		prev = name
		e.rep = uint32(len(p.reps))
		p.reps = append(p.reps, s.reps[:e.nReps]...)
		p.ents = append(p.ents, e)
	}
	return p, nil
}

// recordsLayout lays out entries (sorted by name, each once, with their
// coded bodies) as a BPK3 pack; false when two names have the same hash.
func recordsLayout(entries []codedEntry) ([]byte, bool) {
	rows := make([][3]uint32, len(entries))
	for i := range entries {
		rows[i][0] = nameHash(entries[i].name)
	}
	byHash := make([]int, len(entries))
	for i := range byHash {
		byHash[i] = i
	}
	sort.Slice(byHash, func(i, j int) bool { return rows[byHash[i]][0] < rows[byHash[j]][0] })
	for k := 1; k < len(byHash); k++ {
		if rows[byHash[k-1]][0] == rows[byHash[k]][0] {
			return nil, false
		}
	}
	tables := newPackTables(entries)
	if !tables.fits() {
		return nil, false // headerLayout says why
	}
	var bodies, desc []byte
	seen := make(map[[32]byte]uint32) // a body's hash: where its latest copy is
	reps := make([]repRec, 0, 3)
	for i, e := range entries {
		start := uint32(len(bodies))
		reps = reps[:0]
		for _, c := range e.bodies {
			sum := sha256Sum(c.Data)
			off, ok := seen[sum]
			if !ok || uint32(len(bodies))-off > recordReach {
				off = uint32(len(bodies))
				bodies = append(bodies, c.Data...)
				seen[sum] = off
			}
			start = min(start, off)
			reps = append(reps, repRec{off: off, len: uint32(len(c.Data)), coding: tables.coding(c.Encoding)})
		}
		desc = appendEntry(desc[:0], e.name, tables.typ(e.ctype), (*[etagHash]byte)(e.sum[:etagHash]), reps)
		bodies = append(bodies, desc...)
		bodies = binary.LittleEndian.AppendUint32(bodies, uint32(len(desc)))
		rows[i][1], rows[i][2] = start, uint32(len(bodies))-start
		if len(bodies) > math.MaxUint32 {
			return nil, false // headerLayout says why
		}
	}
	h := tables.append(nil)
	h = binary.AppendUvarint(h, uint64(len(entries)))
	for _, i := range byHash {
		for _, v := range rows[i] {
			h = binary.LittleEndian.AppendUint32(h, v)
		}
	}
	out := make([]byte, 0, packHeaderPrefix+len(h)+len(bodies))
	out = append(out, packMagicRecords...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(h)))
	out = append(append(out, h...), bodies...)
	return out, true
}
