package hugepages

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
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
	if mode := Advise(ctx, 10*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil))); mode != "madvise" {
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

// advised reports whether the mapping holding addr has huge pages advised
// (VmFlags "hg" in /proc/self/smaps).
func advised(t *testing.T, addr uintptr) bool {
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
		if flags, ok := bytes.CutPrefix(line, []byte("VmFlags:")); ok && in {
			return bytes.Contains(flags, []byte(" hg"))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return false
}
