package hugepages

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

func TestThpMode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"always [madvise] never\n", "madvise"},
		{"[always] madvise never\n", "always"},
		{"always madvise [never]\n", "never"},
		{"always madvise never\n", ""},
		{"", ""},
		{"] [", ""},
	} {
		if got := thpMode([]byte(tc.in)); got != tc.want {
			t.Errorf("thpMode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHugeCandidate(t *testing.T) {
	for _, tc := range []struct {
		line       string
		start, end uintptr
		ok         bool
	}{
		{"c000000000-c004000000 rw-p 00000000 00:00 0", 0xc000000000, 0xc004000000, true},
		{"7f0a1c000000-7f0a1c200000 rw-p 00000000 00:00 0 ", 0x7f0a1c000000, 0x7f0a1c200000, true},
		// Smaller than a huge page.
		{"c000000000-c0001ff000 rw-p 00000000 00:00 0", 0, 0, false},
		// Not writable, shared, or a file.
		{"c000000000-c004000000 ---p 00000000 00:00 0", 0, 0, false},
		{"c000000000-c004000000 rw-s 00000000 00:01 1234 /dev/zero (deleted)", 0, 0, false},
		{"00400000-00800000 rw-p 00000000 fd:01 42 /usr/bin/edge", 0, 0, false},
		{"7ffd1000000-7ffd1400000 rw-p 00000000 00:00 0 [stack]", 0, 0, false},
		// Malformed.
		{"c000000000 rw-p 00000000 00:00 0", 0, 0, false},
		{"zz-c004000000 rw-p 00000000 00:00 0", 0, 0, false},
		{"", 0, 0, false},
	} {
		start, end, ok := hugeCandidate([]byte(tc.line))
		if start != tc.start || end != tc.end || ok != tc.ok {
			t.Errorf("hugeCandidate(%q) = %#x, %#x, %v; want %#x, %#x, %v", tc.line, start, end, ok, tc.start, tc.end, tc.ok)
		}
	}
}

// TestAdvise: on a kernel that gives huge pages only when asked, a large
// heap allocation's mapping is advised (its VmFlags carry "hg"), also one
// the heap maps after the first look.
func TestAdvise(t *testing.T) {
	b, err := os.ReadFile(thpModeFile)
	if err != nil || thpMode(b) != "madvise" {
		t.Skipf("transparent huge pages are not in madvise mode here (%q, %v)", b, err)
	}
	// Larger than an arena: the heap maps new memory for it, which
	// nothing has advised yet.
	before := make([]byte, 256<<20)
	if advised(t, uintptr(unsafe.Pointer(&before[0]))) {
		// Only a process in which Advise ran before (go test -count 2)
		// can have reused advised memory for it.
		t.Skip("the heap memory was advised before this test ran")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if mode := Advise(ctx, 10*time.Millisecond, 0, slog.New(slog.NewTextHandler(io.Discard, nil))); mode != "madvise" {
		t.Fatalf("Advise reported mode %q, want madvise", mode)
	}
	if !advised(t, uintptr(unsafe.Pointer(&before[0]))) {
		t.Error("the heap mapping made before Advise was not advised")
	}
	// And one mapped after its first look, on a later one.
	later := make([]byte, 256<<20)
	addr := uintptr(unsafe.Pointer(&later[0]))
	deadline := time.Now().Add(5 * time.Second)
	for !advised(t, addr) {
		if time.Now().After(deadline) {
			t.Fatalf("the mapping holding %#x was not advised within 5 s", addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	before[0], later[0] = 1, 1
}

// TestCollapse: a look merges at once the huge-page ranges of an advised
// mapping that are all resident in small pages (pages touched before the
// advice), and leaves a sparse one alone, not filling it.
func TestCollapse(t *testing.T) {
	b, err := os.ReadFile(thpModeFile)
	if err != nil || thpMode(b) != "madvise" {
		t.Skipf("transparent huge pages are not in madvise mode here (%q, %v)", b, err)
	}
	dense := hugeAligned(t, 8)
	for i := 0; i < len(dense); i += os.Getpagesize() {
		dense[i] = 1 // small pages: nothing advised them yet
	}
	sparse := hugeAligned(t, 8)
	for i := 0; i < len(sparse); i += hugePageSize {
		sparse[i] = 1
	}
	if got := smapsKB(t, &dense[0], "AnonHugePages:"); got != 0 {
		t.Skipf("the kernel gave huge pages without advice (%d KiB)", got)
	}
	if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err != nil || !atLeast(string(rel), 6, 1) {
		t.Skipf("MADV_COLLAPSE needs Linux 6.1; this is %q (%v)", rel, err)
	}
	a := newAdvisor(slog.New(slog.NewTextHandler(io.Discard, nil)))
	// A page touched a moment ago may not be on the kernel's LRU lists
	// yet, and its range refuses (EAGAIN) until it is: the advisor tries
	// again at its next look, as it does every second in the edge.
	want := len(dense) >> 10
	looks := 0
	for ; looks < 10; looks++ {
		a.advise()
		if a.noCollapse {
			t.Fatal("the kernel refused MADV_COLLAPSE on a resident range")
		}
		if smapsKB(t, &dense[0], "AnonHugePages:") >= want {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := smapsKB(t, &dense[0], "AnonHugePages:"); got < want {
		t.Errorf("dense mapping: %d KiB in huge pages after %d looks, want %d", got, looks, want)
	}
	if got := smapsKB(t, &sparse[0], "AnonHugePages:"); got != 0 {
		t.Errorf("sparse mapping: %d KiB in huge pages, want none (a merge fills it)", got)
	}
	if got, want := smapsKB(t, &sparse[0], "Rss:"), len(sparse)/hugePageSize*os.Getpagesize()>>10; got > want {
		t.Errorf("sparse mapping: %d KiB resident after a look, want %d", got, want)
	}
	// The advisor knows what it merged, and asks no more of it.
	for i := 0; i < len(dense); i += hugePageSize {
		if p := uintptr(unsafe.Pointer(&dense[i])); !a.merged[p] {
			t.Errorf("range %#x of the dense mapping not recorded as merged", p)
		}
		if p := uintptr(unsafe.Pointer(&sparse[i])); a.merged[p] {
			t.Errorf("range %#x of the sparse mapping recorded as merged", p)
		}
	}
}

// TestReserveHeap: once reserveHeap has run, the memory the heap takes for
// small objects comes from the kernel as huge pages at its first touch,
// with no look (and so no merge) after it; without the reservation the
// heap grows into mappings no look has advised. Each case runs in a
// process of its own, for a heap that no other test has grown.
func TestReserveHeap(t *testing.T) {
	if n := os.Getenv("HUGEPAGES_RESERVE"); n != "" {
		reserveChild(t, n)
		return
	}
	b, err := os.ReadFile(thpModeFile)
	if err != nil || thpMode(b) != "madvise" {
		t.Skipf("transparent huge pages are not in madvise mode here (%q, %v)", b, err)
	}
	huge := func(reserve int) int {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReserveHeap$", "-test.v")
		cmd.Env = append(os.Environ(), "HUGEPAGES_RESERVE="+strconv.Itoa(reserve))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		_, v, ok := bytes.Cut(out, []byte("anon_huge_kib="))
		if !ok {
			t.Fatalf("no anon_huge_kib in %s", out)
		}
		f := bytes.Fields(v)
		n, err := strconv.Atoi(string(f[0]))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	with, without := huge(512<<20), huge(0)
	t.Logf("after 256 MiB of small objects: %d KiB in huge pages with the reservation, %d without", with, without)
	if with < 192<<10 {
		t.Errorf("with a reservation of 512 MiB: %d KiB of the heap's 256 MiB of objects in huge pages, want at least 192 MiB", with>>10)
	}
}

// TestReserveBytes: the reservation is the heap's limit in whole huge
// pages, none without a limit, and never more than the machine allows
// (reserveMost).
func TestReserveBytes(t *testing.T) {
	const most = 1<<30 + 12345
	for _, tc := range []struct {
		limit int64
		most  uintptr
		want  uintptr
	}{
		{0, most, 0},
		{-1, most, 0},
		{math.MaxInt64, most, 0},
		{64<<20 + 5, most, 64 << 20},
		{1 << 50, most, 1 << 30},
		{1 << 50, 0, 0},
	} {
		if got := reserveBytes(tc.limit, tc.most); got != tc.want {
			t.Errorf("reserveBytes(%d, %d) = %d, want %d", tc.limit, tc.most, got, tc.want)
		}
	}
	// What this machine allows: at most half its memory (MemTotal, KiB).
	info, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	_, v, _ := bytes.Cut(info, []byte("MemTotal:"))
	kib, err := strconv.ParseUint(string(bytes.Fields(v)[0]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if got := reserveMost(); uint64(got) > kib<<10/2 {
		t.Errorf("reserveMost() = %d, more than half of MemTotal (%d KiB)", got, kib)
	}
}

// reserveChild is TestReserveHeap's process: it reserves n bytes (a
// decimal number), then fills 256 MiB of 32 KiB objects, and prints the
// process's huge pages.
func reserveChild(t *testing.T, n string) {
	r, err := strconv.Atoi(n)
	if err != nil {
		t.Fatal(err)
	}
	a := newAdvisor(slog.New(slog.NewTextHandler(io.Discard, nil)))
	a.reserveHeap(uintptr(r))
	keep := make([][]byte, 0, 8192)
	for range cap(keep) {
		b := make([]byte, 32<<10)
		for i := 0; i < len(b); i += os.Getpagesize() {
			b[i] = 1
		}
		keep = append(keep, b)
	}
	rollup, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Fatal(err)
	}
	_, v, _ := bytes.Cut(rollup, []byte("AnonHugePages:"))
	fmt.Printf("anon_huge_kib=%s\n", bytes.Fields(v)[0])
	runtime.KeepAlive(keep)
}

// atLeast reports whether the kernel release rel ("6.18.44-…") is at least
// major.minor.
func atLeast(rel string, major, minor int) bool {
	f := strings.FieldsFunc(rel, func(r rune) bool { return r < '0' || r > '9' })
	if len(f) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(f[0])
	mi, err2 := strconv.Atoi(f[1])
	return err1 == nil && err2 == nil && (ma > major || ma == major && mi >= minor)
}

// hugeAligned maps mib MiB of anonymous memory starting on a huge-page
// boundary, unmapped when the test ends. Its neighbours are left unmapped
// so that the kernel cannot merge it with another mapping.
func hugeAligned(t *testing.T, mib int) []byte {
	t.Helper()
	m, err := syscall.Mmap(-1, 0, mib<<20+2*hugePageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	off := hugePageSize - int(uintptr(unsafe.Pointer(&m[0])))%hugePageSize
	// Guard pages around it, so that it is a mapping of its own.
	if err := syscall.Mprotect(m[off-os.Getpagesize():off], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	end := off + mib<<20
	if err := syscall.Mprotect(m[end:end+os.Getpagesize()], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	return m[off:end]
}

// advised reports whether the mapping holding addr has huge pages advised
// (VmFlags "hg" in /proc/self/smaps).
func advised(t *testing.T, addr uintptr) bool {
	t.Helper()
	return bytes.Contains(smapsField(t, addr, "VmFlags:"), []byte(" hg"))
}

// smapsKB is a size field of the mapping holding p in /proc/self/smaps, in KiB.
func smapsKB(t *testing.T, p *byte, field string) int {
	t.Helper()
	f := bytes.Fields(smapsField(t, uintptr(unsafe.Pointer(p)), field))
	if len(f) == 0 {
		t.Fatalf("no %s for %p in /proc/self/smaps", field, p)
	}
	n, err := strconv.Atoi(string(f[0]))
	if err != nil {
		t.Fatalf("%s %q: %v", field, f[0], err)
	}
	return n
}

// smapsField is the value of field (with its colon) of the mapping holding
// addr in /proc/self/smaps; nil when there is none.
func smapsField(t *testing.T, addr uintptr, field string) []byte {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Bytes()
		if r, _, ok := bytes.Cut(line, []byte(" ")); ok && bytes.IndexByte(r, '-') > 0 && !bytes.HasSuffix(r, []byte(":")) {
			s, e, _ := strings.Cut(string(r), "-")
			start, err1 := strconv.ParseUint(s, 16, 64)
			end, err2 := strconv.ParseUint(e, 16, 64)
			in = err1 == nil && err2 == nil && uint64(addr) >= start && uint64(addr) < end
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte(field)); ok && in {
			return append([]byte(nil), v...)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return nil
}
