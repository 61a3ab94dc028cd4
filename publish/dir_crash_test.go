package publish_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bibleplatform/platform/internal/atomicfile"
	"github.com/bibleplatform/platform/publish"
)

// crashFS is the real file system with a log of what was asked of it, from
// which it tells what a power cut after any operation would have left: data
// that was synced, and directory entries that were synced or (the other
// extreme, a journal that committed every name but no data) all of them.
type crashFS struct {
	root string
	mu   sync.Mutex
	ops  []fsOp
	next int
}

type fsOp struct {
	kind       string // create write sync rename remove mkdir syncdir
	file       int
	path, dest string
	data       []byte
}

func (c *crashFS) log(op fsOp) {
	c.mu.Lock()
	c.ops = append(c.ops, op)
	c.mu.Unlock()
}

type crashFile struct {
	*os.File
	c  *crashFS
	id int
}

func (f *crashFile) Write(p []byte) (int, error) {
	f.c.log(fsOp{kind: "write", file: f.id, data: append([]byte(nil), p...)})
	return f.File.Write(p)
}

func (f *crashFile) Sync() error {
	f.c.log(fsOp{kind: "sync", file: f.id})
	return f.File.Sync()
}

func (c *crashFS) CreateTemp(dir, pattern string) (atomicfile.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.next++
	id := c.next
	c.ops = append(c.ops, fsOp{kind: "create", file: id, path: f.Name()})
	c.mu.Unlock()
	return &crashFile{File: f, c: c, id: id}, nil
}

func (c *crashFS) Rename(oldpath, newpath string) error {
	c.log(fsOp{kind: "rename", path: oldpath, dest: newpath})
	return os.Rename(oldpath, newpath)
}

func (c *crashFS) Remove(path string) error {
	c.log(fsOp{kind: "remove", path: path})
	return os.Remove(path)
}

func (c *crashFS) MkdirAll(path string, perm os.FileMode) error {
	c.log(fsOp{kind: "mkdir", path: path})
	return os.MkdirAll(path, perm)
}

func (c *crashFS) SyncDir(dir string) error {
	c.log(fsOp{kind: "syncdir", path: dir})
	return atomicfile.OS.SyncDir(dir)
}

// node is a file or directory of the model: what it holds now, and what
// is on the disk.
type node struct {
	dir           bool
	data, durable []byte
	names, synced map[string]*node
}

func newDir() *node { return &node{dir: true, names: map[string]*node{}, synced: map[string]*node{}} }

// crashed writes into dir what the first n operations would leave after a
// power cut; with allNames, every directory entry made so far survives
// (but only synced data), else only synced entries do.
func (c *crashFS) crashed(t *testing.T, n int, allNames bool, dir string) {
	root := newDir()
	files := map[int]*node{}
	parts := func(p string) []string {
		rel, err := filepath.Rel(c.root, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("path %s outside the store", p)
		}
		if rel == "." {
			return nil
		}
		return strings.Split(rel, string(filepath.Separator))
	}
	lookup := func(p string) *node {
		d := root
		for _, name := range parts(p) {
			d = d.names[name]
			if d == nil {
				t.Fatalf("model: no %s", p)
			}
		}
		return d
	}
	parent := func(p string) (*node, string) { return lookup(filepath.Dir(p)), filepath.Base(p) }
	for _, op := range c.ops[:n] {
		switch op.kind {
		case "create":
			f := &node{}
			files[op.file] = f
			d, name := parent(op.path)
			d.names[name] = f
		case "write":
			files[op.file].data = append(files[op.file].data, op.data...)
		case "sync":
			f := files[op.file]
			f.durable = append([]byte(nil), f.data...)
		case "rename":
			d, name := parent(op.path)
			f := d.names[name]
			delete(d.names, name)
			d2, name2 := parent(op.dest)
			d2.names[name2] = f
		case "remove":
			d, name := parent(op.path)
			delete(d.names, name)
		case "mkdir":
			d := root
			for _, name := range parts(op.path) {
				if d.names[name] == nil {
					d.names[name] = newDir()
				}
				d = d.names[name]
			}
		case "syncdir":
			d := lookup(op.path)
			d.synced = map[string]*node{}
			for k, v := range d.names {
				d.synced[k] = v
			}
		}
	}
	var write func(d *node, path string)
	write = func(d *node, path string) {
		names := d.synced
		if allNames {
			names = d.names
		}
		for name, f := range names {
			p := filepath.Join(path, name)
			if f.dir {
				if err := os.Mkdir(p, 0o755); err != nil {
					t.Fatal(err)
				}
				write(f, p)
			} else if err := os.WriteFile(p, f.durable, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(root, dir)
}

// whole fails unless the store at dir has no build yet or one of the
// wanted builds, with its manifest and every pack whole.
func whole(dir string, want ...string) error {
	ctx := context.Background()
	s, err := publish.OpenDir(dir)
	if err != nil {
		return err
	}
	cur, err := s.Current(ctx)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("CURRENT: %v", err)
	}
	if !slices.Contains(want, cur) {
		return fmt.Errorf("CURRENT names %q, none of %q", cur, want)
	}
	m, _, err := publish.LoadCurrent(ctx, s)
	if err != nil {
		return fmt.Errorf("build %s: %v", cur, err)
	}
	m.Packs(func(ref *publish.PackRef) {
		data, gerr := s.Get(ctx, ref.Key)
		if err == nil && (gerr != nil || contentKey(data) != ref.Key) {
			err = fmt.Errorf("build %s: pack %s is broken (%d bytes, %v)", cur, ref.Key, len(data), gerr)
		}
	})
	return err
}

// TestDirCrash publishes two builds and cuts the power after every file
// system operation: the store holds no build, the first or the second,
// whole, never one whose CURRENT names missing or empty objects.
func TestDirCrash(t *testing.T) {
	root := t.TempDir()
	c := &crashFS{root: root}
	s, err := publish.OpenDirFS(root, c)
	if err != nil {
		t.Fatal(err)
	}
	b1 := publishBuild(t, s, day(1), "gen", "exo")
	b2 := publishBuild(t, s, day(2), "gen", "exo2", "lev")
	if err := whole(root, b2); err != nil {
		t.Fatal(err)
	}
	for n := 0; n <= len(c.ops); n++ {
		for _, all := range []bool{false, true} {
			dir := t.TempDir()
			c.crashed(t, n, all, dir)
			if err := whole(dir, b1, b2); err != nil {
				t.Fatalf("power cut after %d of %d operations (every name kept: %v): %v", n, len(c.ops), all, err)
			}
		}
	}
}
