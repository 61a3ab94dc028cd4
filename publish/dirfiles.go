package publish

import (
	"container/list"
	"io/fs"
	"strings"
	"sync"
	"syscall"

	"github.com/bibleplatform/platform/internal/diskread"
)

// openFiles keeps the pack files a Dir read last open, so that a reader
// of a pack's ranges (an edge: the pack's header, then the entry asked
// for) opens it once, and reads through the file descriptor alone, without
// an os.File (whose poller registration and cleanup cost more than the
// read of a short range). Its reads do not hold the Go scheduler while the
// disk works (diskread).
//
// Only packs: a pack is named by its content, so a file kept open never
// goes stale (a pack deleted and written again holds the same bytes; one
// deleted stays readable until it leaves the set), while other keys
// (CURRENT, a build's manifest) are replaced by rename.
type openFiles struct {
	mu    sync.Mutex
	max   int
	files map[string]*list.Element // *openFile, by path
	lru   list.List                // the most recently read first
}

type openFile struct {
	path string
	fd   int
	// refs: reads under way, and one for the set while the file is in it;
	// the last to let go closes it.
	refs int
}

// KeepOpen makes ReadRange keep the n pack files it read last open (none
// by default), for the store's life. The first call decides; later ones
// change nothing.
func (d *Dir) KeepOpen(n int) {
	if n > 0 {
		d.open.CompareAndSwap(nil, &openFiles{max: n, files: make(map[string]*list.Element)})
	}
}

// readAt reads len(b) bytes of the file at path at off into b with files,
// as diskread.Files.ReadAt does: fewer only at the end of the file.
func (o *openFiles) readAt(files *diskread.Files, path string, b []byte, off int64) (int, error) {
	f, err := o.acquire(path)
	if err != nil {
		return 0, err
	}
	defer o.release(f)
	n, err := files.ReadAt(f.fd, b, off)
	if err != nil {
		return n, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return n, nil
}

// acquire returns path's file open, counted as read until release.
func (o *openFiles) acquire(path string) (*openFile, error) {
	o.mu.Lock()
	f := o.findLocked(path)
	o.mu.Unlock()
	if f != nil {
		return f, nil
	}

	fd, err := diskread.Open(path)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	if f := o.findLocked(path); f != nil {
		// Opened by another read meanwhile: that one serves.
		o.mu.Unlock()
		syscall.Close(fd)
		return f, nil
	}
	f = &openFile{path: path, fd: fd, refs: 2}
	o.files[path] = o.lru.PushFront(f)
	var evicted []int // descriptors no read holds
	for o.lru.Len() > o.max {
		old := o.lru.Remove(o.lru.Back()).(*openFile)
		delete(o.files, old.path)
		if old.refs--; old.refs == 0 {
			evicted = append(evicted, old.fd)
		}
	}
	o.mu.Unlock()
	for _, fd := range evicted {
		syscall.Close(fd)
	}
	return f, nil
}

// findLocked returns path's file counted as read, nil when it is not open.
func (o *openFiles) findLocked(path string) *openFile {
	el, ok := o.files[path]
	if !ok {
		return nil
	}
	o.lru.MoveToFront(el)
	f := el.Value.(*openFile)
	f.refs++
	return f
}

// release is a read of f done.
func (o *openFiles) release(f *openFile) {
	o.mu.Lock()
	f.refs--
	last := f.refs == 0
	o.mu.Unlock()
	if last {
		syscall.Close(f.fd)
	}
}

// kept is the open files ReadRange reads key through; nil when it opens
// key for the read.
func (d *Dir) kept(key string) *openFiles {
	if !strings.HasPrefix(key, PackPrefix) {
		return nil
	}
	return d.open.Load()
}
