package build

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/bibleplatform/platform/publish"
)

// VolumeBytes is about how large a volume grows: the packs a build writes
// go into volume objects of up to this many bytes (a pack larger than that
// is a volume alone), so that a store of 50 Bibles is about 220 files
// rather than 67,000 and an edge reads a pack by offset in a file it holds
// open, where it opened a file for each pack it missed (a tenth of the CPU
// of a catalogue-scale request: docs/edge.md, twentieth round). Smaller
// volumes cost the build less memory (memoryVolumes) and an upload less
// to retry; larger ones, more files held open.
const VolumeBytes = 32 << 20

// volumePrefix starts a volume's key: under the packs' prefix, so that a
// collection of orphans lists volumes with packs, and named by a hash of
// its bytes.
const volumePrefix = publish.PackPrefix + "v/"

// volumes gathers the packs a build writes and writes them out a volume
// at a time. A pack added is placed only once its volume is written
// (place), so that no reference names a volume that is not in the store:
// the manifest's references are completed at the end of the build.
type volumes struct {
	store publish.Store
	max   int64

	mu      sync.Mutex
	buf     []byte
	packs   []placed        // the packs in buf, at their offsets
	added   map[string]bool // every pack added, written or in buf
	written map[string]placed
	objects int // volumes written
}

// placed is where a pack lies in a volume.
type placed struct {
	key, volume string
	off, size   int64
}

func newVolumes(s publish.Store, max int64) *volumes {
	return &volumes{store: s, max: max, added: map[string]bool{}, written: map[string]placed{}}
}

// add queues pack key's bytes for a volume, unless it was added before:
// false then. When the volume is full it is written, by the caller that
// filled it, while the others go on adding to the next.
func (v *volumes) add(ctx context.Context, key string, data []byte) (bool, error) {
	v.mu.Lock()
	if v.added[key] {
		v.mu.Unlock()
		return false, nil
	}
	v.added[key] = true
	var full []byte
	var fullPacks []placed
	if len(v.buf) > 0 && int64(len(v.buf)+len(data)) > v.max {
		full, fullPacks = v.take()
	}
	v.packs = append(v.packs, placed{key: key, off: int64(len(v.buf)), size: int64(len(data))})
	if need := len(v.buf) + len(data); need > cap(v.buf) {
		// Doubled up to the volume's size: append grows a large slice
		// by a quarter, which copied a volume four times over.
		b := make([]byte, len(v.buf), max(need, min(2*cap(v.buf), int(v.max)), 64<<10))
		copy(b, v.buf)
		v.buf = b
	}
	v.buf = append(v.buf, data...)
	v.mu.Unlock()
	return true, v.write(ctx, full, fullPacks)
}

// take hands over the volume being filled; v.mu is held.
func (v *volumes) take() ([]byte, []placed) {
	buf, packs := v.buf, v.packs
	v.buf, v.packs = nil, nil
	return buf, packs
}

// flush writes the volume being filled, if any.
func (v *volumes) flush(ctx context.Context) error {
	v.mu.Lock()
	buf, packs := v.take()
	v.mu.Unlock()
	return v.write(ctx, buf, packs)
}

// write puts one volume, named by its bytes, and records where its packs
// lie. The volume ends with its index (volumeIndex), so that a build
// interrupted before its manifest leaves volumes the next build reuses
// (found).
func (v *volumes) write(ctx context.Context, buf []byte, packs []placed) error {
	if len(packs) == 0 {
		return nil
	}
	buf = appendVolumeIndex(buf, packs)
	sum := sha256.Sum256(buf)
	key := volumePrefix + hex.EncodeToString(sum[:20])
	if err := v.store.Put(ctx, key, buf); err != nil {
		return fmt.Errorf("write volume %s (%d packs): %w", key, len(packs), err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, p := range packs {
		p.volume = key
		v.written[p.key] = p
	}
	v.objects++
	return nil
}

// place completes the references of m to the packs written: every
// reference to a pack added, which until then names no object.
func (v *volumes) place(m *publish.Manifest) error {
	var missing []string
	m.Packs(func(r *publish.PackRef) {
		p, ok := v.written[r.Key]
		switch {
		case ok:
			r.Volume, r.Offset = p.volume, p.off
		case v.added[r.Key]:
			missing = append(missing, r.Key)
		}
	})
	if len(missing) > 0 {
		// A volume not flushed: a fault of the build, not of its input.
		return fmt.Errorf("build: %d packs of the manifest were never written (%s…)", len(missing), missing[0])
	}
	return nil
}

// repack moves out of a volume of an earlier build the packs m still names
// in it when they are less than half of its bytes, so that what dead
// packs hold of a store stays below what its live ones do: a volume is
// written once, and the packs of a book changed since stay in it until no
// kept build names any of them. It reads each live pack (not the whole
// volume) and adds it to a new volume; place then points m at it.
func (b *builder) repack(ctx context.Context, m *publish.Manifest) error {
	packs := map[string][]publish.PackRef{} // by volume
	seen := map[string]bool{}
	m.Packs(func(r *publish.PackRef) {
		if r.Volume == "" || seen[r.Key] {
			return
		}
		seen[r.Key] = true
		packs[r.Volume] = append(packs[r.Volume], *r)
	})
	for _, vol := range slices.Sorted(maps.Keys(packs)) {
		size, err := b.opt.Store.Stat(ctx, vol)
		if err != nil {
			return fmt.Errorf("build: volume %s of the current build: %w", vol, err)
		}
		var live int64
		for _, r := range packs[vol] {
			live += r.Size
		}
		if 2*live >= size {
			continue
		}
		for _, r := range packs[vol] {
			data, err := publish.GetPack(ctx, b.opt.Store, &r)
			if err != nil {
				return fmt.Errorf("build: repack %s from volume %s: %w", r.Key, vol, err)
			}
			if _, err := b.vols.add(ctx, r.Key, data); err != nil {
				return fmt.Errorf("build: repack: %w", err)
			}
			b.count(func(rep *Report) { rep.Repacked++; rep.Bytes += int64(len(data)) })
		}
	}
	return nil
}

// A volume's index, at its end: the JSON of a volumeIndex, then its length
// (4 bytes, little-endian), then volumeMagic.
type volumeIndex struct {
	Packs []volumePack `json:"packs"`
}

type volumePack struct {
	Key    string `json:"key"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
}

const (
	volumeMagic   = "BVI1"
	volumeTrailer = 4 + len(volumeMagic)
	// volumeIndexMax bounds an index read back: 64 MiB of packs of a
	// few hundred bytes each is some 200,000 entries of 100 bytes.
	volumeIndexMax = 32 << 20
)

func appendVolumeIndex(buf []byte, packs []placed) []byte {
	x := volumeIndex{Packs: make([]volumePack, len(packs))}
	for i, p := range packs {
		x.Packs[i] = volumePack{Key: p.key, Offset: p.off, Size: p.size}
	}
	j, err := json.Marshal(x)
	if err != nil {
		panic(err) // our own type
	}
	buf = append(buf, j...)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(j)))
	return append(buf, volumeMagic...)
}

// decodeVolumeIndex reads the index of a volume of size bytes from its
// trailer and the index bytes before it (the last n bytes of the volume,
// n from the trailer): the packs, each checked to lie before the index.
func decodeVolumeIndex(size int64, index []byte) ([]volumePack, error) {
	var x volumeIndex
	if err := json.Unmarshal(index, &x); err != nil {
		return nil, fmt.Errorf("volume index: %w", err)
	}
	end := size - int64(len(index)) - int64(volumeTrailer)
	for _, p := range x.Packs {
		if publish.CheckKey(p.Key) != nil || !strings.HasPrefix(p.Key, publish.PackPrefix) ||
			p.Offset < 0 || p.Size <= 0 || p.Offset > end || p.Size > end-p.Offset {
			return nil, fmt.Errorf("volume index: pack %q at [%d,+%d) is not within the volume's %d bytes", p.Key, p.Offset, p.Size, end)
		}
	}
	return x.Packs, nil
}

// volumeIndexLen reads a volume's trailer: how long its index is.
func volumeIndexLen(size int64, trailer []byte) (int64, error) {
	if len(trailer) != volumeTrailer || string(trailer[4:]) != volumeMagic {
		return 0, errors.New("volume index: no trailer")
	}
	n := int64(binary.LittleEndian.Uint32(trailer))
	if n > volumeIndexMax || n > size-int64(volumeTrailer) {
		return 0, fmt.Errorf("volume index: %d bytes in a volume of %d", n, size)
	}
	return n, nil
}

// found are the packs of volumes the store holds that prev does not name:
// what a build interrupted before its manifest wrote (or a kept build
// older than prev names), for put to reuse rather than write again. A
// volume whose index cannot be read is left to a collection of orphans.
func (b *builder) found(ctx context.Context, prev *publish.Manifest) (map[string]publish.PackRef, error) {
	keys, err := b.opt.Store.List(ctx, volumePrefix)
	if err != nil {
		return nil, fmt.Errorf("build: list volumes: %w", err)
	}
	named := map[string]bool{}
	if prev != nil {
		prev.Packs(func(r *publish.PackRef) { named[r.Volume] = true })
	}
	out := map[string]publish.PackRef{}
	for _, vol := range keys {
		if named[vol] {
			continue
		}
		packs, err := b.readVolumeIndex(ctx, vol)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			b.count(func(r *Report) {
				r.Warnings = append(r.Warnings, fmt.Errorf("volume %s is not reused: %w", vol, err))
			})
			continue
		}
		for _, p := range packs {
			out[p.Key] = publish.PackRef{Key: p.Key, Size: p.Size, Volume: vol, Offset: p.Offset}
		}
	}
	return out, nil
}

func (b *builder) readVolumeIndex(ctx context.Context, vol string) ([]volumePack, error) {
	st := b.opt.Store
	size, err := st.Stat(ctx, vol)
	if err != nil {
		return nil, err
	}
	if size < int64(volumeTrailer) {
		return nil, fmt.Errorf("volume index: a volume of %d bytes", size)
	}
	trailer, err := st.GetRange(ctx, vol, size-int64(volumeTrailer), int64(volumeTrailer))
	if err != nil {
		return nil, err
	}
	n, err := volumeIndexLen(size, trailer)
	if err != nil {
		return nil, err
	}
	index, err := st.GetRange(ctx, vol, size-int64(volumeTrailer)-n, n)
	if err != nil {
		return nil, err
	}
	return decodeVolumeIndex(size, index)
}
