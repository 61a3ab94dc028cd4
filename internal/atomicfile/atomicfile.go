// Package atomicfile writes a file so that readers see the old content or
// the new, never a part: into a temporary file beside it, then a rename.
package atomicfile

import (
	"os"
	"path/filepath"
)

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
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return err
	}
	err = f.Chmod(Mode)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil && durable {
		// Without the sync, a power cut after the rename can leave the new
		// name pointing at an empty file on some filesystems.
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	if durable {
		// The rename is durable once the directory is synced; if that
		// fails the file is still in place, only less surely so.
		if d, err := os.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return nil
}
