package packs

import (
	"context"
	"fmt"

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
	_, err := p.warm(ctx, ref)
	return err
}

// warm is Warm, returning the pack's bytes when it fetched them.
func (p *Packs) warm(ctx context.Context, ref publish.PackRef) ([]byte, error) {
	if p.disk == nil || p.local || p.disk.has(ref.Key) {
		return nil, nil
	}
	data, err := p.store.Get(ctx, ref.Key)
	if err != nil {
		return nil, fmt.Errorf("warm pack %s: %w", ref.Key, err)
	}
	p.tiers.store.Inc()
	if ref.Size > 0 && int64(len(data)) != ref.Size {
		return nil, fmt.Errorf("warm pack %s: %d bytes, the build says %d", ref.Key, len(data), ref.Size)
	}
	p.disk.put(ref.Key, data)
	return data, nil
}
