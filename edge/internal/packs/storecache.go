package packs

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/publish"
)

// Ranged reads and admission. A pack's header (its entries with their
// offsets) comes first, so an edge can read it with one GetRange and then
// each entry it needs with another, rather than the whole pack.
//
// A pack missed for the first time is read so: its header (6 KiB for the
// median chapter pack of 100 KiB) and the entry asked for. Over a large
// catalogue most distinct requests are rare (Zipf), and a chapter pack
// loaded whole for one of its 140 entries evicts another to hold 139 that
// will not be asked for. A second entry asked for from a pack of at most
// DefaultWholeMax is its second miss: the pack is then fetched whole (and
// kept on the disk cache), since it answers every neighbouring verse and
// variant from memory after. A larger pack (the Bible pack, 6.4 MiB; Psalm
// 119's 680 KiB chapter) stays read by ranges until promoteAfter of its
// entries have been read. A pack on the disk cache is read whole: it was
// wanted twice already.
const (
	// DefaultWholeMax is the largest pack fetched whole on its second miss.
	DefaultWholeMax = 256 << 10
	// headerProbe is the first ranged read: the prefix and, for most
	// packs, the whole header (the 90th percentile of the catalogue's is
	// 10 KiB). A longer header takes one more read.
	headerProbe = 16 << 10
	// promoteAfter entries read by range from one pack make it worth
	// fetching whole in the background (and keeping it on disk): it is
	// evidently being read widely.
	promoteAfter = 16
	// mergeGap: codings of one entry are stored next to each other, but
	// identical bodies are stored once and may sit elsewhere. Ranges less
	// than this apart are read together.
	mergeGap = 4 << 10
)

// tierCounters count which tier answered a pack lookup.
type tierCounters struct {
	memory metrics.HotCounter // a decoded pack, or an entry already read by range, in memory
	disk   metrics.Counter    // a whole pack read from the disk cache
	store  metrics.Counter    // a whole pack fetched from the store
	header metrics.Counter    // a pack header fetched by ranged read
	ranged metrics.Counter    // an entry fetched by ranged read
}

// partialPack is the state of a pack known only by its header: the entries
// read so far, and the reads in flight.
type partialPack struct {
	ref publish.PackRef

	mu      sync.Mutex
	res     map[string]*represent.Resource
	flight  cache.Flights[*represent.Resource]
	fetched int
	promote bool
}

// Entry returns the resource name of pack ref, nil when the pack has no
// such entry. slot, when not nil, is where the caller keeps the pack
// (a chapter's): a pack found there is used at once, and a pack found whole
// in memory is put there for next time. A hit on a whole pack in memory
// does not allocate.
func (p *Packs) Entry(ctx context.Context, slot *Slot, ref *publish.PackRef, name []byte) (*represent.Resource, error) {
	if slot != nil {
		if v := slot.Load(); v != nil {
			v.touch()
			p.cache.Hit()
			p.tiers.memory.Inc()
			return v.index.find(name), nil
		}
	}
	v, err := p.view(ctx, *ref, name)
	if err != nil {
		return nil, err
	}
	if v.partial != nil {
		return p.partialEntry(ctx, v, name)
	}
	if slot != nil {
		v.attach(slot)
	}
	return v.index.find(name), nil
}

// view returns pack ref in memory, for a request of its entry name:
// whole, or (v.partial != nil) its header for ranged reads of its entries.
func (p *Packs) view(ctx context.Context, ref publish.PackRef, name []byte) (*View, error) {
	small := p.wholeMax <= 0 || ref.Size <= p.wholeMax
	if v, ok := p.cache.Get(ref.Key); ok {
		if v.partial == nil {
			p.tiers.memory.Inc()
			return v, nil
		}
		if !small || v.has(name) {
			return v, nil
		}
		// The second miss of a small pack.
		return p.load(ctx, ref, ref.Key, p.loadWhole)
	}
	if p.wholeMax <= 0 || small && (p.wholeFirst || p.missed.again(ref.Key)) || p.disk.has(ref.Key) {
		return p.load(ctx, ref, ref.Key, p.loadWhole)
	}
	return p.load(ctx, ref, "header "+ref.Key, p.loadHeader)
}

// loadHeader reads a pack's header with one ranged read (two when it is
// longer than headerProbe).
func (p *Packs) loadHeader(ctx context.Context, ref publish.PackRef) (*View, error) {
	pk, err := publish.LoadPackHeader(ctx, p.store, ref, headerProbe)
	if err != nil {
		return nil, fmt.Errorf("read pack header %s: %w", ref.Key, err)
	}
	p.tiers.header.Inc()
	return &View{
		pack: pk,
		size: pk.HeaderSize(cache.AllocSize[int64]),
		partial: &partialPack{
			ref:    ref,
			res:    make(map[string]*represent.Resource),
			flight: make(cache.Flights[*represent.Resource]),
		},
	}, nil
}

// has reports whether the entry name of a pack known by its header was
// read, or is not in the pack.
func (v *View) has(name []byte) bool {
	pp := v.partial
	pp.mu.Lock()
	_, ok := pp.res[string(name)]
	pp.mu.Unlock()
	return ok || v.pack.Index(string(name)) < 0
}

// partialEntry returns an entry of a pack known by its header, reading it
// by range the first time.
func (p *Packs) partialEntry(ctx context.Context, v *View, name []byte) (*represent.Resource, error) {
	pp := v.partial
	pp.mu.Lock()
	if r, ok := pp.res[string(name)]; ok {
		pp.mu.Unlock()
		p.tiers.memory.Inc()
		return r, nil
	}
	key := string(name)
	e := v.pack.Entry(key)
	if e == nil {
		pp.mu.Unlock()
		return nil, nil
	}
	c, lead := pp.flight.Join(key)
	pp.mu.Unlock()
	if !lead {
		return c.Wait(ctx)
	}

	lctx, cancel := context.WithTimeout(context.Background(), storeLoadTimeout)
	c.Val, c.Err = p.readEntry(lctx, v, e)
	cancel()
	pp.mu.Lock()
	delete(pp.flight, key)
	promote := false
	if c.Err == nil {
		pp.res[key] = c.Val
		v.size += c.Val.Size() + cache.AllocSize(len(key)) + cache.MapEntryCost
		pp.fetched++
		if pp.fetched >= promoteAfter && !pp.promote {
			pp.promote, promote = true, true
		}
	}
	size := v.size
	pp.mu.Unlock()
	c.Land()
	if c.Err == nil {
		p.tiers.ranged.Inc()
		p.cache.Resize(pp.ref.Key, size, func(x *View) bool { return x == v })
	}
	if promote {
		go p.load(context.Background(), pp.ref, pp.ref.Key, p.loadWhole)
	}
	return c.Val, c.Err
}

// readEntry reads every coding of one entry, in as few ranged reads as
// their layout allows, as a one-entry pack (publish.WithBodies) so that the
// resource is prepared by the same code as a whole pack's.
func (p *Packs) readEntry(ctx context.Context, v *View, e *publish.Entry) (*represent.Resource, error) {
	ref := v.partial.ref
	type span struct{ off, end int64 }
	var spans []span
	for _, r := range e.Reps {
		spans = append(spans, span{r.Off, r.Off + r.Len})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].off < spans[j].off })
	var groups []span
	for _, s := range spans {
		if k := len(groups) - 1; k >= 0 && s.off <= groups[k].end+mergeGap {
			groups[k].end = max(groups[k].end, s.end)
			continue
		}
		groups = append(groups, s)
	}
	var bodies []byte
	starts := make([]int64, len(groups)) // where each group lands in bodies
	for i, g := range groups {
		b, err := p.store.GetRange(ctx, ref.Key, v.pack.BodyOffset()+g.off, g.end-g.off)
		if err != nil {
			return nil, fmt.Errorf("read %s of pack %s: %w", e.Name, ref.Key, err)
		}
		starts[i] = int64(len(bodies))
		bodies = append(bodies, b...)
	}
	offs := make([]int64, len(e.Reps))
	for i, r := range e.Reps {
		for k, g := range groups {
			if g.off <= r.Off && r.Off+r.Len <= g.end {
				offs[i] = starts[k] + r.Off - g.off
				break
			}
		}
	}
	pk, err := publish.WithBodies(e, bodies, offs)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", ref.Key, err)
	}
	r := new(represent.Resource)
	one := pk.At(0)
	represent.InitResource(r, pk, &one, represent.SharedHead(e.Type, ref.Modified))
	return r, nil
}
