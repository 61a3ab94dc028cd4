package hugepages

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"syscall"
	"time"
)

// hugePageSize is the size of a transparent huge page on the platforms Go
// runs on under Linux (x86-64 and arm64 with 4 KiB base pages).
const hugePageSize = 2 << 20

// madvHugePage is MADV_HUGEPAGE.
const madvHugePage = 14

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
// already advised is not advised again. Advice does not move pages: the
// kernel's khugepaged merges an advised mapping's pages into huge pages in
// the background (16 MiB every 10 s with its defaults, so a heap of 500 MiB
// takes about five minutes), and in the edge few pages came as huge pages
// at their first touch. It reports the mode found and logs what it
// advised; errors are logged, never fatal: huge pages are an optimisation.
func Advise(ctx context.Context, every time.Duration, log *slog.Logger) string {
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
	a := &hugeAdvisor{advised: map[[2]uintptr]bool{}, log: log}
	a.advise()
	log.Info("huge pages advised for the heap", "bytes", a.bytes)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				a.advise()
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
		if !ok || a.advised[[2]uintptr{start, end}] {
			continue
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugePage); e != 0 {
			a.fail(fmt.Errorf("madvise %#x-%#x: %w", start, end, e))
			continue
		}
		a.advised[[2]uintptr{start, end}] = true
		a.bytes += end - start
	}
	if err := sc.Err(); err != nil {
		a.fail(err)
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
