//go:build linux

// Command memlat measures what a cache miss costs on this machine: a chain
// of dependent loads, one per 64-byte line of a buffer in a random cyclic
// order, so that each load waits for the one before it (as a hit's lookups
// do), over buffers from L2 size to far beyond the L3, with 4 KiB pages and
// with transparent huge pages (madvise). It reports the thread's CPU time
// per load, which other work on a shared machine moves less than the wall
// clock. docs/edge.md ("Why the edge's own work cost twice as much here")
// has what it showed.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

const hugePage = 2 << 20

func main() {
	loads := flag.Int("loads", 4_000_000, "dependent loads per measurement")
	runs := flag.Int("runs", 2, "measurements per size")
	flag.Parse()
	runtime.LockOSThread()
	for _, mib := range []int{1, 16, 64, 512} {
		for range *runs {
			small, err := chase(mib<<20, false, *loads)
			if err != nil {
				log.Fatal(err)
			}
			huge, err := chase(mib<<20, true, *loads)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%4d MiB  4 KiB pages %6.1f ns/load   huge pages %6.1f ns/load\n", mib, small, huge)
		}
	}
}

// chase follows a random cycle through the lines of a size-byte buffer
// and returns the thread's CPU nanoseconds per load.
func chase(size int, huge bool, loads int) (float64, error) {
	m, err := syscall.Mmap(-1, 0, size+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0, err
	}
	defer syscall.Munmap(m)
	off := (hugePage - int(uintptr(unsafe.Pointer(&m[0])))%hugePage) % hugePage
	b := m[off : off+size]
	if huge {
		if err := syscall.Madvise(b, 14); err != nil { // MADV_HUGEPAGE
			return 0, fmt.Errorf("madvise: %w", err)
		}
	}
	lines := size / 64
	perm := rand.Perm(lines)
	for i := range lines {
		*(*uint64)(unsafe.Pointer(&b[perm[i]*64])) = uint64(perm[(i+1)%lines] * 64)
	}
	p := uint64(perm[0] * 64)
	t0, err := threadCPU()
	if err != nil {
		return 0, err
	}
	for range loads {
		p = *(*uint64)(unsafe.Pointer(&b[p]))
	}
	t1, err := threadCPU()
	if err != nil {
		return 0, err
	}
	runtime.KeepAlive(p)
	return float64(t1-t0) / float64(loads), nil
}

// threadCPU is the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID).
func threadCPU() (time.Duration, error) {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, e
	}
	return time.Duration(ts.Nano()), nil
}
