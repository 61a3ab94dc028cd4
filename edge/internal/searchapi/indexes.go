package searchapi

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
)

// A Bible's decoded search index takes tens of megabytes (search.Index.Size:
// 26 MB for the UHB, 39 MB for the WEB), far more than its published
// objects, so a catalogue's indexes do not all fit in memory. The Bible's
// Search slot holds its index for the requests (no lock, no allocation),
// and the cache of indexes bounds what the slots hold in all: it counts
// each index's Size and lets the least recently used go from its slot;
// the next search of that Bible loads it again through the pack tiers
// (the disk cache keeps its objects).

// DefaultIndexCacheBytes bounds the decoded indexes an edge holds unless
// configured: a dozen Bibles the size of the WEB.
const DefaultIndexCacheBytes = 512 << 20

// heldIndex is an index in a Bible's Search slot and in the cache.
type heldIndex struct {
	x    *search.Index
	slot *site.Slot
	used atomic.Bool // searched since the cache last asked (Referenced)
}

// newHeldIndex returns x held in slot, used: it is made for a search, and
// a new index the cache let go again before its next search would load
// on every search of its Bible while another stays.
func newHeldIndex(x *search.Index, slot *site.Slot) *heldIndex {
	h := &heldIndex{x: x, slot: slot}
	h.used.Store(true)
	return h
}

// newIndexCache returns the cache of indexes, bounded by maxBytes
// (New gives DefaultIndexCacheBytes for 0).
func newIndexCache(maxBytes int64) *cache.LRU[*heldIndex] {
	c := cache.New[*heldIndex](maxBytes)
	c.Dropped = func(h *heldIndex) { site.Forget(h.slot, h) }
	c.Referenced = func(h *heldIndex) bool { return h.used.Swap(false) }
	return c
}

// indexKey names a Bible's index in the cache: a new build whose index
// has the same source takes the decoded index over instead of loading it.
func indexKey(bv *site.Bible) string {
	return strconv.Itoa(int(bv.ID)) + "/" + bv.Entry.Search.Source
}

// heldIndexOf returns what bv's Search slot holds (nil: nothing), marking
// it used.
func heldIndexOf(bv *site.Bible) *heldIndex {
	h := site.Load[heldIndex](&bv.Search)
	if h != nil && !h.used.Load() {
		h.used.Store(true)
	}
	return h
}

// searchIndex returns the Bible's decoded search index (nil when its
// build has none), loading it through the pack tiers (memory, disk cache,
// store) when its slot holds none.
func (s *Routes) searchIndex(ctx context.Context, bv *site.Bible) (*search.Index, error) {
	if bv.Entry.Search == nil {
		return nil, nil
	}
	if h := heldIndexOf(bv); h != nil {
		return h.x, nil
	}
	made := false
	h, err := site.Make(&bv.Search, func() (*heldIndex, error) {
		key := indexKey(bv)
		if old, ok := s.indexes.Peek(key); ok {
			made = true
			return newHeldIndex(old.x, &bv.Search), nil
		}
		x, err := search.Load(bv.Entry.Search, func(ref publish.PackRef) ([]byte, error) {
			return s.packs.Read(ctx, ref, publish.NameSearch)
		})
		if err != nil {
			return nil, fmt.Errorf("bible %d: %w", bv.ID, err)
		}
		made = true
		s.indexLoads.Inc()
		return newHeldIndex(x, &bv.Search), nil
	})
	if err != nil {
		return nil, err
	}
	if made {
		// After Make has stored it: the cache may let it go at once, and
		// does not take an index larger than its bound, which then serves
		// this search only.
		key := indexKey(bv)
		s.indexes.Add(key, h, h.x.Size())
		if v, ok := s.indexes.Peek(key); !ok || v != h {
			site.Forget(h.slot, h)
		}
	}
	return h.x, nil
}

// warmSearchIndexes puts a new build's search indexes on the disk cache in
// the background, for an edge that restarts during a store outage. It
// does not decode them: a decoded index is tens of megabytes that would
// sit in the heap (and in every collection's marking) for Bibles nobody
// searches; the first search of a Bible decodes its index, from the disk.
func (s *Routes) warmSearchIndexes(st *site.Site) {
	for _, bv := range st.Bibles {
		e := bv.Entry.Search
		if e == nil {
			continue
		}
		var err error
		e.Packs(func(ref *publish.PackRef) {
			if err == nil && s.site.Load() == st { // else a newer build came in: it warms its own
				err = s.packs.Warm(context.Background(), *ref)
			}
		})
		if err != nil {
			s.log.Warn("search: cannot fetch an index object; it is fetched on the first search", "bible", bv.ID, "err", err)
		}
	}
}

// loadSearchIndexes decodes every Bible's search index of st (within the
// cache's bound: the least recently loaded go first).
func (s *Routes) loadSearchIndexes(st *site.Site) {
	for _, bv := range st.Bibles {
		if _, err := s.searchIndex(context.Background(), bv); err != nil {
			s.log.Warn("search: cannot load index; it loads on the first search", "bible", bv.ID, "err", err)
		}
	}
}

// IndexStats is the cache of indexes' figures for /metrics: how many
// indexes it holds, their bytes, and how many loads there were.
func (s *Routes) IndexStats() (held int, bytes int64, loads uint64) {
	held, bytes = s.indexes.Stats()
	return held, bytes, s.indexLoads.Load()
}
