// Package diskread reads files without holding the Go scheduler while the
// disk works.
//
// A goroutine in a system call keeps its processor (P) until the runtime's
// monitor takes it back, and the monitor, when it has found nothing to
// take for a while, looks only every 10 ms. An edge serving from one P
// (GOMAXPROCS=1) therefore stops answering for as long as a read of a file
// not in the page cache waits for the disk: a few hundred microseconds on
// a virtual disk, for every request at once. ReadAt asks the page cache
// alone first (preadv2 with RWF_NOWAIT); what it lacks is read in by the
// kernel in the background (POSIX_FADV_WILLNEED) while the goroutine
// sleeps, its P serving other requests, and the read is tried again.
package diskread

import (
	"errors"
	"io/fs"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// firstWait is the first sleep after a miss of the page cache, about
	// what a read of a virtual disk takes; each later one doubles.
	firstWait = 100 * time.Microsecond
	// maxWait: past a sleep this long the device is slow or stuck, and
	// the read waits for it in the system call instead.
	maxWait = 25 * time.Millisecond
	// readAhead is the least a miss asks the kernel to read in: its first
	// readahead window for a short read, so that a pack's next range
	// (its entry after its header) likely comes with it.
	readAhead = 64 << 10
)

// waits counts the sleeps for the disk, and refusals the reads refused
// RWF_NOWAIT, for tests.
var waits, refusals atomic.Int64

// Files reads the files of one directory (a directory store's, a disk
// cache's), taken to be on one file system. Its zero value is ready.
//
// It remembers that their file system refuses RWF_NOWAIT, as tmpfs does
// (a disk cache in memory, /dev/shm): its reads then go to pread(2) at
// once, where asking first cost every read a system call refused. (They
// wait in the system call, as they would have after the refusal; tmpfs
// never waits for a disk.)
type Files struct {
	refused atomic.Bool
	open    atomic.Pointer[openSet] // nil unless KeepOpen
}

// ReadAt reads len(b) bytes of the file fd at off into b, as pread(2)
// does: fewer only at the end of the file. It returns how many it read.
func (f *Files) ReadAt(fd int, b []byte, off int64) (int, error) {
	if f.refused.Load() {
		return pread(fd, b, off)
	}
	n, wait, asked := 0, firstWait, false
	for n < len(b) {
		k, err := unix.Preadv2(fd, [][]byte{b[n:]}, off+int64(n), unix.RWF_NOWAIT)
		switch {
		case err == nil && k == 0:
			return n, nil // the end of the file
		case err == nil:
			n += k
		case errors.Is(err, unix.EINTR):
		case errors.Is(err, unix.EAGAIN) && wait <= maxWait:
			if !asked {
				// Read in what is left, in the background.
				unix.Fadvise(fd, off+int64(n), max(int64(len(b)-n), readAhead), unix.FADV_WILLNEED)
				asked = true
			}
			waits.Add(1)
			time.Sleep(wait)
			wait *= 2
		case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EINVAL):
			// A kernel or file system without RWF_NOWAIT: from now on,
			// pread at once.
			refusals.Add(1)
			f.refused.Store(true)
			fallthrough
		case errors.Is(err, unix.EAGAIN):
			// A slow device, or no RWF_NOWAIT: wait in the system call.
			k, err := pread(fd, b[n:], off+int64(n))
			return n + k, err
		default:
			return n, err
		}
	}
	return n, nil
}

// pread is pread(2) until b is full or the file ends.
func pread(fd int, b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		k, err := unix.Pread(fd, b[n:], off+int64(n))
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return n, err
		case k == 0:
			return n, nil
		default:
			n += k
		}
	}
	return n, nil
}

// ReadFileAt reads len(b) bytes at off of the file named name into b, as
// ReadAt does: fewer only at the end of the file. path gives a name's
// path, and is asked only to open the file: a file kept open (KeepOpen)
// is found by its name alone, so that a read of a kept file neither
// builds nor checks its path. (A name must be one file's, and a path
// one name's.)
func (f *Files) ReadFileAt(name string, path func(name string) (string, error), b []byte, off int64) (int, error) {
	var fd int
	var p string
	if o := f.open.Load(); o != nil {
		of, err := o.acquire(name, path)
		if err != nil {
			return 0, err
		}
		defer o.release(of)
		fd, p = of.fd, of.path
	} else {
		var err error
		if p, err = path(name); err != nil {
			return 0, err
		}
		if fd, err = Open(p); err != nil {
			return 0, err
		}
		defer unix.Close(fd)
	}
	n, err := f.ReadAt(fd, b, off)
	if err != nil {
		return n, &fs.PathError{Op: "read", Path: p, Err: err}
	}
	return n, nil
}

// ReadFile returns the bytes of the file at path, as os.ReadFile does.
func (f *Files) ReadFile(path string) ([]byte, error) {
	fd, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	// One byte more than the size, to see the end of a file that grew.
	b := make([]byte, st.Size+1)
	for n := 0; ; {
		k, err := f.ReadAt(fd, b[n:], int64(n))
		n += k
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n < len(b) {
			return b[:n], nil
		}
		b = append(b, make([]byte, len(b))...)
	}
}

// Open opens path for reading, as os.Open does, for a descriptor alone:
// without an os.File's poller registration and cleanup.
func Open(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}
