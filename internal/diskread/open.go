package diskread

import (
	"container/list"
	"sync"

	"golang.org/x/sys/unix"
)

// openSet keeps the files read last open (Files.KeepOpen), so that a
// reader of a file's ranges (an edge: a pack's header, then the entry
// asked for) opens it once, and reads through the descriptor alone.
type openSet struct {
	mu    sync.Mutex
	max   int
	files map[string]*list.Element // *openFile, by name
	lru   list.List                // the most recently read first
}

type openFile struct {
	name string
	path string
	fd   int
	// refs: reads under way, and one for the set while the file is in it;
	// the last to let go closes it.
	refs int
}

// KeepOpen makes ReadFileAt keep the n files it read last open (none by
// default), for f's life. The first call decides; later ones change
// nothing.
//
// A descriptor kept open reads the file it was opened on, whatever is
// done to its path since: for files never written again in place (a
// store's packs, named by their content, stay readable when deleted until
// they leave the set), or whose owner calls Forget before it removes or
// reuses one.
func (f *Files) KeepOpen(n int) {
	if n > 0 {
		f.open.CompareAndSwap(nil, &openSet{max: n, files: make(map[string]*list.Element)})
	}
}

// Forget lets go of name's descriptor if it is kept open (closed once the
// reads under way on it are done), so that the next read opens its path
// anew: for a file about to be removed, or written over as another.
func (f *Files) Forget(name string) {
	o := f.open.Load()
	if o == nil {
		return
	}
	o.mu.Lock()
	el, ok := o.files[name]
	if !ok {
		o.mu.Unlock()
		return
	}
	old := o.evictLocked(el)
	o.mu.Unlock()
	if old >= 0 {
		unix.Close(old)
	}
}

// acquire returns name's file open, counted as read until release; path
// gives its path when it is not open.
func (o *openSet) acquire(name string, path func(string) (string, error)) (*openFile, error) {
	o.mu.Lock()
	f := o.findLocked(name)
	o.mu.Unlock()
	if f != nil {
		return f, nil
	}

	p, err := path(name)
	if err != nil {
		return nil, err
	}
	fd, err := Open(p)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	if f := o.findLocked(name); f != nil {
		// Opened by another read meanwhile: that one serves.
		o.mu.Unlock()
		unix.Close(fd)
		return f, nil
	}
	f = &openFile{name: name, path: p, fd: fd, refs: 2}
	o.files[name] = o.lru.PushFront(f)
	var evicted []int // descriptors no read holds
	for o.lru.Len() > o.max {
		if old := o.evictLocked(o.lru.Back()); old >= 0 {
			evicted = append(evicted, old)
		}
	}
	o.mu.Unlock()
	for _, fd := range evicted {
		unix.Close(fd)
	}
	return f, nil
}

// evictLocked takes el's file out of the set and returns its descriptor
// when no read holds it (the caller closes it), else -1 (the last read
// closes it).
func (o *openSet) evictLocked(el *list.Element) int {
	old := o.lru.Remove(el).(*openFile)
	delete(o.files, old.name)
	if old.refs--; old.refs == 0 {
		return old.fd
	}
	return -1
}

// findLocked returns name's file counted as read, nil when it is not open.
func (o *openSet) findLocked(name string) *openFile {
	el, ok := o.files[name]
	if !ok {
		return nil
	}
	o.lru.MoveToFront(el)
	f := el.Value.(*openFile)
	f.refs++
	return f
}

// release is a read of f done.
func (o *openSet) release(f *openFile) {
	o.mu.Lock()
	f.refs--
	last := f.refs == 0
	o.mu.Unlock()
	if last {
		unix.Close(f.fd)
	}
}
