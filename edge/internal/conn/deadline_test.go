package conn

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// TestCoarseDeadlinesApplied checks which deadlines reach the connection
// as it turns from reading to writing and back, with the listener's clock
// set by hand: one per turn while the clock moves by the slack or more,
// none while it stands still or moves by less; never later than exact.
func TestCoarseDeadlinesApplied(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() { // the client: echoes nothing, reads everything
		buf := make([]byte, 64)
		for {
			if _, err := b.Read(buf); err != nil {
				return
			}
		}
	}()
	t0 := time.Now()
	l := &coarseListener{read: 30 * time.Second, write: 60 * time.Second, slack: time.Second}
	l.now.Store(t0.UnixNano())
	c := &coarseConn{Conn: a, l: l, writing: true}
	c.toReading() // as Accept does
	answer := func() {
		if _, err := c.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("y")) // a second write of the same answer
		if c.writing {
			c.toReading() // what the next Read does first
		}
	}
	check := func(step string, rdN, wdN uint64, now time.Time) {
		t.Helper()
		if c.rdN != rdN || c.wdN != wdN {
			t.Errorf("%s: %d read and %d write deadlines applied, want %d and %d", step, c.rdN, c.wdN, rdN, wdN)
		}
		if c.rd.After(now.Add(l.read)) || c.wd.After(now.Add(l.write)) {
			t.Errorf("%s: deadlines %v, %v later than exact", step, c.rd, c.wd)
		}
	}
	check("accepted", 1, 0, t0)
	answer()
	check("first answer", 1, 1, t0)
	answer()
	answer()
	check("clock still", 1, 1, t0)
	t1 := t0.Add(999 * time.Millisecond)
	l.now.Store(t1.UnixNano())
	answer()
	check("clock moved less than the slack", 1, 1, t1)
	t2 := t0.Add(time.Second)
	l.now.Store(t2.UnixNano())
	answer()
	check("clock moved by the slack", 2, 2, t2)
	c.SetReadDeadline(time.Time{})
	answer()
	check("cleared from outside, set again", 3, 2, t2)
}

// TestCoarseConnYields checks when a connection yields before reading
// (coarseConn.Read): before the first read after every other answer, never
// before a read within a request or the first request's, and not at all
// while the listener has more open connections than yieldMax. Yielding
// after every answer, or with many connections, starves the network
// poller under load (docs/edge.md).
func TestCoarseConnYields(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() { // the client: sends requests in pieces, reads everything
		buf := make([]byte, 64)
		for {
			if _, err := b.Write([]byte("req")); err != nil {
				return
			}
			if _, err := b.Read(buf); err != nil {
				return
			}
		}
	}()
	l := &coarseListener{read: 30 * time.Second, write: 60 * time.Second, slack: time.Second, yieldMax: 1}
	l.now.Store(time.Now().UnixNano())
	l.open.Store(1) // this connection, within yieldMax
	c := &coarseConn{Conn: a, l: l, writing: true}
	c.toReading() // as Accept does
	buf := make([]byte, 1)
	read := func() {
		t.Helper()
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	read()
	read()
	read() // the first request, read byte by byte
	if c.yieldN != 0 {
		t.Fatalf("%d yields before the first answer, want none", c.yieldN)
	}
	for i := 1; i <= 6; i++ {
		if _, err := c.Write([]byte("answer")); err != nil {
			t.Fatal(err)
		}
		read()
		read()
		read()
		if want := uint64((i + 1) / 2); c.yieldN != want {
			t.Fatalf("after %d answers: %d yields, want %d", i, c.yieldN, want)
		}
	}
	l.open.Store(2) // past yieldMax
	for range 4 {
		if _, err := c.Write([]byte("answer")); err != nil {
			t.Fatal(err)
		}
		read()
		read()
		read()
	}
	if c.yieldN != 3 {
		t.Fatalf("%d yields with more open connections than yieldMax, want none", c.yieldN-3)
	}
}

// TestCoarseListenerCountsOpen checks the open connections the yield is
// bounded by: one per accept, one less per connection closed however many
// times its Close is called.
func TestCoarseListenerCountsOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := CoarseDeadlines(ln, time.Minute, time.Minute, time.Second).(*coarseListener)
	defer cl.Close()
	var conns []net.Conn
	for range 3 {
		d, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		c, err := cl.Accept()
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if n := cl.open.Load(); n != 3 {
		t.Fatalf("%d open after 3 accepts", n)
	}
	conns[0].Close()
	conns[0].Close()
	conns[1].Close()
	if n := cl.open.Load(); n != 1 {
		t.Fatalf("%d open after closing 2 of 3, one twice", n)
	}
}

// TestCoarseDeadlinesSlowloris serves with fasthttp as cmd/edge does (no
// timeouts of its own) over CoarseDeadlines: a client that trickles a
// request's headers is dropped within the request timeout, one that stops
// reading a long answer within the answer timeout, while one that keeps
// sending whole requests is served throughout.
func TestCoarseDeadlinesSlowloris(t *testing.T) {
	const timeout = 400 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 64<<20)
	srv := &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			if string(ctx.Path()) == "/big" {
				ctx.SetBodyString(big)
				return
			}
			ctx.SetBodyString("ok")
		},
	}
	go srv.Serve(CoarseDeadlines(ln, timeout, timeout, 100*time.Millisecond))
	defer srv.Shutdown()

	slow, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	start := time.Now()
	var closedAfter time.Duration
	for _, b := range []byte("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 40)) {
		if _, err := slow.Write([]byte{b}); err != nil {
			closedAfter = time.Since(start)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if closedAfter == 0 {
		// The server may have closed without the writes noticing yet.
		slow.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := slow.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("a request trickled over %v was not dropped (read: %v)", time.Since(start), err)
		}
		closedAfter = time.Since(start)
	}
	if closedAfter > timeout+time.Second {
		t.Errorf("slow client dropped after %v, want about %v", closedAfter, timeout)
	}

	busy, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	r := bufio.NewReader(busy)
	for end := time.Now().Add(3 * timeout); time.Now().Before(end); time.Sleep(timeout / 8) {
		if _, err := busy.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			t.Fatalf("busy connection: %v", err)
		}
		var resp fasthttp.Response
		if err := resp.Read(r); err != nil {
			t.Fatalf("busy connection: %v", err)
		}
		if got, want := string(resp.Body()), "ok"; got != want {
			t.Fatalf("body %q, want %q", got, want)
		}
	}

	// A client that asks for 64 MiB and stops reading: the server's write
	// blocks on the full socket buffers until the answer timeout drops it.
	stuck, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	if _, err := stuck.Write([]byte("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(timeout + time.Second)
	stuck.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := io.Copy(io.Discard, stuck)
	if err == nil && n >= int64(len(big)) || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a client that stopped reading was not dropped: read %d bytes, then %v", n, err)
	}
}
