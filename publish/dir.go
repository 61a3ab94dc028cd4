package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bibleplatform/platform/internal/atomicfile"
	"github.com/bibleplatform/platform/internal/diskread"
)

// Dir is a Store in a local directory: the embedded default, needing no
// service. Objects live under objects/…; the current pointer is the file
// CURRENT. Writes go to a temporary file that is renamed into place, so a
// reader never sees a partial object and the pointer moves atomically.
//
// It is also durable against a power cut: every object's data is synced
// before its name appears, so a name that survives names the whole object
// (and a later build that finds it may skip writing it again); SetCurrent
// syncs every directory of the store, making the names themselves durable,
// before it moves CURRENT and syncs that. After a crash CURRENT therefore
// names the old build or the new one, and every object either names is
// there in full.
type Dir struct {
	root    string
	objects string // root/objects/, where a key's path starts
	fs      atomicfile.FS
	packs   diskread.Files // the reads of packs (KeepOpen)
	files   diskread.Files // the reads of other keys
}

// OpenDir opens (creating if needed) a directory store.
func OpenDir(root string) (*Dir, error) { return openDir(root, atomicfile.OS) }

func openDir(root string, fsys atomicfile.FS) (*Dir, error) {
	if err := fsys.MkdirAll(filepath.Join(root, "objects"), 0o755); err != nil {
		return nil, fmt.Errorf("open store %s: %w", root, err)
	}
	return &Dir{root: root, objects: filepath.Join(root, "objects") + string(filepath.Separator), fs: fsys}, nil
}

// Root is the directory the store lives in.
func (d *Dir) Root() string { return d.root }

func (d *Dir) path(key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", fmt.Errorf("%w: %q", err, key)
	}
	// A checked key is clean (no empty, "." or ".." segment, no '/' at
	// either end): it is joined as it is, where filepath.Join cleaned it
	// again on every read of a pack.
	return d.objects + filepath.FromSlash(key), nil
}

func (d *Dir) Put(ctx context.Context, key string, data []byte) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := d.fs.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteData(d.fs, p, data, tmpPrefix, true)
}

// PutIfAbsent writes key unless it exists: the whole object goes to a
// temporary file that is then hard-linked to its name, which fails if the
// name exists. Of two writers, exactly one links.
func (d *Dir) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), tmpPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp, p); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &fs.PathError{Op: "put if absent", Path: key, Err: fs.ErrExist}
		}
		return err
	}
	return d.fs.SyncDir(filepath.Dir(p))
}

// Temps lists the temporary files (tmpPrefix) last written more than age
// ago, anywhere in the store, with their sizes: what writers killed in
// the middle of a write left. A writer finishes each temporary file within
// seconds of starting it.
func (d *Dir) Temps(ctx context.Context, age time.Duration) (map[string]int64, error) {
	out := map[string]int64{}
	cutoff := time.Now().Add(-age)
	err := filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() || !strings.HasPrefix(e.Name(), tmpPrefix) || !e.Type().IsRegular() {
			return ctx.Err()
		}
		fi, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // finished and renamed meanwhile
			}
			return err
		}
		if fi.ModTime().Before(cutoff) {
			rel, _ := filepath.Rel(d.root, p)
			out[filepath.ToSlash(rel)] = fi.Size()
		}
		return ctx.Err()
	})
	return out, err
}

// RemoveTemp removes a temporary file Temps listed.
func (d *Dir) RemoveTemp(ctx context.Context, name string) error {
	if !strings.HasPrefix(path.Base(name), tmpPrefix) || strings.Contains(name, "..") {
		return fmt.Errorf("remove temporary file %q: not one", name)
	}
	if err := os.Remove(filepath.Join(d.root, filepath.FromSlash(name))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// tmpPrefix marks files being written; List skips them.
const tmpPrefix = ".tmp-"

func (d *Dir) Get(ctx context.Context, key string) ([]byte, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, err
	}
	return d.filesFor(key).ReadFile(p)
}

func (d *Dir) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if n < 0 {
		return nil, fmt.Errorf("get %s: negative range", key)
	}
	buf := make([]byte, n)
	if err := d.ReadRange(ctx, key, off, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// ReadRange reads len(b) bytes of key at off into b (RangeReader).
func (d *Dir) ReadRange(ctx context.Context, key string, off int64, b []byte) error {
	if off < 0 {
		return fmt.Errorf("get %s: negative range", key)
	}
	// The key is checked (path) when its file is opened: a pack file kept
	// open is found by its key, checked when it was opened.
	n, err := d.filesFor(key).ReadFileAt(key, d.path, b, off)
	if err != nil {
		return err
	}
	if n < len(b) {
		return fmt.Errorf("get %s [%d,+%d): past the end: %w", key, off, len(b), io.ErrUnexpectedEOF)
	}
	return nil
}

func (d *Dir) Stat(ctx context.Context, key string) (int64, error) {
	p, err := d.path(key)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return 0, err
	}
	if fi.IsDir() {
		return 0, &fs.PathError{Op: "stat", Path: key, Err: fs.ErrNotExist}
	}
	return fi.Size(), nil
}

func (d *Dir) List(ctx context.Context, prefix string) ([]string, error) {
	base := filepath.Join(d.root, "objects")
	var keys []string
	err := filepath.WalkDir(base, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() || strings.HasPrefix(e.Name(), tmpPrefix) {
			return nil
		}
		rel, _ := filepath.Rel(base, p)
		if k := filepath.ToSlash(rel); strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
		return ctx.Err()
	})
	sort.Strings(keys)
	return keys, err
}

func (d *Dir) Delete(ctx context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

func (d *Dir) Current(ctx context.Context) (string, error) {
	b, err := os.ReadFile(filepath.Join(d.root, "CURRENT"))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

func (d *Dir) SetCurrent(ctx context.Context, build string) error {
	if err := CheckKey(build); err != nil || strings.Contains(build, "/") {
		return fmt.Errorf("%w: build id %q", ErrBadKey, build)
	}
	// The build's names first (its objects' data is already synced by
	// Put), then the pointer, then the pointer's name.
	if err := d.syncDirs(); err != nil {
		return fmt.Errorf("set current %s: %w", build, err)
	}
	if err := atomicfile.WriteData(d.fs, filepath.Join(d.root, "CURRENT"), []byte(build+"\n"), tmpPrefix, true); err != nil {
		return err
	}
	return d.fs.SyncDir(d.root)
}

// syncDirs syncs objects/, every directory below it and the root. All of
// them, not only those this process wrote into: a build may reuse objects
// that an interrupted publish wrote and never made durable.
func (d *Dir) syncDirs() error {
	err := filepath.WalkDir(filepath.Join(d.root, "objects"), func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		return d.fs.SyncDir(p)
	})
	if err != nil {
		return err
	}
	return d.fs.SyncDir(d.root) // objects/ itself, on a new store
}
