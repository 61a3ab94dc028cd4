package publish

import (
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// DefaultOpenFiles is how many pack files a directory store keeps open for
// ranged reads: well below the descriptors a process may hold (Go raises
// the soft limit to the hard one at start-up, 20,000 on the machines we
// measure on), and enough that a pack's header read and the entry reads
// that follow it find the file open.
const DefaultOpenFiles = 256

// packPrefix is where content-addressed packs live (PackWriter.Key): the
// only keys whose files a directory store keeps open. A pack's key is the
// hash of its entries and the pack format, and the same entries always
// make the same bytes, so a file kept open under a pack key reads what any
// later file of that name would hold. Other keys (a build's manifest, the
// history, the lease, CURRENT) may be replaced and are opened each time.
const packPrefix = "packs/"

// openFiles is a bounded set of read-only files kept open between ranged
// reads, least recently used out first. A kept file holds one reference of
// its own, each reader one more for the length of its read; the file is
// closed when the last reference goes, so eviction never closes a file
// under a read in progress.
type openFiles struct {
	mu     sync.Mutex
	max    int
	byKey  map[string]*openFile
	head   openFile // sentinel of the recency list: head.next is the newest
	closed bool
}

type openFile struct {
	key        string
	f          *os.File
	refs       atomic.Int32
	prev, next *openFile
}

func newOpenFiles(max int) *openFiles {
	c := &openFiles{max: max, byKey: make(map[string]*openFile, max)}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

// keeps reports whether key's file may be kept open.
func (c *openFiles) keeps(key string) bool {
	return c.max > 0 && strings.HasPrefix(key, packPrefix)
}

// get returns key's kept file with a reference for the caller, or nil.
func (c *openFiles) get(key string) *openFile {
	c.mu.Lock()
	e := c.byKey[key]
	if e != nil {
		e.refs.Add(1)
		c.unlink(e)
		c.pushFront(e)
	}
	c.mu.Unlock()
	return e
}

// add keeps f as key's file and returns it with a reference for the
// caller. When another reader kept a file of key meanwhile, that one is
// returned and f closed; when the set is closed, f is returned alone, to
// be closed on release.
func (c *openFiles) add(key string, f *os.File) *openFile {
	n := &openFile{key: key, f: f}
	n.refs.Store(1) // the caller's
	var out *openFile
	c.mu.Lock()
	switch e := c.byKey[key]; {
	case c.closed:
	case e != nil:
		e.refs.Add(1)
		c.unlink(e)
		c.pushFront(e)
		c.mu.Unlock()
		f.Close()
		return e
	default:
		n.refs.Add(1) // the set's
		c.byKey[key] = n
		c.pushFront(n)
		if len(c.byKey) > c.max {
			out = c.head.prev
			c.unlink(out)
			delete(c.byKey, out.key)
		}
	}
	c.mu.Unlock()
	if out != nil {
		out.release()
	}
	return n
}

// release drops one reference, closing the file with the last.
func (e *openFile) release() {
	if e.refs.Add(-1) == 0 {
		e.f.Close()
	}
}

// drop lets go of key's kept file, if any (its object was replaced or
// removed by this process).
func (c *openFiles) drop(key string) {
	c.mu.Lock()
	e := c.byKey[key]
	if e != nil {
		c.unlink(e)
		delete(c.byKey, key)
	}
	c.mu.Unlock()
	if e != nil {
		e.release()
	}
}

// close lets go of every kept file and keeps none from now on; reads in
// progress finish on theirs.
func (c *openFiles) close() {
	c.mu.Lock()
	kept := make([]*openFile, 0, len(c.byKey))
	for e := c.head.next; e != &c.head; e = e.next {
		kept = append(kept, e)
	}
	clear(c.byKey)
	c.head.prev, c.head.next = &c.head, &c.head
	c.closed = true
	c.mu.Unlock()
	for _, e := range kept {
		e.release()
	}
}

// len is how many files are kept.
func (c *openFiles) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey)
}

func (c *openFiles) unlink(e *openFile) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (c *openFiles) pushFront(e *openFile) {
	e.prev, e.next = &c.head, c.head.next
	c.head.next.prev = e
	c.head.next = e
}
