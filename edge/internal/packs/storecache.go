package packs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// Ranged reads and admission. A pack's header (its entries with their
// offsets) comes first, so an edge can read it with one GetRange and then
// each entry it needs with another, rather than the whole pack.
//
// The memory tier holds entries, not whole packs: a pack missed is read so,
// its header (6 KiB for the median chapter pack of 100 KiB) and the entry
// asked for, and each entry read is kept in memory on its own, while it is
// asked for. Over a large catalogue most distinct requests are rare (Zipf),
// popularity says nothing of a verse's neighbours, and a chapter pack held
// whole for one of its 140 entries evicts the entries of a hundred other
// packs that are asked for. With a disk cache and a remote store, a pack
// of at most DefaultWholeMax is fetched whole onto the disk on its first
// miss, without decoding it: one store read instead of two ranged ones
// (header, entry), and its later misses are local reads. (Not from a
// directory store, whose reads are local already.) A pack with
// promoteAfter of its entries read within a few seconds (promoteWindow)
// is evidently read widely: it is then
// held whole in memory (its chapter's requests then skip the cache's lock
// through the Slot).
const (
	// DefaultWholeMax is the largest pack fetched whole onto the disk
	// cache on its first miss: 1 MiB takes in all but 50 of the scale
	// benchmark's 67,000 packs (256 KiB left out 1,582, whose misses were
	// nearly every store read from MinIO: 160-173 a second against 7-9).
	DefaultWholeMax = 1 << 20
	// headerProbe is the first ranged read: the prefix and, for most
	// packs, the whole header (the 90th percentile of the catalogue's is
	// 10 KiB). A longer header takes one more read.
	headerProbe = 16 << 10
	// promoteWindow: the promoteAfter entries are read within this
	// while of each other (counted afresh after a longer gap). A pack's
	// count lives with its header in the memory tier, and headers held
	// indexed live there long enough for a pack read now and then over
	// minutes to reach the count: under the scale mix, 9,464 packs were
	// loaded whole in 30 s without the window (each read for one or two
	// of its entries since, and evicting a hundred entries' worth of
	// memory), and none with it.
	promoteWindow = 2 * time.Second
	// headerShare: the headers of packs read by range are held in at
	// most 1/headerShare of the memory tier's bound; packs and entries
	// have the rest, and what the headers do not hold (Packs.bound). A
	// chapter's header, held indexed (publish.Header.Index), is about 3.5
	// KiB, the size of a verse entry or two, and is read for every miss
	// of its pack's entries: under the scale mix nearly every entry
	// missed is its pack's first in a while. All of the scale
	// benchmark's catalogue's headers take about a third (67,000 packs at
	// about 3.8 KiB with what the tier counts besides): held in a
	// quarter, 18 % of the store reads were headers read again, each with
	// its indexing; in a third, 0.2 %, and the entries read rose 2.5 %
	// (docs/edge.md, twenty-sixth round).
	headerShare = 3
	// mergeGap: codings of one entry are stored next to each other, but
	// identical bodies are stored once and may sit elsewhere. Ranges less
	// than this apart are read together.
	mergeGap = 4 << 10
	// openPacks is how many pack files of a directory store, and of the
	// disk cache, stay open between reads. Most of what it saves is the
	// second open of a miss (its header, then its entry): over the scale
	// mix of 67,000 packs 128 files saved 34 % of the opens, and 4,096
	// only 39 %.
	openPacks = 256
	// openVolumes is how many files of a directory store stay open between
	// reads: all of its volumes (50 Bibles write about 220 of
	// build.VolumeBytes), so that a miss opens no file; or, from a store
	// written before volumes, that many of its pack files.
	openVolumes = 1024
)

// promoteAfter entries read by range from one pack make it worth holding
// whole in memory, loaded in the background (and kept on disk): it is
// evidently being read widely. (A variable for a benchmark of misses
// alone, BenchmarkEntryMiss.)
var promoteAfter int32 = 16

// tierCounters count which tier answered a pack lookup.
type tierCounters struct {
	memory metrics.HotCounter // a decoded pack, or an entry already read by range, in memory
	disk   metrics.Counter    // a whole pack, a header or an entry read from the disk cache
	store  metrics.Counter    // a whole pack fetched from the store
	header metrics.Counter    // a pack header fetched by ranged read
	ranged metrics.Counter    // an entry fetched by ranged read
}

// partialPack is the state of a pack known only by its header: how many
// of its entries it has read. The entries read are views of their own in
// the memory tier (rangedEntry, entryKey); their reads in flight are
// Packs.entries.
type partialPack struct {
	ref      publish.PackRef
	fetched  atomic.Int32
	since    atomic.Int64 // when fetched was last counted afresh (Unix ns)
	promoted atomic.Bool
	// scratch: the header was read for one request and is not held; its
	// buffer goes back to scratchHeaders once the request has read its
	// entry.
	scratch bool
}

// headerEntry is a pack's header as the memory tier holds it: its view
// and its partialPack in one allocation (v.partial is &pp), one object
// fewer for the collector to mark.
type headerEntry struct {
	v  View
	pp partialPack
}

// scratchHeaders are headers read for one request and not held
// (Packs.scratchHeader), with their buffers, for the next such read.
var scratchHeaders sync.Pool // *headerEntry

// headerView is what the memory tier counts for a pack's header besides
// the header's buffer.
var headerView = cache.AllocSize(int64(unsafe.Sizeof(headerEntry{})))

// entryKey is the memory tier's key of entry name of the pack id names,
// appended to b. It begins with a hash, so it is not a pack's store key,
// under which the tier holds whole packs.
func entryKey(b []byte, id PackID, name []byte) []byte {
	return append(append(b, id[:]...), name...)
}

// rangedEntry is an entry read by range as the memory tier holds it: its
// view and its resource in one allocation. At catalogue scale the tier
// holds a few hundred thousand of them, and the collector marks every
// object at each cycle.
type rangedEntry struct {
	v   View
	res represent.Resource
}

// entryOf is the resource of v, found in the memory tier by an entry's key
// (entryKey): only a rangedEntry is held under one. A hit takes the
// resource from where it lies without reading the view's lines, which over
// a catalogue no processor cache holds.
func entryOf(v *View) *represent.Resource { return &(*rangedEntry)(unsafe.Pointer(v)).res }

// entryView is what the memory tier counts for an entry read by range
// besides its buffer (its key and bodies).
var entryView = cache.AllocSize(int64(unsafe.Sizeof(rangedEntry{})))

// Entry returns the resource name of pack ref, nil when the pack has no
// such entry. slot, when not nil, is where the caller keeps the pack
// (a chapter's): a pack found there is used at once, and a pack found whole
// in memory is put there for next time. A hit in memory (a whole pack, or
// an entry read by range before) does not allocate.
func (p *Packs) Entry(ctx context.Context, slot *Slot, ref *publish.PackRef, name []byte) (*represent.Resource, error) {
	res, _, err := p.entry(ctx, slot, ref, name, false, nil)
	return res, err
}

// Borrow is Entry for a caller that reads the resource only for a while
// (an answer): an entry read by range that the memory tier does not take
// in yet (entrySeen) is then lent for this request (loan not nil), and the
// caller gives it back (GiveBack) once nothing reads the resource or
// anything made from it without a copy. req, when not nil, is the request
// the resource answers: an entry lent is then read in the one coding the
// request negotiates (lentCoding).
func (p *Packs) Borrow(ctx context.Context, slot *Slot, ref *publish.PackRef, name []byte, req *fasthttp.RequestHeader) (_ *represent.Resource, loan *Loan, _ error) {
	return p.entry(ctx, slot, ref, name, true, req)
}

// entry is Entry, or with lend Borrow.
func (p *Packs) entry(ctx context.Context, slot *Slot, ref *publish.PackRef, name []byte, lend bool, req *fasthttp.RequestHeader) (_ *represent.Resource, lent *Loan, _ error) {
	var id PackID
	if slot != nil {
		if v := slot.Load(); v != nil {
			v.touch()
			p.cache.Hit()
			p.tiers.memory.Inc()
			return v.index.find(name), nil, nil
		}
		id = slot.Pack
	}
	v, res, whole, err := p.view(ctx, *ref, &id, name, slot != nil)
	if whole != nil {
		// Read from below, copied out, and then no longer needed.
		defer p.release(whole)
	}
	if err != nil || res != nil {
		return res, nil, err
	}
	if v.partial != nil {
		res, lent, err := p.partialEntry(ctx, v, id.of(ref.Key), name, whole, lend, req)
		if v.partial.scratch {
			// Read for this request alone, and no longer read: v is
			// the first field of its headerEntry.
			scratchHeaders.Put((*headerEntry)(unsafe.Pointer(v)))
		}
		return res, lent, err
	}
	if slot != nil {
		v.attach(slot)
	}
	return v.index.find(name), nil, nil
}

// view returns pack ref in memory, for a request of its entry name:
// whole; or the entry (res, and v nil); or the pack's header for a ranged
// read of the entry (v.partial != nil), and the whole pack's bytes when
// this request has just fetched them onto the disk (whole), to read the
// entry from.
//
// A caller with a slot (a chapter's) finds its pack there when it is held
// whole, so what it finds in the map is mostly its entry, read by range
// (a catalogue's rare packs): it looks for that first. A caller without
// one (a Bible's or a book's metadata) looks for its pack first, which is
// mostly held whole.
//
// id names the pack in the tier's keys of its entries (made from ref's key
// here when zero).
func (p *Packs) view(ctx context.Context, ref publish.PackRef, id *PackID, name []byte, slotted bool) (v *View, res *represent.Resource, whole []byte, err error) {
	if slotted {
		if res := p.heldEntry(id, ref.Key, name); res != nil {
			return nil, res, nil, nil
		}
	}
	if v, ok := p.cache.Get(ref.Key); ok {
		p.tiers.memory.Inc()
		return v, nil, nil, nil
	}
	if !slotted {
		if res := p.heldEntry(id, ref.Key, name); res != nil {
			return nil, res, nil, nil
		}
	}
	if h, ok := p.headers.Get(ref.Key); ok {
		return h, nil, nil, nil
	}
	small := p.wholeMax <= 0 || ref.Size <= p.wholeMax
	if p.wholeMax <= 0 || small && p.wholeFirst {
		v, err := p.load(ctx, ref, ref.Key, p.loadWhole)
		return v, nil, nil, err
	}
	onDisk := false
	if small {
		whole, onDisk = p.toDisk(ctx, ref)
	} else if !p.dir {
		onDisk = p.disk.has(ref.Key)
	}
	if (p.dir || onDisk) && !p.headerSeen.seen(ref.Key) {
		v, err = p.scratchHeader(ctx, ref, whole)
		return v, nil, whole, err
	}
	v, err = p.load(ctx, ref, "header "+ref.Key, func(ctx context.Context, ref publish.PackRef) (*View, error) {
		return p.heldHeader(ctx, ref, whole)
	})
	return v, nil, whole, err
}

// heldEntry is entry name of the pack id names (made from key when zero)
// when the memory tier holds it, read by range; nil when it does not.
func (p *Packs) heldEntry(id *PackID, key string, name []byte) *represent.Resource {
	var kb [160]byte
	v, ok := p.cache.Find(entryKey(kb[:0], id.of(key), name))
	if !ok {
		return nil
	}
	p.tiers.memory.Inc()
	return entryOf(v)
}

// heldHeader reads pack ref's header to hold it in the memory tier:
// indexed (publish.Header.Index), in half the bytes of the header as read
// and found in by its names' hashes; as read when it cannot be indexed.
// It is read as a scratch header first: the indexed one is held in a
// buffer of its own size.
func (p *Packs) heldHeader(ctx context.Context, ref publish.PackRef, whole []byte) (*View, error) {
	v, err := p.scratchHeader(ctx, ref, whole)
	if err != nil {
		return nil, err
	}
	ix, err := v.hdr.Index()
	if errors.Is(err, publish.ErrNoIndex) {
		v.partial.scratch = false // sound, and held as read
		return v, nil
	}
	// The scratch header goes back: v is the first field of its
	// headerEntry.
	scratchHeaders.Put((*headerEntry)(unsafe.Pointer(v)))
	if err != nil {
		return nil, fmt.Errorf("read pack header %s: %w", ref.Key, err)
	}
	held := &headerEntry{pp: partialPack{ref: ref}}
	held.v.hdr, held.v.size, held.v.partial = ix, headerView+ix.Size(cache.AllocSize[int64]), &held.pp
	return &held.v, nil
}

// scratchHeader reads pack ref's header for this request's ranged read
// alone, into a buffer an earlier one gave back, and does not hold it.
//
// Read from the disk (a directory store, the disk cache, or the pack
// just fetched onto it), a header is held in memory only from its second
// read within a while (headerSeen). Over a large catalogue most packs
// missed are missed once in a long while: their headers, held on their
// first read, were most of what the tier allocated (a chapter's is 7
// KiB; 37 % of the scale mix's allocated bytes), and a header let go
// unread paced the collector for nothing, where reading it again from the
// page cache costs a read.
func (p *Packs) scratchHeader(ctx context.Context, ref publish.PackRef, whole []byte) (*View, error) {
	he, _ := scratchHeaders.Get().(*headerEntry)
	if he == nil {
		he = &headerEntry{pp: partialPack{scratch: true}}
	}
	v, err := p.loadHeader(ctx, ref, whole, he)
	if err != nil {
		scratchHeaders.Put(he)
	}
	return v, err
}

// toDisk fetches pack ref whole onto the disk cache, once for all callers
// at the same moment, without decoding it: its ranged reads are then local.
// The caller that fetched it gets its bytes (whole), to read its first entry
// from without reading the disk back; onDisk says whether the disk cache
// holds the pack (or whole is it). A failure costs warmth, not answers: the
// reads go to the store.
func (p *Packs) toDisk(ctx context.Context, ref publish.PackRef) (whole []byte, onDisk bool) {
	if p.disk == nil || p.local {
		return nil, false // warm would do nothing
	}
	if p.disk.has(ref.Key) {
		return nil, true
	}
	p.mu.Lock()
	c, lead := p.warming.Join(ref.Key)
	p.mu.Unlock()
	if !lead {
		c.Wait(ctx)
		return nil, p.disk.has(ref.Key)
	}
	lctx, cancel := p.loadContext()
	whole, c.Err = p.warm(lctx, ref)
	cancel()
	p.mu.Lock()
	delete(p.warming, ref.Key)
	p.mu.Unlock()
	c.Land()
	return whole, whole != nil
}

// source is where a pack's ranges are read (publish.PackReader): the
// whole pack just fetched when there is one (copied out, so that nothing
// kept holds all of it), else the disk cache when it holds the pack, else
// the store. A read from the pack just fetched is not
// counted again: the fetch was.
type source struct {
	publish.Store // the observed store
	p             *Packs
	whole         []byte
	disk          bool // set when a range came from the disk cache
}

// ReadPack reads a range of pack ref (publish.PackReader): a header's
// probe is read so, into a buffer reused for every header, and an entry's
// codings.
func (s *source) ReadPack(ctx context.Context, ref *publish.PackRef, off int64, b []byte) error {
	if s.whole != nil {
		if off < 0 || off+int64(len(b)) > int64(len(s.whole)) {
			return fmt.Errorf("pack %s [%d,+%d): past its %d bytes", ref.Key, off, len(b), len(s.whole))
		}
		copy(b, s.whole[off:])
		return nil
	}
	if s.p.disk.readRange(ref.Key, off, b) {
		s.disk = true
		return nil
	}
	return publish.ReadPackRange(ctx, s.Store, ref, off, b)
}

// count records which tier answered reads through s (header or ranged
// when the store did).
func (s *source) count(store *metrics.Counter) {
	switch {
	case s.whole != nil:
	case s.disk:
		s.p.tiers.disk.Inc()
	default:
		store.Inc()
	}
}

// loadHeader reads a pack's header with one ranged read (two when it is
// longer than headerProbe), from whole when set, else from the disk cache
// when it holds the pack, into he (in the buffer of the header it held
// before, when that has room), as read (publish.NewHeader): checked only
// as far as a lookup of one entry reads it.
func (p *Packs) loadHeader(ctx context.Context, ref publish.PackRef, whole []byte, he *headerEntry) (*View, error) {
	src := &source{Store: p.store, p: p, whole: whole}
	h, err := publish.LoadHeader(ctx, src, ref, headerProbe, he.v.hdr.Buffer())
	if err != nil {
		return nil, fmt.Errorf("read pack header %s: %w", ref.Key, err)
	}
	src.count(&p.tiers.header)
	*he = headerEntry{pp: partialPack{ref: ref, scratch: he.pp.scratch}}
	he.v.hdr, he.v.size, he.v.partial = h, headerView+h.Size(cache.AllocSize[int64]), &he.pp
	return &he.v, nil
}

// partialEntry returns an entry of a pack known by its header, reading it
// by range and keeping it in the memory tier under its own key; or, with
// lend, when the tier does not take it in yet (lendEntry), in a buffer
// lent for request req (lentCoding).
func (p *Packs) partialEntry(ctx context.Context, v *View, id PackID, name, whole []byte, lend bool, req *fasthttp.RequestHeader) (*represent.Resource, *Loan, error) {
	pp := v.partial
	e, ok, err := v.hdr.Entry(string(name))
	if err != nil {
		return nil, nil, fmt.Errorf("read pack header %s: %w", pp.ref.Key, err)
	}
	if !ok {
		return nil, nil, nil
	}
	var gb [3]span
	if lend {
		var kb [160]byte
		k := entryKey(kb[:0], id, name)
		if !p.entrySeen.seen(unsafe.String(unsafe.SliceData(k), len(k))) {
			lentCoding(&e, req)
			groups, n := entryRanges(gb[:0], &e)
			l, err := p.lendEntry(ctx, v, &e, groups, n, whole)
			if err != nil {
				return nil, nil, err
			}
			return &l.res, l, nil
		}
	}
	groups, n := entryRanges(gb[:0], &e)
	// The entry's key and its bodies share one buffer, the key first: the
	// flight's key without an allocation of its own.
	buf := entryKey(make([]byte, 0, len(id)+len(name)+int(n)), id, name)
	ek := unsafe.String(unsafe.SliceData(buf), len(buf))
	p.mu.Lock()
	if r, ok := p.cache.Peek(ek); ok {
		// Read by another request since this one looked.
		p.mu.Unlock()
		p.tiers.memory.Inc()
		return entryOf(r), nil, nil
	}
	c, lead := p.entries.Join(ek)
	p.mu.Unlock()
	if !lead {
		res, err := c.Wait(ctx)
		return res, nil, err
	}

	re := new(rangedEntry)
	c.Err = p.readEntry(v, &e, groups, whole, buf, &re.res)
	if c.Err == nil {
		c.Val = &re.res
		// In the tier before the flight ends, so that a request either
		// joins the flight or finds the entry. The cache keeps no key:
		// the whole buffer, the key with it, is the entry's.
		p.cache.Add(ek, &re.v, entryView+cache.AllocSize(cap(buf)))
	}
	p.mu.Lock()
	delete(p.entries, ek)
	p.mu.Unlock()
	c.Land()
	if c.Err == nil {
		p.fetchedFrom(pp)
	}
	return c.Val, nil, c.Err
}

// fetchedFrom counts an entry read by range from pack pp: a pack with
// promoteAfter of them read within promoteWindow is loaded whole, in the
// background.
func (p *Packs) fetchedFrom(pp *partialPack) {
	now := time.Now().UnixNano()
	if s := pp.since.Load(); now-s > int64(promoteWindow) && pp.since.CompareAndSwap(s, now) {
		pp.fetched.Store(0)
	}
	if pp.fetched.Add(1) >= promoteAfter && pp.promoted.CompareAndSwap(false, true) {
		go p.load(context.Background(), pp.ref, pp.ref.Key, p.loadWhole)
	}
}

// span is a range of a pack's bodies: [off, end) from the body offset.
type span struct{ off, end int64 }

// entryRanges appends to groups the ranges every coding of one entry is
// read in, as few as their layout allows, and says their total length.
// (A caller's groups of room for three, the codings an entry has, keeps
// a miss from allocating for them.)
func entryRanges(groups []span, e *publish.Entry) (_ []span, n int64) {
	var sb [3]span
	spans := sb[:0]
	for _, r := range e.Reps {
		spans = append(spans, span{r.Off, r.Off + r.Len})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.off, b.off) })
	for _, s := range spans {
		if k := len(groups) - 1; k >= 0 && s.off <= groups[k].end+mergeGap {
			groups[k].end = max(groups[k].end, s.end)
			continue
		}
		groups = append(groups, s)
	}
	for _, g := range groups {
		n += g.end - g.off
	}
	return groups, n
}

// readEntry reads every coding of one entry of the pack whose header is v,
// in its ranges (entryRanges), from whole when set (source), into buf past
// its length (buf has room for them all), and prepares it in r as a whole
// pack's entry is (represent.InitResource), its offsets moved to where
// its codings landed in buf. The read is one load (loadContext), counted
// as a ranged one.
func (p *Packs) readEntry(v *View, e *publish.Entry, groups []span, whole, buf []byte, r *represent.Resource) error {
	ctx, cancel := p.loadContext()
	defer cancel()
	src := &source{Store: p.store, p: p, whole: whole}
	ref := v.partial.ref
	base := len(buf)
	var sb [3]int64
	starts := sb[:0] // where each range lands in the bodies
	for _, g := range groups {
		at := len(buf)
		buf = buf[:at+int(g.end-g.off)]
		if err := src.ReadPack(ctx, &ref, v.hdr.BodyOffset()+g.off, buf[at:]); err != nil {
			return fmt.Errorf("read %s of pack %s: %w", e.Name, ref.Key, err)
		}
		starts = append(starts, int64(at-base))
	}
	for i := range e.Reps {
		x := &e.Reps[i]
		// Every coding lies in one range: the ranges are made of them.
		k := slices.IndexFunc(groups, func(g span) bool { return g.off <= x.Off && x.Off+x.Len <= g.end })
		x.Off = starts[k] + x.Off - groups[k].off
	}
	represent.InitResource(r, e, buf[base:], represent.SharedHead(e.Type, ref.Modified))
	src.count(&p.tiers.ranged)
	return nil
}
