package packs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/internal/atomicfile"
	"github.com/bibleplatform/platform/internal/diskread"
)

// diskCache keeps whole packs fetched from the store as files in one
// directory, bounded by their total size and evicting the least recently
// used. Pack keys are content addresses, so a cached file never goes stale:
// a changed pack is a new key, and an old one simply ages out. It is the
// second tier behind the in-memory LRU of decoded packs; it lets an edge
// restart warm and keep serving through a store outage what memory no
// longer holds.
//
// One directory belongs to one edge process: two processes sharing it
// would each count only their own files against the bound.
type diskCache struct {
	dir string // with a separator at its end (file)
	max int64

	// The index holds no pointer a file but its name (the map's key, and
	// the slot's): an edge whose disk cache holds tens of thousands of
	// packs keeps the index in its heap, which the collector marks at
	// every cycle (docs/edge.md, "Why MinIO's tail is longer").
	mu         sync.Mutex
	used       int64
	items      map[string]int32 // file name → slot
	slots      []diskItem
	free       []int32 // slots to reuse
	head, tail int32   // the recency list: head is the most recently used; -1 when empty

	writes, evictions, errs metrics.Counter
	spares                  uint64 // files moved aside to be written over (evictLocked)

	// files reads the cache's files, keeping the openPacks read last
	// open (a miss reads a pack's header, then its entry); a file is
	// forgotten there before it is removed or written over (forgetLocked).
	files diskread.Files
}

type diskItem struct {
	name       string
	size       int64
	prev, next int32 // the recency list's links, -1 at its ends
	// readers are the reads of the file under way (use to done). A file
	// evicted while one is under way is unlinked, never written over, and
	// its slot (gone) is reused only once the last of them is done.
	readers int32
	gone    bool
}

// diskRead is a read of a cached file under way, from use to done.
type diskRead struct {
	slot int32
	name string
}

// diskSuffix marks the cache's files; anything else in the directory is
// left alone, and temporary files from a write cut short are removed.
const (
	diskSuffix = ".pack"
	diskTemp   = ".tmp-"
)

// openDiskCache opens (creating it if needed) the cache in dir and takes
// in the files an earlier run left, oldest modification first, so that the
// bound holds from the start and recency survives a restart.
func openDiskCache(dir string, maxBytes int64) (*diskCache, error) {
	if maxBytes <= 0 {
		return nil, fmt.Errorf("disk cache %s: size must be positive, got %d", dir, maxBytes)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("disk cache: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("disk cache: %w", err)
	}
	d := &diskCache{dir: filepath.Clean(dir) + string(filepath.Separator), max: maxBytes, items: make(map[string]int32), head: -1, tail: -1}
	d.files.KeepOpen(openPacks)
	type found struct {
		name string
		size int64
		mod  time.Time
	}
	var files []found
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, diskTemp) {
			os.Remove(filepath.Join(dir, name))
			continue
		}
		if !e.Type().IsRegular() || !strings.HasSuffix(name, diskSuffix) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		files = append(files, found{name, info.Size(), info.ModTime()})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range files {
		d.addLocked(f.name, f.size)
	}
	d.evictLocked(0, false)
	return d, nil
}

// file is the path of the cache's file name (one component, which
// fileName makes or the directory listed): joined as it is, where
// filepath.Join cleaned it again on every read.
func (d *diskCache) file(name string) string { return d.dir + name }

// path is file as diskread.Files.ReadFileAt asks for it: only to open a
// file, since one kept open is found by its name.
func (d *diskCache) path(name string) (string, error) { return d.file(name), nil }

// fileName maps a store key to a file name. Keys are made of
// [A-Za-z0-9._-] segments joined by "/" (publish.CheckKey); "+" is none of
// those, so the mapping cannot collide.
func fileName(key string) string { return string(appendFileName(nil, key)) }

// appendFileName appends key's file name to b.
func appendFileName(b []byte, key string) []byte {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == '/' {
			c = '+'
		}
		b = append(b, c)
	}
	return append(b, diskSuffix...)
}

// slotLocked is key's slot, if it is cached: its name is made on the
// stack, and the map's lookup by it allocates nothing.
func (d *diskCache) slotLocked(key string) (int32, bool) {
	var b [160]byte
	i, ok := d.items[string(appendFileName(b[:0], key))]
	return i, ok
}

// has reports whether key is cached, without touching the disk.
func (d *diskCache) has(key string) bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	_, ok := d.slotLocked(key)
	d.mu.Unlock()
	return ok
}

// use marks key just used and returns its file, if it is cached, as read
// until done.
func (d *diskCache) use(key string) (diskRead, bool) {
	if d == nil {
		return diskRead{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	i, ok := d.slotLocked(key)
	if !ok {
		return diskRead{}, false
	}
	d.unlinkListLocked(i)
	d.pushFrontLocked(i)
	it := &d.slots[i]
	it.readers++
	return diskRead{i, it.name}, true
}

// done ends a read that use began.
func (d *diskCache) done(r diskRead) {
	d.mu.Lock()
	it := &d.slots[r.slot]
	it.readers--
	if it.gone && it.readers == 0 {
		d.releaseLocked(r.slot)
	}
	d.mu.Unlock()
}

// get returns the cached bytes of key. A file that cannot be read is
// dropped from the cache, so the caller fetches from the store instead.
func (d *diskCache) get(key string) ([]byte, bool) {
	it, ok := d.use(key)
	if !ok {
		return nil, false
	}
	defer d.done(it)
	name := it.name
	path := d.file(name)
	data, err := d.files.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.errs.Inc()
		}
		d.drop(name)
		return nil, false
	}
	// The modification time is the recency a restart reads back.
	now := time.Now()
	os.Chtimes(path, now, now)
	return data, true
}

// readRange reads len(b) bytes of key at off into b, if key is cached: a
// pack on disk is read by ranges as the store's are, so that the disk tier
// answers an entry without bringing the whole pack into memory. A file
// that cannot be read is dropped, and the caller reads the store instead.
// The file's modification time, the recency a restart reads back, is not
// touched here: a range is read for every entry, and get touches it on
// whole reads.
func (d *diskCache) readRange(key string, off int64, b []byte) bool {
	it, ok := d.use(key)
	if !ok {
		return false
	}
	defer d.done(it)
	return d.read(it.name, off, b)
}

// read reads len(b) bytes of the cached file name at off into b; a file
// gone or shorter than that is forgotten.
func (d *diskCache) read(name string, off int64, b []byte) bool {
	n, err := d.files.ReadFileAt(name, d.path, b, off)
	if err != nil || n < len(b) {
		// Gone, or shorter than the build says: damaged.
		if !errors.Is(err, fs.ErrNotExist) {
			d.errs.Inc()
		}
		d.drop(name)
		return false
	}
	return true
}

// put stores data under key: written to a temporary file and renamed, so
// that a crash never leaves a truncated pack under a real name. A value
// larger than the whole cache is not kept.
//
// A full cache makes room first, and writes over the file of a pack it
// evicts rather than deleting that file and creating another: a full
// cache evicts a pack for every pack it takes in, and on an ext4 without
// a journal creating a file next to thousands freed in the last seconds
// cost four to six times writing over one (docs/edge.md, "The disk
// cache's files").
func (d *diskCache) put(key string, data []byte) error {
	if d == nil || int64(len(data)) > d.max {
		return nil
	}
	name := fileName(key)
	path := d.file(name)
	d.mu.Lock()
	if _, ok := d.items[name]; ok {
		d.mu.Unlock()
		return nil
	}
	spare := d.evictLocked(int64(len(data)), true)
	d.mu.Unlock()
	var err error
	if spare != "" {
		err = atomicfile.Overwrite(spare, path, data)
	} else {
		err = atomicfile.Write(path, data, diskTemp, false)
	}
	if err != nil {
		d.errs.Inc()
		return fmt.Errorf("disk cache: write %s: %w", key, err)
	}
	d.writes.Inc()
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.items[name]; !ok {
		d.addLocked(name, int64(len(data)))
	}
	d.evictLocked(0, false)
	return nil
}

// remove forgets key and deletes its file (a pack that failed to decode).
func (d *diskCache) remove(key string) {
	if d != nil {
		d.drop(fileName(key))
	}
}

func (d *diskCache) drop(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if i, ok := d.items[name]; ok {
		d.removeFile(d.forgetLocked(i).name)
	}
}

// evictLocked evicts the least recently used files until n more bytes fit.
// With spare it keeps one of them for the caller to write over, moved to a
// temporary name, and returns that path: the first no read is under way
// in ("" when none is). It is moved while the lock is held, so that no
// put of its own pack can have put a new file under its name first, which
// a read could have opened.
func (d *diskCache) evictLocked(n int64, spare bool) (path string) {
	for d.used+n > d.max && d.tail >= 0 {
		d.evictions.Inc()
		it := d.forgetLocked(d.tail)
		if !spare || path != "" || it.readers != 0 {
			d.removeFile(it.name)
			continue
		}
		// A name of its own: the same pack may be evicted again, put
		// back meanwhile, before this file is written over.
		d.spares++
		tmp := d.file(diskTemp + strconv.FormatUint(d.spares, 10) + "-" + it.name)
		if err := os.Rename(d.file(it.name), tmp); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				d.errs.Inc()
			}
			continue
		}
		path = tmp
	}
	return path
}

// addLocked indexes the file name of size bytes as the most recently
// used, in a free slot if there is one.
func (d *diskCache) addLocked(name string, size int64) {
	var i int32
	if n := len(d.free); n > 0 {
		i, d.free = d.free[n-1], d.free[:n-1]
	} else {
		i = int32(len(d.slots))
		d.slots = append(d.slots, diskItem{})
	}
	d.slots[i] = diskItem{name: name, size: size}
	d.items[name] = i
	d.pushFrontLocked(i)
	d.used += size
}

// forgetLocked removes an entry, not its file, and returns what it was
// (its readers then). A reader that already opened the file keeps reading
// it (POSIX unlink semantics); one that had not gets a miss. The file's
// descriptor kept open is let go: the file may be written over as another
// pack's (evictLocked), which a read through it would then return.
func (d *diskCache) forgetLocked(i int32) diskItem {
	it := d.slots[i]
	d.files.Forget(it.name)
	d.unlinkListLocked(i)
	delete(d.items, it.name)
	d.used -= it.size
	if it.readers > 0 {
		d.slots[i].gone = true
	} else {
		d.releaseLocked(i)
	}
	return it
}

// releaseLocked makes slot i free for reuse.
func (d *diskCache) releaseLocked(i int32) {
	d.slots[i] = diskItem{}
	d.free = append(d.free, i)
}

func (d *diskCache) pushFrontLocked(i int32) {
	it := &d.slots[i]
	it.prev, it.next = -1, d.head
	if d.head >= 0 {
		d.slots[d.head].prev = i
	} else {
		d.tail = i
	}
	d.head = i
}

func (d *diskCache) unlinkListLocked(i int32) {
	it := &d.slots[i]
	if it.prev >= 0 {
		d.slots[it.prev].next = it.next
	} else {
		d.head = it.next
	}
	if it.next >= 0 {
		d.slots[it.next].prev = it.prev
	} else {
		d.tail = it.prev
	}
	it.prev, it.next = -1, -1
}

// removeFile deletes the cache's file name.
func (d *diskCache) removeFile(name string) {
	if err := os.Remove(d.file(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.errs.Inc()
	}
}

func (d *diskCache) stats() (files int, bytes int64) {
	if d == nil {
		return 0, 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.items), d.used
}
