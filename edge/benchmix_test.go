package edge

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/internal/hugepages"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire"
	"github.com/valyala/fasthttp"
)

// BenchmarkHandlerMix runs the handler over make bench-edge's request mix
// (about 2,660 distinct passages of the WEB, Zipf-distributed) instead of
// one URI repeated, on 64 request contexts taken in turn as the benchmark's
// 64 connections are: what a hit costs when its lookups are spread over the
// whole working set, as in the running edge, and not found in the
// processor's caches by the previous request for the same URI.
//
// It needs the benchmark's work directory (made by make bench-edge):
//
//	EDGE_BENCH_DIR=$PWD/.run/bench-edge go test -run '^$' -bench HandlerMix ./edge
//
// Each request is the bytes wrk sends, read as fasthttp's server reads
// them (serve). EDGE_BENCH_PATHS=N takes the mix's first N requests only
// (1: one URI repeated, as BenchmarkHandler does). Each answer is written out as
// fasthttp's server writes it (header and body into the connection's
// 4 KiB write buffer, flushed to nowhere); EDGE_BENCH_WRITE=0 leaves the
// answers unwritten, the handler alone. With EDGE_BENCH_HUGE_PAGES=1 the heap is advised to use huge pages, as
// edge serve does (hugepages.Advise). Besides ns/op it reports the
// process's CPU time per request (cpu-ns/op), which other work on a busy
// machine moves less than the wall clock.
//
// docs/edge.md shows how to count its instructions and cache misses per
// request with callgrind (serveMix is the measured part).
func BenchmarkHandlerMix(b *testing.B) {
	dir := os.Getenv("EDGE_BENCH_DIR")
	if dir == "" {
		b.Skip("EDGE_BENCH_DIR names make bench-edge's work directory")
	}
	// Opened and warmed once per test binary: the benchmark function runs
	// again for each b.N.
	mixOnce.Do(func() {
		if os.Getenv("EDGE_BENCH_HUGE_PAGES") == "1" {
			hugepages.Advise(context.Background(), 10*time.Millisecond, 0, slog.New(slog.DiscardHandler))
		}
		mix = openBenchMix(b, dir, Config{})
		// Every resource loaded before measuring, and every composed
		// range's codings made: a range is compressed in a coding when a
		// request first gets that coding (compose.Answer), and a request's
		// Accept-Encoding follows its place in the sequence (serve), so
		// the mix is served five times: each path is asked with each
		// place's Accept-Encoding.
		mix.serve(5*len(mix.paths), mix.srv.Handler)
		// The build's search indexes and aids load in the background
		// (SetBuild); loaded here too, they are done before measuring,
		// and so is the garbage of loading.
		st := mix.srv.site.Load()
		mix.srv.search.Load(st)
		runtime.GC()
		// For callgrind started with --instr-atstart=no: instrumentation
		// may be turned on from here (docs/edge.md).
		fmt.Fprintln(os.Stderr, "benchmix: warm")
	})
	mix.fail = func(status int) { b.Fatalf("status %d", status) }
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime(b)
	mix.serve(b.N, serveMix)
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system time so far.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

var (
	mixOnce sync.Once
	mix     *benchMix
)

type benchMix struct {
	srv   *Server
	key   string
	paths []string
	ctxs  [64]fasthttp.RequestCtx
	ws    [64]*bufio.Writer // each context's write buffer; nil: answers not written
	next  int
	fail  func(int)
	// The next request's bytes, and each context's read buffer, which
	// fasthttp's parser reads them from.
	req []byte
	in  bytes.Reader
	brs [64]*bufio.Reader
}

// openBenchMix opens the mix in dir with an edge configured as cfg, over
// the store in dir.
func openBenchMix(b *testing.B, dir string, cfg Config) *benchMix {
	store, err := publish.OpenDir(filepath.Join(dir, "store"))
	if err != nil {
		b.Fatal(err)
	}
	cfg.Store = store
	srv, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := (&BuildWatcher{Store: store, Server: srv, Log: srv.log}).Check(context.Background()); err != nil {
		b.Fatal(err)
	}
	snap, err := access.ReadFile(filepath.Join(dir, "access.json"))
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.SetAccess(snap); err != nil {
		b.Fatal(err)
	}
	if arrivalOffset == 0 {
		b.Fatal("fasthttp.RequestCtx has no field time of type time.Time: stampArrival cannot stamp a request")
	}
	m := &benchMix{srv: srv, fail: func(status int) { b.Fatalf("status %d", status) }}
	for i := range m.brs {
		m.brs[i] = bufio.NewReaderSize(nil, wire.MaxRequestHeader) // the edge server's ReadBufferSize
	}
	// Each context is served on a connection as the edge's server's are
	// (Listener), over a socket that takes whatever is written to it.
	ln := Listener(&discardListener{})
	defer ln.Close()
	for i := range m.ctxs {
		c, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		m.ctxs[i].Init2(c, nil, false)
		if os.Getenv("EDGE_BENCH_WRITE") != "0" {
			m.ws[i] = bufio.NewWriterSize(c, 4096) // fasthttp's default
		}
	}
	m.paths, m.key = readBenchMix(b, filepath.Join(dir, "edge.lua"))
	if n, err := strconv.Atoi(os.Getenv("EDGE_BENCH_PATHS")); err == nil && n > 0 && n < len(m.paths) {
		m.paths = m.paths[:n]
	}
	return m
}

// readBenchMix reads the paths and the App Key of the wrk script benchmix
// writes: one quoted path a line, and `local key = "…"`.
func readBenchMix(b *testing.B, path string) (paths []string, key string) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, `"/`); ok {
			paths = append(paths, "/"+strings.TrimSuffix(p, `",`))
		} else if k, ok := strings.CutPrefix(line, `local key = "`); ok {
			key = strings.TrimSuffix(k, `"`)
		}
	}
	if err := sc.Err(); err != nil || len(paths) == 0 || key == "" {
		b.Fatalf("%s: no paths or no key (%v)", path, err)
	}
	return paths, key
}

// serve answers n requests of the mix, as wrk sends them and fasthttp's
// server reads them: the next path, one in five accepting gzip only, the
// rest br and gzip, in the bytes make bench-edge's wrk sends (wrkRequest),
// read by fasthttp's parser into the context; then what the server does
// before calling its handler, which a context made by hand lacks: the URI
// parsed (the server refuses a request whose URI does not parse), the
// arrival time (ctx.Time(), which the handler reads instead of the clock)
// and no default Content-Type (the edge's server sets
// NoDefaultContentType).
func (m *benchMix) serve(n int, handle fasthttp.RequestHandler) {
	for range n {
		m.next++
		ci := m.next % len(m.ctxs)
		ctx := &m.ctxs[ci]
		ctx.Request.Reset()
		ctx.Response.Reset()
		ae := "br, gzip"
		if m.next%5 == 0 {
			ae = "gzip"
		}
		m.req = wrkRequest(m.req[:0], m.paths[m.next%len(m.paths)], m.key, ae)
		m.in.Reset(m.req)
		br := m.brs[ci]
		br.Reset(&m.in)
		if err := ctx.Request.Read(br); err != nil {
			panic(err)
		}
		ctx.Request.URI()
		stampArrival(ctx, time.Now())
		ctx.Response.Header.SetNoDefaultContentType(true)
		handle(ctx)
		if s := ctx.Response.StatusCode(); s != 200 {
			m.fail(s)
		}
		if w := m.ws[ci]; w != nil {
			if err := ctx.Response.Write(w); err != nil {
				panic(err)
			}
			w.Flush()
		}
	}
}

// wrkHost is the Host make bench-edge's wrk sends: the edge's address
// there (EDGE_PORT's default).
const wrkHost = "127.0.0.1:18181"

// wrkRequest appends the request wrk sends for path under edge.lua
// (wrk.format: the request line, then Host, X-SVC-App-Key and
// Accept-Encoding in this order, as captured from wrk 4).
func wrkRequest(b []byte, path, key, acceptEncoding string) []byte {
	b = append(b, "GET "...)
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: "+wrkHost+"\r\nX-SVC-App-Key: "...)
	b = append(b, key...)
	b = append(b, "\r\nAccept-Encoding: "...)
	b = append(b, acceptEncoding...)
	return append(b, "\r\n\r\n"...)
}

// arrivalOffset is where a fasthttp.RequestCtx keeps the time its server
// stamps each request with just before calling the handler (ctx.Time()).
// fasthttp has no setter for it: stampArrival writes it as the server
// does. The benchmark fails if the field is not found as expected.
var arrivalOffset = func() uintptr {
	f, ok := reflect.TypeFor[fasthttp.RequestCtx]().FieldByName("time")
	if !ok || f.Type != reflect.TypeFor[time.Time]() {
		return 0
	}
	return f.Offset
}()

func stampArrival(ctx *fasthttp.RequestCtx, t time.Time) {
	*(*time.Time)(unsafe.Add(unsafe.Pointer(ctx), arrivalOffset)) = t
}

// serveMix is the handler call alone, a function of its own so that
// callgrind can count it apart (--toggle-collect).
//
//go:noinline
func serveMix(ctx *fasthttp.RequestCtx) { mix.srv.Handler(ctx) }

// discardListener accepts connections that take whatever is written to
// them and never have anything to read: the benchmark's sockets, so that
// answers are written through the edge's connections (Listener) as in
// the running edge, minus the system calls.
type discardListener struct{}

func (*discardListener) Accept() (net.Conn, error) { return discardConn{}, nil }
func (*discardListener) Close() error              { return nil }
func (*discardListener) Addr() net.Addr            { return wrkAddr }

// wrkAddr is the address the benchmark's connections come from: wrk's,
// on the same machine.
var wrkAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 18181}

// discardConn copies what it is sent into a buffer it then forgets, as
// the kernel copies what a socket is sent into the socket's buffer, so
// that a way of writing answers that leaves reading a body to the kernel
// is not counted as free (docs/edge.md, the fourth round of issue 29).
type discardConn struct{}

// socketBuffer is where discardConn copies what it is sent.
var socketBuffer [64 << 10]byte

func (discardConn) Read([]byte) (int, error) { return 0, io.EOF }
func (discardConn) Write(p []byte) (int, error) {
	for q := p; len(q) > 0; {
		q = q[copy(socketBuffer[:], q):]
	}
	return len(p), nil
}
func (discardConn) Close() error                     { return nil }
func (discardConn) LocalAddr() net.Addr              { return wrkAddr }
func (discardConn) RemoteAddr() net.Addr             { return wrkAddr }
func (discardConn) SetDeadline(time.Time) error      { return nil }
func (discardConn) SetReadDeadline(time.Time) error  { return nil }
func (discardConn) SetWriteDeadline(time.Time) error { return nil }
