// Command dropcache asks the kernel to let go of the page cache's copy of
// every file under the directories given (POSIX_FADV_DONTNEED), without
// touching the files. make bench-scale runs the directory store, then
// MinIO, on one machine: by MinIO's turn the page cache holds the store
// the directory turn read, MinIO's own copy of it and the disk cache, more
// than the machine's memory, and the kernel reclaims and compacts memory
// in the edge's own allocations (direct reclaim), which a machine serving
// one edge would not. Dropping the directory store's pages before MinIO's
// turn leaves that turn the memory it would have.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: dropcache DIR...")
		os.Exit(2)
	}
	for _, dir := range os.Args[1:] {
		n, err := drop(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dropcache:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "dropcache: %d files under %s\n", n, dir)
	}
}

// drop advises the kernel to drop the cached pages of each regular file
// under dir, and returns how many it advised. Dirty pages are written
// first (fdatasync), since the kernel drops only clean ones.
func drop(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		fd := int(f.Fd())
		if err := unix.Fdatasync(fd); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		n++
		return nil
	})
	return n, err
}
