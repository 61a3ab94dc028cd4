package repotest

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// CachedPages is how many pages of the first size bytes of file fd the
// page cache holds, asked with mincore of a mapping, which reads nothing
// in (a read refused by RWF_NOWAIT would start the kernel's readahead).
func CachedPages(t testing.TB, fd, size int) int {
	t.Helper()
	if size == 0 {
		return 0
	}
	m, err := unix.Mmap(fd, 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatalf("map the file: %v", err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (size+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(size), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}
