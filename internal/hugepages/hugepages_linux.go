package hugepages

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// hugePageSize is the size of a transparent huge page on the platforms Go
// runs on under Linux (x86-64 and arm64 with 4 KiB base pages).
const hugePageSize = 2 << 20

// madvHugePage is MADV_HUGEPAGE, madvCollapse MADV_COLLAPSE (Linux 6.1).
const (
	madvHugePage = 14
	madvCollapse = 25
)

// denseMin is how many of a huge page's 512 small pages must be resident
// before its range is collapsed into a huge page: a collapse fills the
// missing ones (it ignores khugepaged's max_ptes_none), so a sparse range
// (memory the Go runtime returned to the kernel) would grow the resident
// size. 480 bounds that growth to about 6 %.
const denseMin = 480

// thpModeFile says for which memory the kernel uses transparent huge
// pages: "always", only where a process asked ("madvise"), or "never".
const thpModeFile = "/sys/kernel/mm/transparent_hugepage/enabled"

// Advise asks the kernel to back the process's large anonymous
// mappings (the Go heap's arenas, 64 MiB each on 64-bit Linux) with
// transparent huge pages, when the kernel uses them only where asked
// (mode "madvise", the default of many distributions and of this project's
// benchmark machine). The Go runtime no longer asks for them itself, so
// there the heap is all 4 KiB pages.
//
// A server whose requests each read a few lines scattered over a heap of
// hundreds of MiB (the edge's pack cache) misses the TLB on most of them,
// and under a hypervisor's nested paging a TLB miss costs a page walk of up
// to 24 memory reads: the edge's own work per request cost about twice as
// much as on a machine whose kernel backs the heap with huge pages
// (docs/edge.md, "Why the edge's own work cost twice as much here").
//
// The heap grows by mapping new arenas, each a mapping of its own, so the
// mappings are looked at again every interval until ctx ends; a mapping
// already advised is not advised again. Advice alone moves no page that is
// already there: a page touched before its mapping was advised (and the
// heap fills a new arena before the next look) stays a small page until
// the kernel's khugepaged merges it, 16 MiB every 10 s with its defaults,
// so a heap of 500 MiB takes about five minutes. So each look also asks the
// kernel to merge at once (MADV_COLLAPSE) every huge-page range of an
// advised mapping that is nearly all resident (denseMin) and not merged
// yet. A merge copies the range's pages while the calling thread waits, 3.5
// to 17 ms a range on a virtual machine, and that thread is the process's
// processor for as long (docs/edge.md, "The huge-page advisor's merges
// stall the edge"). So, when reserve is more than 0 (the heap's limit), the
// heap is made to map that much at once before it needs it, and the first
// look advises that mapping before any of it is touched (reserveHeap): the
// heap then grows into memory the kernel backs with a huge page at its
// first touch, and the merges are left for what was touched before the
// advice or split since. It reports the mode found and logs what it
// advised and merged; errors are logged, never fatal: huge pages are an
// optimisation.
func Advise(ctx context.Context, every time.Duration, reserve int64, log *slog.Logger) string {
	b, err := os.ReadFile(thpModeFile)
	if err != nil {
		log.Info("transparent huge pages unknown", "err", err)
		return ""
	}
	mode := thpMode(b)
	if mode != "madvise" {
		// "always" backs the heap already, "never" refuses.
		return mode
	}
	a := newAdvisor(log)
	reserved := a.reserveHeap(reserveBytes(reserve, reserveMost()))
	log.Info("huge pages advised for the heap", "bytes", a.bytes, "reserved_bytes", reserved, "collapsed_bytes", a.collapsed*hugePageSize)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				before := a.collapsed
				a.advise()
				if a.collapsed > before {
					log.Info("huge pages merged", "bytes", (a.collapsed-before)*hugePageSize, "total_bytes", a.collapsed*hugePageSize)
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return mode
}

// thpMode is the bracketed word of the kernel's THP setting, as in
// "always [madvise] never".
func thpMode(b []byte) string {
	i := bytes.IndexByte(b, '[')
	j := bytes.IndexByte(b, ']')
	if i < 0 || j < i {
		return ""
	}
	return string(b[i+1 : j])
}

type hugeAdvisor struct {
	advised map[[2]uintptr]bool // mappings advised, by start and end
	bytes   uintptr             // their size
	failed  bool                // an error was logged
	log     *slog.Logger

	// merged holds the huge-page ranges (by start) a collapse merged and
	// that are still all resident; collapsed counts the merges. A range
	// the kernel gave as a huge page at its first touch is asked once
	// too, and counts: the kernel answers at once (about 1.3 µs, where a
	// merge of small pages takes a millisecond or more), and mincore
	// cannot tell the two apart.
	merged    map[uintptr]bool
	collapsed uintptr
	// noCollapse is set when the kernel has no MADV_COLLAPSE (before 6.1).
	noCollapse bool
	resident   []byte // mincore's answer, reused
}

func newAdvisor(log *slog.Logger) *hugeAdvisor {
	return &hugeAdvisor{advised: map[[2]uintptr]bool{}, merged: map[uintptr]bool{}, log: log}
}

// reserveHeap makes the heap map n bytes at once (one allocation, never
// touched), looks at the mappings (advising that one while none of its
// pages is resident), and lets the allocation go, its memory returned to
// the kernel. The Go runtime's page allocator takes the lowest free
// addresses first, so the heap's later growth reuses that advised range
// rather than mapping new memory that no look has advised yet, and each
// 2 MiB of it becomes a huge page at its first touch. Mapped memory that
// is never touched costs no resident memory. It reports n; with n 0 it
// only looks.
func (a *hugeAdvisor) reserveHeap(n uintptr) uintptr {
	if n == 0 {
		a.advise()
		return 0
	}
	r := make([]byte, n)
	a.advise()
	// Unreachable from here on: a collection frees it, and the memory
	// goes back to the kernel (its pages were never there), so that the
	// runtime counts none of it against the heap's limit.
	runtime.KeepAlive(r)
	debug.FreeOSMemory()
	return n
}

// reserveBytes is how much reserveHeap may map at once: the heap's limit
// (nothing without one) in whole huge pages, and not more than most
// (what reserveMost allows).
func reserveBytes(limit int64, most uintptr) uintptr {
	if limit <= 0 || limit == math.MaxInt64 {
		return 0
	}
	return uintptr(min(uint64(limit), uint64(most))) &^ (hugePageSize - 1)
}

// reserveMost is the most this machine lets reserveHeap map: half its
// memory. Nothing where the kernel counts every private mapping against a
// commit limit (vm.overcommit_memory 2), since a heap mapping it refused
// would end the process (the Go runtime cannot recover from one), nor on a
// 32-bit platform, whose address space may have no free range that large.
func reserveMost() uintptr {
	if unsafe.Sizeof(uintptr(0)) < 8 {
		return 0
	}
	if b, err := os.ReadFile("/proc/sys/vm/overcommit_memory"); err != nil || strings.TrimSpace(string(b)) == "2" {
		return 0
	}
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return uintptr(uint64(si.Totalram) * uint64(si.Unit) / 2)
}

func (a *hugeAdvisor) advise() {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		a.fail(err)
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		start, end, ok := hugeCandidate(sc.Bytes())
		if !ok {
			continue
		}
		if !a.advised[[2]uintptr{start, end}] {
			if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugePage); e != 0 {
				a.fail(fmt.Errorf("madvise %#x-%#x: %w", start, end, e))
				continue
			}
			a.advised[[2]uintptr{start, end}] = true
			a.bytes += end - start
		}
		a.collapse(start, end)
	}
	if err := sc.Err(); err != nil {
		a.fail(err)
	}
}

// collapse merges the dense huge-page ranges of the mapping start-end
// that are not merged yet. A range none of whose pages are resident cannot
// be merged (the kernel answers EINVAL: it has no page table to merge), nor
// should a sparse one be (denseMin). Ranges are merged one by one, so that
// one failure (EAGAIN: a page was busy, or touched so recently that it is
// not on the kernel's LRU lists yet; ENOMEM: no free 2 MiB of memory)
// leaves the others merged; a failed range is tried again at the next look.
func (a *hugeAdvisor) collapse(start, end uintptr) {
	if a.noCollapse {
		return
	}
	first := (start + hugePageSize - 1) &^ (hugePageSize - 1)
	if first+hugePageSize > end {
		return
	}
	n := int((end - first) / hugePageSize)
	pages := n * hugePageSize / os.Getpagesize()
	if cap(a.resident) < pages {
		a.resident = make([]byte, pages)
	}
	vec := a.resident[:pages]
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, first, uintptr(n*hugePageSize), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		a.fail(fmt.Errorf("mincore %#x-%#x: %w", first, end, e))
		return
	}
	per := pages / n
	for i := range n {
		addr := first + uintptr(i)*hugePageSize
		in := 0
		for _, r := range vec[i*per : (i+1)*per] {
			in += int(r & 1)
		}
		if in < denseMin {
			// Partly returned to the kernel since: a merge no longer
			// holds, and the range may be merged again once refilled.
			delete(a.merged, addr)
			continue
		}
		if a.merged[addr] {
			continue
		}
		_, _, e := syscall.Syscall(syscall.SYS_MADVISE, addr, hugePageSize, madvCollapse)
		switch e {
		case 0:
			a.merged[addr] = true
			a.collapsed++
		case syscall.EINVAL:
			// A resident range refused: the kernel has no MADV_COLLAPSE
			// (before Linux 6.1) or the mapping refuses huge pages.
			a.noCollapse = true
			a.fail(fmt.Errorf("madvise(MADV_COLLAPSE) %#x: %w", addr, e))
			return
		case syscall.ENOMEM:
			// No free huge page: memory is fragmented; the rest would
			// fail alike until the kernel compacts it.
			a.fail(fmt.Errorf("madvise(MADV_COLLAPSE) %#x: %w", addr, e))
			return
		default: // EAGAIN and the like: tried again at the next look
		}
	}
}

func (a *hugeAdvisor) fail(err error) {
	if !a.failed {
		a.failed = true
		a.log.Warn("advising huge pages", "err", err)
	}
}

// hugeCandidate reads a line of /proc/self/maps and reports the range of a
// private, anonymous, readable and writable mapping that can hold a whole
// huge page: "c000000000-c004000000 rw-p 00000000 00:00 0". Mappings of
// files, shared ones, stacks and the like ("[stack]") are left alone.
func hugeCandidate(line []byte) (start, end uintptr, ok bool) {
	f := bytes.Fields(line)
	if len(f) != 5 || string(f[1]) != "rw-p" || string(f[4]) != "0" {
		return 0, 0, false
	}
	dash := bytes.IndexByte(f[0], '-')
	if dash < 0 {
		return 0, 0, false
	}
	s, err1 := strconv.ParseUint(string(f[0][:dash]), 16, 64)
	e, err2 := strconv.ParseUint(string(f[0][dash+1:]), 16, 64)
	if err1 != nil || err2 != nil || e < s+hugePageSize {
		return 0, 0, false
	}
	return uintptr(s), uintptr(e), true
}
