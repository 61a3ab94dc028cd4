package packs

import (
	"context"

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
