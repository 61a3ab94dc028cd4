package publish

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"unsafe"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

// A pack bundles the representations of one unit of content (a Bible's
// metadata, a book, a chapter) into one object, so that a store holds
// thousands of objects rather than millions and the edge caches whole packs.
//
// Layout: the magic "BPK2", a little-endian uint32 header length, the
// binary header (the entries, packheader.go), then the bodies. Offsets are
// from the start of the bodies, so an edge can read the header with one
// ranged read and each body with another. Packs of the first format
// ("BPK1", a JSON header) are still read.
const (
	packMagic     = "BPK2"
	packMagicJSON = "BPK1"
)

// packHeaderPrefix is how many bytes precede the header.
const packHeaderPrefix = len(packMagic) + 4

// Encodings a representation can be stored in, as Content-Encoding spells
// them; "" is identity.
const (
	Identity = ""
	Brotli   = "br"
	Gzip     = "gzip"
)

// Entry is one resource in a pack, in every encoding it is stored in: a
// decoded pack keeps its entries in a compact form of its own (Pack) and
// makes an Entry when asked (At, Entry).
//
// A pack holds no Cache-Control: whether an answer may sit in a shared
// cache depends on the Bible's licence, which changes without the text
// changing, so the edge decides it when it serves (docs/edge.md). A "c"
// field in a JSON header is ignored, as every unknown field is.
type Entry struct {
	Name string `json:"n"`
	Type string `json:"t"` // Content-Type
	Reps []Rep  `json:"r"` // identity first
}

// Rep is one encoding of an entry's body.
type Rep struct {
	Encoding string `json:"e,omitempty"`
	Off      int64  `json:"o"`
	Len      int64  `json:"l"`
	// ETag is the strong entity tag of this representation, quoted. Each
	// encoding has its own (RFC 9110 §8.8.3.3: a strong validator changes
	// with the content coding).
	ETag string `json:"g"`
}

// Pack is a decoded pack. Its entries are held without pointers (a few
// flat slices and the header's bytes), so that a cache of many decoded
// packs is a few objects each for the garbage collector, not thousands.
type Pack struct {
	strs    []byte     // the entries' names (in a binary header, the header itself)
	ents    []entryRec // sorted by name, names distinct
	reps    []repRec
	types   []string // content types, by entryRec.typ
	codings []string // content codings, by repRec.coding
	bodies  []byte   // nil when only the header was read
	bodyOff int64    // offset of the bodies within the object
	inData  bool     // strs lies in the buffer the bodies are in
}

// entryRec is an entry: its name in strs, its type, its representations
// (reps[rep:rep+nReps]) and the hash their entity tags are made of.
type entryRec struct {
	name  uint32
	nameN uint16
	typ   uint8
	nReps uint8
	rep   uint32
	tag   [etagHash]byte
}

// repRec is one coding of an entry's body, within the bodies.
type repRec struct {
	off, len uint32
	coding   uint8
}

// Len is how many entries the pack holds.
func (p *Pack) Len() int { return len(p.ents) }

// Name is the i-th entry's name (entries are sorted by name). It does not
// allocate: the edge's lookups compare with it.
func (p *Pack) Name(i int) string {
	e := &p.ents[i]
	return unsafe.String(unsafe.SliceData(p.strs[e.name:]), int(e.nameN))
}

// At returns the i-th entry.
func (p *Pack) At(i int) Entry {
	e := &p.ents[i]
	out := Entry{Name: p.Name(i), Type: p.types[e.typ], Reps: make([]Rep, e.nReps)}
	for k, r := range p.reps[e.rep : e.rep+uint32(e.nReps)] {
		enc := p.codings[r.coding]
		out.Reps[k] = Rep{Encoding: enc, Off: int64(r.off), Len: int64(r.len), ETag: etagOf(&e.tag, enc)}
	}
	return out
}

// Index returns the index of the named entry, -1 when there is none.
func (p *Pack) Index(name string) int {
	i := sort.Search(len(p.ents), func(i int) bool { return p.Name(i) >= name })
	if i < len(p.ents) && p.Name(i) == name {
		return i
	}
	return -1
}

// Entry returns the named entry, or nil.
func (p *Pack) Entry(name string) *Entry {
	i := p.Index(name)
	if i < 0 {
		return nil
	}
	e := p.At(i)
	return &e
}

// Body returns a representation's bytes; it does not copy.
func (p *Pack) Body(r *Rep) []byte { return p.bodies[r.Off : r.Off+r.Len] }

// Bodies is all of the pack's bodies, which its entries' offsets are in
// (checked when the pack was decoded).
func (p *Pack) Bodies() []byte { return p.bodies }

// HeaderSize is what the decoded header takes on the heap besides the
// buffer of its bodies, each allocation rounded by round.
func (p *Pack) HeaderSize(round func(int64) int64) int64 {
	n := round(int64(unsafe.Sizeof(*p))) +
		round(int64(cap(p.ents))*int64(unsafe.Sizeof(entryRec{}))) +
		round(int64(cap(p.reps))*int64(unsafe.Sizeof(repRec{}))) +
		round(int64(cap(p.types)+cap(p.codings))*int64(unsafe.Sizeof("")))
	if !p.inData {
		n += round(int64(cap(p.strs)))
	}
	for _, s := range p.types {
		n += round(int64(len(s)))
	}
	for _, s := range p.codings {
		n += round(int64(len(s)))
	}
	return n
}

// ErrNoEntry is a pack without the entry asked for.
var ErrNoEntry = errors.New("no such pack entry")

// Raw returns an entry's identity body (its first representation), without
// copying, or ErrNoEntry. Internal entries (NameSegments, NameIndex) are
// read so.
func (p *Pack) Raw(name string) ([]byte, error) {
	i := p.Index(name)
	if i < 0 || p.ents[i].nReps == 0 {
		return nil, fmt.Errorf("pack entry %q: %w", name, ErrNoEntry)
	}
	r := p.reps[p.ents[i].rep]
	if p.codings[r.coding] != Identity {
		return nil, fmt.Errorf("pack entry %q: %w", name, ErrNoEntry)
	}
	return p.bodies[r.off : r.off+r.len], nil
}

// Decode decodes an entry's JSON body into v. It is the one reader of
// published entries: the build (reusing what it published), the edge and
// dynamic all read through it or DecodeEntry.
func (p *Pack) Decode(name string, v any) error {
	b, err := p.Raw(name)
	if err != nil {
		return err
	}
	return DecodeEntry(name, b, v)
}

// DecodeEntry decodes the JSON body of entry name, read some other way
// (an edge reads single entries by range).
func DecodeEntry(name string, body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("pack entry %q: %w", name, err)
	}
	return nil
}

// checkBounds checks that every representation lies within bodies bytes.
func (p *Pack) checkBounds(bodies int64) error {
	for i, e := range p.ents {
		for _, r := range p.reps[e.rep : e.rep+uint32(e.nReps)] {
			if int64(r.off)+int64(r.len) > bodies {
				return fmt.Errorf("publish: pack entry %s out of bounds", p.Name(i))
			}
		}
	}
	return nil
}

// BodyOffset is where the bodies start within the object, for ranged reads.
func (p *Pack) BodyOffset() int64 { return p.bodyOff }

// DecodePack decodes a whole pack object. The decoded pack keeps data.
func DecodePack(data []byte) (*Pack, error) {
	p, err := decodePackHeaderOf(data, int64(len(data)))
	if err != nil {
		return nil, err
	}
	p.bodies = data[p.bodyOff:]
	p.inData = string(data[:len(packMagic)]) == packMagic
	return p, nil
}

// decodePackHeaderOf decodes the header of a pack of size bytes from its
// first bytes (prefix and header, at least packHeaderPrefix+n where n is
// packHeaderLen), checking that every entry lies within the pack.
func decodePackHeaderOf(head []byte, size int64) (*Pack, error) {
	n, err := packHeaderLen(head)
	if err != nil {
		return nil, err
	}
	end := int64(packHeaderPrefix) + n
	if end > size || end > int64(len(head)) {
		return nil, fmt.Errorf("publish: pack header of %d bytes in %d read of a pack of %d", n, len(head), size)
	}
	h := head[packHeaderPrefix:end:end]
	var p *Pack
	if string(head[:len(packMagic)]) == packMagicJSON {
		p, err = decodeJSONHeader(h)
	} else {
		p, err = decodeHeader(h)
	}
	if err != nil {
		return nil, err
	}
	p.bodyOff = end
	if err := p.checkBounds(size - end); err != nil {
		return nil, err
	}
	return p, nil
}

// packHeaderLen reads the header length from the first packHeaderPrefix
// bytes of a pack.
func packHeaderLen(prefix []byte) (int64, error) {
	if len(prefix) < packHeaderPrefix {
		return 0, errors.New("publish: not a pack")
	}
	if m := string(prefix[:len(packMagic)]); m != packMagic && m != packMagicJSON {
		return 0, errors.New("publish: not a pack")
	}
	return int64(binary.LittleEndian.Uint32(prefix[len(packMagic):packHeaderPrefix])), nil
}

// PackWriter assembles a pack. Its key is the hash of what it holds before
// compression, so a build can tell that a pack is already published without
// compressing anything; identical bodies are stored once.
type PackWriter struct {
	pending []pendingEntry
	size    int64 // identity bytes added
}

type pendingEntry struct {
	name, ctype string
	body        []byte
	raw         bool
}

// NewPackWriter starts an empty pack.
func NewPackWriter() *PackWriter { return &PackWriter{} }

// Add adds a resource, to be stored as identity plus every encoding that
// makes it smaller.
func (w *PackWriter) Add(name, ctype string, body []byte) {
	w.pending = append(w.pending, pendingEntry{name: name, ctype: ctype, body: body})
	w.size += int64(len(body))
}

// AddRaw adds an internal resource (read by the edge, never served as is),
// stored in identity only.
func (w *PackWriter) AddRaw(name, ctype string, body []byte) {
	w.pending = append(w.pending, pendingEntry{name: name, ctype: ctype, body: body, raw: true})
	w.size += int64(len(body))
}

// Size is the total of the bodies added, before compression and before
// identical bodies are folded: what assembling the pack will hold in
// memory, and about what it will weigh.
func (w *PackWriter) Size() int64 { return w.size }

// packFormat changes whenever the bytes Bytes makes for the same entries
// would change (layout, encoder settings), so that keys change with them.
const packFormat = "BPK2 br5 gz6 no-cache-control\n"

func (w *PackWriter) sort() {
	sort.SliceStable(w.pending, func(i, j int) bool { return w.pending[i].name < w.pending[j].name })
}

// PackPrefix starts every pack's key: a store's packs are named by their
// content under it.
const PackPrefix = "packs/"

// Key is the pack's content address: a hash of its entries and identity
// bodies.
func (w *PackWriter) Key() string {
	w.sort()
	h := sha256.New()
	h.Write([]byte(packFormat))
	var n [8]byte
	for _, e := range w.pending {
		for _, s := range []string{e.name, e.ctype} {
			binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
			h.Write(n[:])
			h.Write([]byte(s))
		}
		if e.raw {
			h.Write([]byte{1})
		} else {
			h.Write([]byte{0})
		}
		binary.LittleEndian.PutUint64(n[:], uint64(len(e.body)))
		h.Write(n[:])
		h.Write(e.body)
	}
	return PackPrefix + hex.EncodeToString(h.Sum(nil)[:20])
}

// Bytes compresses and lays out the pack. Entries are sorted by name so the
// same content always makes the same bytes. A body repeated within the pack
// (a passage whose variants agree) is compressed and stored once; what is
// remembered for that goes with the call, so a build's memory does not
// grow with what it has written. The bodies are copied once, into the
// result: a pack in the making holds its entries, their encodings and the
// pack, no other copy.
func (w *PackWriter) Bytes(enc *Encoder) []byte {
	w.sort()
	var bodies [][]byte // in order, each stored once
	var size int64
	seen := make(map[[32]byte]Rep)
	encoded := make(map[[32]byte][]compressed)
	put := func(encoding, etag string, data []byte) Rep {
		sum := sha256.Sum256(data)
		if r, ok := seen[sum]; ok {
			r.Encoding, r.ETag = encoding, etag
			return r
		}
		r := Rep{Encoding: encoding, Off: size, Len: int64(len(data)), ETag: etag}
		bodies = append(bodies, data)
		size += int64(len(data))
		seen[sum] = r
		return r
	}
	entries := make([]Entry, 0, len(w.pending))
	for _, p := range w.pending {
		e := Entry{Name: p.name, Type: p.ctype}
		sum := sha256.Sum256(p.body)
		e.Reps = append(e.Reps, put(Identity, ETag(&sum, Identity), p.body))
		if !p.raw {
			cs, ok := encoded[sum]
			if !ok {
				cs = enc.encode(p.body)
				encoded[sum] = cs
			}
			for _, c := range cs {
				e.Reps = append(e.Reps, put(c.Encoding, ETag(&sum, c.Encoding), c.Data))
			}
		}
		entries = append(entries, e)
	}
	hp, err := packOf(entries)
	if err != nil {
		panic(err) // sorted, distinct names whose tags ETag made
	}
	h := hp.appendHeader(nil)
	out := make([]byte, 0, int64(packHeaderPrefix+len(h))+size)
	out = append(out, packMagic...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(h)))
	out = append(out, h...)
	for _, b := range bodies {
		out = append(out, b...)
	}
	return out
}

// compressed is one encoded form of a body.
type compressed struct {
	Encoding string
	Data     []byte
}

// ETag is the strong entity tag of a body whose SHA-256 is sum, in one
// content coding: 96 bits of the hash, and a suffix per coding so that
// each coding has its own (RFC 9110 §8.8.3.3). Its longest is 29 bytes;
// MaxETag bounds what a pack may hold.
func ETag(sum *[32]byte, encoding string) string {
	return etagOf((*[etagHash]byte)(sum[:etagHash]), encoding)
}

// MaxETag is the longest entity tag a pack may hold (a header naming a
// coding longer than maxCoding is refused): the edge keeps each tag inline with its body's
// other serving data, so that an answer touches one cache line for both.
const MaxETag = 31

// Encoder compresses bodies with brotli and gzip, reusing its writers. It
// keeps nothing of what it compressed (PackWriter.Bytes folds repeats
// within a pack), so a build of any size holds only the packs in progress.
// It is safe for concurrent use.
type Encoder struct {
	brotliLevel, gzipLevel int
	brPool                 [25]sync.Pool // by window size
	gzPool                 sync.Pool
}

// NewEncoder returns an Encoder with the levels the build uses.
func NewEncoder() *Encoder {
	return &Encoder{brotliLevel: 5, gzipLevel: 6}
}

// minBrotliWindow is the smallest log2 window brotli allows. A window no
// larger than the body compresses as well as a big one, and a small one
// makes a writer cheap to reset, which dominates for the many small
// passages. Brotli quality 5 and gzip level 6 make the same bytes as 9 on
// the WEB's passages within 0.2 % (34.4 % of identity for brotli), at a
// third of the time.
const minBrotliWindow = 10

// Encode returns the encodings worth storing: those smaller than body.
func (e *Encoder) encode(body []byte) []compressed {
	var c []compressed
	var br, gz bytes.Buffer
	lgwin := minBrotliWindow
	for lgwin < 24 && 1<<lgwin < len(body) {
		lgwin++
	}
	bw, ok := e.brPool[lgwin].Get().(*brotli.Writer)
	if ok {
		bw.Reset(&br)
	} else {
		bw = brotli.NewWriterOptions(&br, brotli.WriterOptions{Quality: e.brotliLevel, LGWin: lgwin})
	}
	bw.Write(body)
	bw.Close()
	e.brPool[lgwin].Put(bw)
	gw, ok := e.gzPool.Get().(*gzip.Writer)
	if ok {
		gw.Reset(&gz)
	} else {
		gw, _ = gzip.NewWriterLevel(&gz, e.gzipLevel)
	}
	gw.Write(body)
	gw.Close()
	e.gzPool.Put(gw)
	for _, x := range []compressed{{Brotli, br.Bytes()}, {Gzip, gz.Bytes()}} {
		if len(x.Data) < len(body) {
			c = append(c, x)
		}
	}
	return c
}
