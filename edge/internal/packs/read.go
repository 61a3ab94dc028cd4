package packs

import (
	"context"
	"fmt"
	"sync"

	"github.com/bibleplatform/platform/publish"
)

// Read returns the identity bytes of one entry of a whole pack, for a
// caller that decodes them into something it keeps itself (a search
// index): a pack the memory tier holds is read there, another is loaded
// from the disk cache or the store without entering the memory tier, where
// it would only push out packs that requests read.
func (p *Packs) Read(ctx context.Context, ref publish.PackRef, name string) ([]byte, error) {
	if v, ok := p.cache.Peek(ref.Key); ok && v.partial == nil {
		p.tiers.memory.Inc()
		return v.pack.Raw(name)
	}
	v, err := p.loadWhole(ctx, ref)
	if err != nil {
		return nil, err
	}
	return v.pack.Raw(name)
}

// Warm puts a pack on the disk cache, fetching it from the store when the
// disk does not hold it, without decoding it or keeping it in memory: an
// edge started during a store outage then finds it there. Without a disk
// cache, or from a directory store the disk does not copy (Config.CopyLocal),
// it does nothing.
func (p *Packs) Warm(ctx context.Context, ref publish.PackRef) error {
	data, err := p.warm(ctx, ref)
	p.release(data)
	return err
}

// fetched are the buffers that packs of at most wholeMax are fetched into
// on their way onto the disk cache (warm). At catalogue scale from a
// remote store hundreds a second are (a pack's first miss fetches it
// whole), and each buffer was garbage as soon as its first entry was read
// from it: tens of megabytes a second that paced the collector.
var fetched sync.Pool // *[]byte

// fetchRoom is the least a buffer in fetched holds (or wholeMax, when
// less: release keeps no larger one): 98 % of the scale benchmark's 67,000
// packs are at most 256 KiB; a larger pack takes a buffer its size (at
// most wholeMax).
const fetchRoom = 256 << 10

// warm is Warm, returning the pack's bytes when it fetched them; the
// caller gives them back with release once it has read from them.
func (p *Packs) warm(ctx context.Context, ref publish.PackRef) ([]byte, error) {
	if p.disk == nil || p.local || p.disk.has(ref.Key) {
		return nil, nil
	}
	var buf []byte
	if ref.Size > 0 && ref.Size <= p.wholeMax {
		if b, ok := fetched.Get().(*[]byte); ok {
			buf = *b
		}
		if int64(cap(buf)) < ref.Size {
			// Room for most packs fetched so: a buffer sized to its
			// first pack was grown again for each larger one.
			buf = make([]byte, 0, max(ref.Size, min(fetchRoom, p.wholeMax)))
		}
	}
	data, err := publish.AppendPack(ctx, p.store, &ref, buf[:0])
	if err != nil {
		p.release(data)
		return nil, fmt.Errorf("warm pack %s: %w", ref.Key, err)
	}
	p.tiers.store.Inc()
	if ref.Size > 0 && int64(len(data)) != ref.Size {
		p.release(data)
		return nil, fmt.Errorf("warm pack %s: %d bytes, the build says %d", ref.Key, len(data), ref.Size)
	}
	p.disk.put(ref.Key, data)
	return data, nil
}

// release gives back a buffer warm fetched into, for the next fetch: a
// buffer of more than wholeMax (a pack fetched by Warm alone) is left to
// the collector.
func (p *Packs) release(data []byte) {
	if data == nil || int64(cap(data)) > p.wholeMax {
		return
	}
	data = data[:0]
	fetched.Put(&data)
}
