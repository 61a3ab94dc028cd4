// Package packs is the edge's pack tiers: published packs decoded in a
// bounded memory cache, kept whole on a bounded local disk, and read from
// the store whole or by ranges, one load per pack however many requests
// wait; the health of the store as those reads find it; and one entry of a
// pack served as the answer (Serve).
package packs

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"iter"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire/problem"
)

// View is what the memory tier holds under one key: a decoded pack with
// its entries ready to serve; or (partial != nil) only a pack's header
// (hdr), for ranged reads of its entries; or (res != nil) one entry read so,
// kept under its own key (entryKey) so that it stays in memory as long
// as it is asked for, whether or not its pack's header does.
type View struct {
	// A hit reads used and the index: they come first, in one line.

	// used is set by requests that found the view in a Slot, which
	// the cache's lookups do not see; the cache gives such a view the
	// second chance a lookup's mark gives (Referenced).
	used  atomic.Bool
	index entryIndex // every entry; empty when partial

	pack    *publish.Pack
	size    int64
	partial *partialPack

	// An entry read by range has its resource right after its view
	// (rangedEntry), where a hit under an entry's key takes it from
	// (entryOf); this word keeps the view a whole number of lines, so
	// that the resource's codings each lie in one.
	_ uint64

	slotsMu sync.Mutex
	slots   []*Slot // the slots holding this view
	cached  bool    // in the pack cache: only then may a slot take it

	hdr publish.Header // the pack's header, when partial

	// 192 bytes in all, an allocation size class of
	// whole cache lines, so that the view starts a line and its first
	// line is the hit's one.
}

// Slot keeps a whole pack in memory for the requests of one chapter,
// so that they skip the pack cache's map lookup and lock. It holds only
// what the cache holds: a view is put in a slot only while cached (a pack
// too large for the cache never is), and the cache empties the view's
// slots when it evicts it (View.drop), so the cache's bound stays the
// bound on memory. Pack is the chapter's pack's name in the tier's keys
// (IDOf), made when its build is loaded, so that a lookup of one of its
// entries does not read the pack key's bytes (a line of their own, which
// over a catalogue no processor cache holds); zero when not known, and
// then made from the key at each lookup.
type Slot struct {
	atomic.Pointer[View]
	Pack PackID
}

// PackID names a pack in the memory tier's keys of its entries
// (entryKey): a 128-bit hash of its key, of two seeds made for the
// process (IDOf). Two keys hash alike with a chance of about one in
// 2^128 for a pair, as the cache's own keys do (cache.LRU).
type PackID [16]byte

var idSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// IDOf is the PackID of the pack named key.
func IDOf(key string) (id PackID) {
	binary.LittleEndian.PutUint64(id[:8], maphash.String(idSeeds[0], key))
	binary.LittleEndian.PutUint64(id[8:], maphash.String(idSeeds[1], key))
	return id
}

// of is id, made from key when zero (a slot whose pack was not named).
func (id *PackID) of(key string) PackID {
	if *id == (PackID{}) {
		*id = IDOf(key)
	}
	return *id
}

// Pack is the decoded pack (nil when read by ranges).
func (v *View) Pack() *publish.Pack { return v.pack }

// Entries yields every entry's name and resource, in the pack's order; a
// pack read by ranges has none.
func (v *View) Entries() iter.Seq2[string, *represent.Resource] { return v.index.all() }

// touch marks v used, writing only when it was not: a hot pack's line
// stays shared between cores.
func (v *View) touch() {
	if !v.used.Load() {
		v.used.Store(true)
	}
}

// attach puts v in slot, if v is in the cache.
func (v *View) attach(slot *Slot) {
	v.slotsMu.Lock()
	defer v.slotsMu.Unlock()
	if !v.cached || slot.Load() == v {
		return
	}
	slot.Store(v)
	v.slots = append(v.slots, slot)
}

// keep is the cache taking v in.
func (v *View) keep() {
	v.slotsMu.Lock()
	v.cached = true
	v.slotsMu.Unlock()
}

// drop is the cache letting v go: every slot holding v lets it go.
func (v *View) drop() {
	v.slotsMu.Lock()
	defer v.slotsMu.Unlock()
	v.cached = false
	for _, s := range v.slots {
		s.CompareAndSwap(v, nil)
	}
	v.slots = nil
}

func newPackView(data []byte, ref publish.PackRef) (*View, error) {
	p, err := publish.DecodePack(data)
	if err != nil {
		return nil, fmt.Errorf("decode pack %s: %w", ref.Key, err)
	}
	// The object's buffer holds every body; the decoded header and the
	// resources are the rest.
	return packViewOf(p, cache.AllocSize(cap(data))+p.HeaderSize(cache.AllocSize[int64]), ref), nil
}

// packViewOf prepares the entries of a decoded pack of size bytes.
func packViewOf(p *publish.Pack, size int64, ref publish.PackRef) *View {
	v := &View{pack: p, index: newEntryIndex(p, ref.Modified), size: size}
	// Bodies are slices of data, already counted; the names are the
	// entries' own strings; the rest is the index's two slices.
	x := &v.index
	v.size += cache.AllocSize(int64(len(x.res))*int64(unsafe.Sizeof(represent.Resource{}))) +
		cache.AllocSize(int64(len(x.names.slots))*int64(unsafe.Sizeof(nameSlot{})))
	return v
}

// What the caches count is what their entries cost on the heap, so that
// their bounds bound the edge's memory: every allocation rounded up to its
// size class (cache.AllocSize), the maps' slots, the decoded pack header
// (publish.Pack.HeaderSize).
// The edge's TestCacheAccounting and TestPackCacheAccounting hold the
// figures within 10 % of the heap's growth.

// Packs holds packs in tiers: decoded in a bounded memory LRU, whole on a
// bounded local disk (optional), and in the store. A miss loads once
// however many requests want the pack at the same moment. A pack missed is
// read by ranges, from the disk when it is there: the header, then only the
// entries asked for; a pack read widely is then held whole (see
// storecache.go). Every read from the store is observed: its outcome
// is the store's health (readiness) and metrics.
type Packs struct {
	store publish.Store // observed
	// cache holds whole packs and entries read by range; headers holds
	// the headers of packs read by range, apart and in at most a share of
	// the bound (headerShare), so that they do not crowd out entries; the
	// cache's bound is what the headers leave (bound).
	cache   *cache.LRU[*View]
	headers *cache.LRU[*View]
	// headerSeen: which packs' headers were read from the disk lately;
	// such a header is held from its second read (scratchHeader).
	headerSeen *doorkeeper
	// entrySeen: which entries were read by range lately; the tier takes
	// one in from its second read, when the caller lends (lendEntry).
	entrySeen *doorkeeper
	// reserveMu guards reserved: memory held outside the tiers that
	// their bound leaves room for (Reserve); the cache of packs and
	// entries holds cacheMax less it and less what the headers hold. It
	// also orders the changes of the cache's bound (bound).
	reserveMu sync.Mutex
	cacheMax  int64
	reserved  int64
	disk      *diskCache // nil when off
	// local: the store is a directory, whose reads are as local as the
	// disk cache's; packs read from it are not copied onto the disk
	// unless Config.CopyLocal says so.
	local    bool
	dir      bool  // the store is a directory (publish.Dir), local or not
	wholeMax int64 // packs up to this size are fetched whole onto the disk on their first miss; <= 0: always whole, into memory
	// wholeFirst fetches packs up to wholeMax whole on their first miss.
	wholeFirst bool
	tiers      tierCounters
	health     health

	mu      sync.Mutex
	flight  cache.Flights[*View]
	warming cache.Flights[struct{}]            // packs being fetched onto the disk cache
	entries cache.Flights[*represent.Resource] // entries being read by range, by entryKey
}

// Config is what New needs.
type Config struct {
	// Store is where packs come from; a directory store is made to keep
	// the pack files it read last open (publish.Dir.KeepOpen).
	Store    publish.Store
	MaxBytes int64 // the memory tier's bound
	// WholeMax is the largest pack fetched whole onto the disk cache on
	// its first miss (storecache.go); every pack is read into memory by
	// entries (0: DefaultWholeMax; negative: always whole into memory, at
	// once).
	WholeMax int64
	// WholeFirst fetches packs up to WholeMax whole on their first miss.
	WholeFirst bool
	// DiskDir keeps whole packs on local disk, up to DiskBytes; "" turns
	// the disk tier off.
	DiskDir   string
	DiskBytes int64
	// CopyLocal keeps the packs of a directory store on the disk cache
	// too: for a directory on a volume that may go away (a network
	// mount), which the disk cache then serves through.
	CopyLocal bool
}

// New opens the tiers (the disk cache's directory, when there is one).
func New(cfg Config) (*Packs, error) {
	hb := cfg.MaxBytes / headerShare
	c := cache.New[*View](cfg.MaxBytes)
	c.Kept, c.Dropped = (*View).keep, (*View).drop
	c.Referenced = func(v *View) bool { return v.used.Swap(false) }
	p := &Packs{cache: c, headers: cache.New[*View](hb), cacheMax: cfg.MaxBytes, flight: make(cache.Flights[*View]), warming: make(cache.Flights[struct{}]), entries: make(cache.Flights[*represent.Resource]), wholeMax: cfg.WholeMax, wholeFirst: cfg.WholeFirst}
	// As many headers back as the headers' share holds of a chapter's.
	p.headerSeen = newDoorkeeper(int(hb / (8 << 10)))
	// And as many entries back as the tier holds of a verse's (about 2
	// KiB, with its codings and what the tier counts besides) beside a
	// full share of headers.
	p.entrySeen = newDoorkeeper(int((cfg.MaxBytes - hb) / (2 << 10)))
	p.store = p.Observe(cfg.Store)
	d, dir := cfg.Store.(*publish.Dir)
	p.dir = dir
	if dir && !cfg.CopyLocal {
		p.local = true
		// A pack missed is read by ranges, its header and then its
		// entry, from its volume, held open.
		d.KeepOpen(openVolumes)
	}
	if p.wholeMax == 0 {
		p.wholeMax = DefaultWholeMax
	}
	if cfg.DiskDir != "" {
		d, err := openDiskCache(cfg.DiskDir, cfg.DiskBytes)
		if err != nil {
			return nil, err
		}
		p.disk = d
	}
	return p, nil
}

// Cache is the memory tier's packs and entries: its counts for /metrics.
func (p *Packs) Cache() *cache.LRU[*View] { return p.cache }

// Clear empties the memory tier (packs, entries and headers) without
// telling the packs' slots: for measuring what it held.
func (p *Packs) Clear() {
	p.cache.Clear()
	p.headers.Clear()
	p.bound()
}

// Reserve counts n bytes (negative: gives them back) held outside the
// memory tier but decoded from its packs and kept for a build's life (a
// Bible's decoded index, site.Bible.Index): the tier holds as much less,
// so that its bound stays a bound on what packs cost the edge.
func (p *Packs) Reserve(n int64) {
	p.reserveMu.Lock()
	p.reserved += n
	p.reserveMu.Unlock()
	p.bound()
}

// bound sets the bound of the cache of packs and entries: the memory
// tier's, less what is reserved and what the headers hold now. The
// headers' share is a ceiling, not a partition: what they do not hold
// (a small catalogue's few, the first minutes' few) is the entries'.
func (p *Packs) bound() {
	p.reserveMu.Lock()
	defer p.reserveMu.Unlock()
	_, h := p.headers.Stats()
	p.cache.SetMax(max(p.cacheMax-p.reserved-h, 0))
}

// Reserved is what Reserve holds now.
func (p *Packs) Reserved() int64 {
	p.reserveMu.Lock()
	defer p.reserveMu.Unlock()
	return p.reserved
}

// Bytes is what the memory tier holds: packs, entries and headers.
func (p *Packs) Bytes() int64 {
	_, b := p.cache.Stats()
	_, h := p.headers.Stats()
	return b + h
}

// storeLoadTimeout bounds one load from the store (a pack, a header or an
// entry). A load is shared by every request waiting for it, so it is not
// tied to any one request's context.
const storeLoadTimeout = 30 * time.Second

// loadContext is the context of one load from the store: bounded by
// storeLoadTimeout, but for a directory store, whose reads take no
// context, so that a timer would be all the bound did.
func (p *Packs) loadContext() (context.Context, context.CancelFunc) {
	if p.dir {
		return context.Background(), func() {}
	}
	return context.WithTimeout(context.Background(), storeLoadTimeout)
}

// Get returns the whole pack.
func (p *Packs) Get(ctx context.Context, ref publish.PackRef) (*View, error) {
	if v, ok := p.cache.Get(ref.Key); ok && v.partial == nil {
		p.tiers.memory.Inc()
		return v, nil
	}
	return p.load(ctx, ref, ref.Key, p.loadWhole)
}

// load runs fn for ref once for all callers asking under the same flight
// key at the same time, and caches a successful result in memory.
func (p *Packs) load(ctx context.Context, ref publish.PackRef, flight string,
	fn func(context.Context, publish.PackRef) (*View, error)) (*View, error) {
	p.mu.Lock()
	v, ok := p.cache.Peek(ref.Key)
	if !ok && flight != ref.Key {
		v, ok = p.headers.Peek(ref.Key)
	}
	if ok {
		// Loaded by someone else since the caller looked.
		p.mu.Unlock()
		return v, nil
	}
	c, lead := p.flight.Join(flight)
	p.mu.Unlock()
	if !lead {
		return c.Wait(ctx)
	}

	lctx, cancel := p.loadContext()
	c.Val, c.Err = fn(lctx, ref)
	cancel()
	switch {
	case c.Err != nil:
	case c.Val.partial != nil:
		p.headers.Add(ref.Key, c.Val, c.Val.size)
		p.bound()
	default:
		p.cache.Add(ref.Key, c.Val, c.Val.size)
	}
	p.mu.Lock()
	delete(p.flight, flight)
	p.mu.Unlock()
	c.Land()
	return c.Val, c.Err
}

// loadWhole reads a whole pack from the disk cache, else from the store
// (and then keeps it on disk).
func (p *Packs) loadWhole(ctx context.Context, ref publish.PackRef) (*View, error) {
	if data, ok := p.disk.get(ref.Key); ok {
		if ref.Size <= 0 || int64(len(data)) == ref.Size {
			if v, err := newPackView(data, ref); err == nil {
				p.tiers.disk.Inc()
				return v, nil
			}
		}
		// Damaged on disk: forget it and fetch it again.
		p.disk.remove(ref.Key)
	}
	data, err := publish.GetPack(ctx, p.store, &ref)
	if err != nil {
		return nil, fmt.Errorf("load pack %s: %w", ref.Key, err)
	}
	p.tiers.store.Inc()
	v, err := newPackView(data, ref)
	if err != nil {
		return nil, err
	}
	// A full or read-only disk costs warmth, not answers: the error is
	// counted in the disk cache's metrics.
	if !p.local {
		p.disk.put(ref.Key, data)
	}
	return v, nil
}

// Serve answers with one entry of one pack (404 with missing when there is
// none, 503 when the pack cannot be loaded); name is built by the caller in
// a stack buffer so that the lookup does not allocate. slot, when not nil,
// is where the pack is kept for its next requests (a chapter's).
func (p *Packs) Serve(ctx *fasthttp.RequestCtx, log *slog.Logger, slot *Slot, ref *publish.PackRef, name []byte, private bool, missing problem.Text) {
	res, lent, err := p.Borrow(ctx, slot, ref, name, &ctx.Request.Header)
	if err != nil {
		respond.Fail(ctx, log, problem.Unavailable, "cannot load pack", err)
		return
	}
	if res == nil {
		respond.Answer(ctx, problem.NotFound, missing)
		return
	}
	represent.Serve(ctx, res, private)
	if lent != nil {
		// The answer's body is the lent buffer's until copied into the
		// response's own (fasthttp's, pooled).
		ctx.Response.SetBody(ctx.Response.Body())
		p.GiveBack(lent)
	}
}
