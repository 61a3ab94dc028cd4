// Package atomicfile writes a file so that readers see the old content or
// the new, never a part: into a temporary file beside it, then a rename.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// FS is what a durable write asks of the file system. OS is the real one;
// a test wraps it to find out what a power cut would keep.
type FS interface {
	CreateTemp(dir, pattern string) (File, error)
	Rename(oldpath, newpath string) error
	Remove(path string) error
	MkdirAll(path string, perm os.FileMode) error
	// SyncDir makes the entries of directory dir (names created, renamed or
	// removed in it) durable.
	SyncDir(dir string) error
}

// File is a file being written.
type File interface {
	io.Writer
	Name() string
	Chmod(mode os.FileMode) error
	Sync() error
	Close() error
}

// OS is the operating system's file system.
var OS FS = osFS{}

type osFS struct{}

func (osFS) CreateTemp(dir, pattern string) (File, error) { return os.CreateTemp(dir, pattern) }
func (osFS) Rename(oldpath, newpath string) error         { return os.Rename(oldpath, newpath) }
func (osFS) Remove(path string) error                     { return os.Remove(path) }
func (osFS) MkdirAll(path string, perm os.FileMode) error { return os.MkdirAll(path, perm) }
func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Mode is the permission of every file Write makes: its owner reads and
// writes it, its group reads it. The edge usually runs as another user than
// the one who publishes, in a group both share; a temporary file alone
// would be 0600 and unreadable to it.
const Mode = 0o640

// Write replaces path with data. The temporary file's name starts with
// tempPrefix, so that a directory's owner can recognise and remove ones a
// crash left behind. With durable, the data and the rename are synced to
// disk before Write returns.
func Write(path string, data []byte, tempPrefix string, durable bool) error {
	if err := WriteData(OS, path, data, tempPrefix, durable); err != nil {
		return err
	}
	if durable {
		// The rename is durable once the directory is synced; if that
		// fails the file is still in place, only less surely so.
		OS.SyncDir(filepath.Dir(path))
	}
	return nil
}

// WriteData replaces path with data through fsys. With synced, the data
// reaches the disk before the rename, so that the name, once a power cut
// keeps it, names the whole content (without the sync, some filesystems
// keep the new name on an empty file); the rename itself is durable only
// after fsys.SyncDir of path's directory, which the caller may batch.
func WriteData(fsys FS, path string, data []byte, tempPrefix string, synced bool) error {
	f, err := fsys.CreateTemp(filepath.Dir(path), tempPrefix+"*")
	if err != nil {
		return err
	}
	return finish(fsys, f, path, data, synced, f.Chmod(Mode))
}

// Overwrite replaces path with data written over tmp, an existing file of
// the caller's that nothing reads any more (a file a cache evicted, moved
// to a temporary name): its inode and blocks are used again, where
// creating a file costs several times as much on some file systems (an
// ext4 without a journal, just after many files were deleted). It is not
// synced. tmp is removed if the write fails.
func Overwrite(tmp, path string, data []byte) error {
	f, err := os.OpenFile(tmp, os.O_WRONLY, 0)
	if err != nil {
		OS.Remove(tmp)
		return err
	}
	return finish(OS, f, path, data, false, f.Truncate(int64(len(data))))
}

// finish writes data into the temporary file f, unless err (of preparing
// it) is set, syncs it when synced, closes it and renames it to path; on
// any error it removes f.
func finish(fsys FS, f File, path string, data []byte, synced bool, err error) error {
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil && synced {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.Rename(f.Name(), path)
	}
	if err != nil {
		fsys.Remove(f.Name())
		return err
	}
	return nil
}
