// Package conn is the edge's side of a TCP connection: listeners whose
// connections bound each request and answer themselves (slowloris
// protection without a clock read a request), a lingering close for a
// body refused unread, and the answer to a request the server could not
// read.
package conn

import (
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bibleplatform/platform/wire"
)

// DefaultDeadlineSlack is how far CoarseDeadlines lets a connection's
// deadline lag behind the exact one.
const DefaultDeadlineSlack = time.Second

// yieldConnsPerProc bounds the connections per processor for which a
// connection yields before reading its next request (coarseConn.Read).
const yieldConnsPerProc = 128

// The edge's slowloris protection (CoarseDeadlines): a request must arrive
// whole within DefaultRequestTimeout of the previous answer, and a client
// that stops reading an answer is dropped after DefaultAnswerTimeout.
const DefaultRequestTimeout, DefaultAnswerTimeout = 30 * time.Second, 60 * time.Second

// CoarseDeadlines wraps ln so that the connections it accepts bound every
// request and every answer themselves:
//   - a request must arrive whole within read of the previous answer (of
//     the accept, for a connection's first): the read deadline is set when
//     the connection turns from writing to reading, and not moved while it
//     reads, so a client trickling a request is dropped (slowloris);
//   - an answer must be written whole within write of its first write, so
//     a client that stops reading is dropped.
//
// The server must set no deadline of its own (fasthttp's ReadTimeout,
// WriteTimeout and IdleTimeout stay zero). fasthttp reads the clock for
// each of the three deadlines it sets per request and applies each to the
// runtime's poller: about 0.2 µs a request on the benchmark, more than the
// edge's lookups. Here the clock is one the listener moves once per slack,
// and a deadline that is later than the one in force by less than slack is
// not applied, so a busy connection updates each deadline about once per
// slack. A deadline in force is never later than the exact one and at most
// about two slacks earlier: the protection is only that much stricter.
//
// A connection also yields the processor before it reads the next request,
// after every other answer and while the listener has at most
// yieldConnsPerProc connections a processor (coarseConn.Read): most of the
// time that read would otherwise find nothing yet and cost a system call
// for nothing.
//
// A connection is read and written by one goroutine at a time, as fasthttp
// does (its serving goroutine alone). Wrap the TCP listener below TLS, so
// that the handshake is bounded too and the TLS connection stays what
// fasthttp sees. Closing the listener stops its clock.
func CoarseDeadlines(ln net.Listener, read, write, slack time.Duration) net.Listener {
	l := &coarseListener{Listener: ln, read: read, write: write, slack: slack, stop: make(chan struct{}),
		yieldMax: yieldConnsPerProc * int64(runtime.GOMAXPROCS(0))}
	l.now.Store(time.Now().UnixNano())
	go l.tick()
	return l
}

type coarseListener struct {
	net.Listener
	read, write, slack time.Duration
	now                atomic.Int64 // Unix nanoseconds, moved once per slack
	open               atomic.Int64 // connections accepted and not closed
	yieldMax           int64        // open connections up to which a read yields
	stop               chan struct{}
	closeOnce          sync.Once
}

func (l *coarseListener) tick() {
	t := time.NewTicker(l.slack)
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			l.now.Store(now.UnixNano())
		case <-l.stop:
			return
		}
	}
}

func (l *coarseListener) Close() error {
	l.closeOnce.Do(func() { close(l.stop) })
	return l.Listener.Close()
}

func (l *coarseListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.open.Add(1)
	cc := &coarseConn{Conn: c, l: l, writing: true}
	cc.toReading()
	return cc, nil
}

type coarseConn struct {
	net.Conn
	l        *coarseListener
	writing  bool        // the last call was a write
	rd, wd   time.Time   // the deadlines in force; zero is none
	rdN, wdN uint64      // deadlines applied, for tests
	linger   bool        // read what the client still sends before closing
	yield    bool        // yield before reading the next request (Read)
	yieldN   uint64      // yields, for tests
	closed   atomic.Bool // Close was called (fasthttp may close an idle one from elsewhere)
}

func (c *coarseConn) Close() error {
	if !c.closed.Swap(true) {
		c.l.open.Add(-1)
	}
	if c.linger {
		return wire.CloseLingering(c.Conn)
	}
	return c.Conn.Close()
}

// Read reads what the client sent. The first read after an answer is the
// next request's, and a client rarely has it sent the moment its answer
// leaves: read at once, it finds nothing (EAGAIN) and the goroutine parks
// until the poller says the request came, one system call for nothing.
// nginx saves that call because it reads only when epoll says there is
// something to read; Go's poller cannot be asked to wait without reading
// first, so the connection yields the processor instead and reads after
// the goroutines ready to run have had their turn. Under load that is
// often long enough for the request to arrive; when nothing else is ready
// to run, the yield returns at once.
//
// The yield is batching, and it costs the connections parked meanwhile:
// the scheduler polls the network only when no goroutine is ready to run
// (or after 10 ms without a poll), so what yields delays the poll, and
// with it the requests that came on parked connections. Hence two bounds:
//   - A connection yields after every other answer only. One that yields
//     after every answer and finds its next request each time never
//     leaves the run queue: on the benchmark (64 connections, one core)
//     that took read calls from 2.0 to 1.25 a request, but the p99 latency
//     from 2 to 14.7 ms. Every other answer gives about 1.6 reads a
//     request and adds 0.2 to 0.45 ms to p99.
//   - It yields only while the listener has at most yieldConnsPerProc open
//     connections per processor. The delay grows with the connections
//     that yield in one turn of the run queue: with every other answer, at
//     256 and 512 connections on one core, p99 rose from 4.8 to 6.2 ms and
//     from 10.1 to 15.0 ms, for at most 8 and 5 % more requests a second.
//     Up to 128 it adds at most about 0.45 ms to p99, for 2 to 11 % more.
//
// docs/edge.md has the figures.
func (c *coarseConn) Read(p []byte) (int, error) {
	if c.writing {
		c.toReading()
		if c.yield = !c.yield; c.yield && c.l.open.Load() <= c.l.yieldMax {
			c.yieldN++
			runtime.Gosched()
		}
	}
	return c.Conn.Read(p)
}

func (c *coarseConn) Write(p []byte) (int, error) {
	if !c.writing {
		c.writing = true
		if t := time.Unix(0, c.l.now.Load()).Add(c.l.write); !c.keep(c.wd, t) {
			if err := c.Conn.SetWriteDeadline(t); err != nil {
				return 0, err
			}
			c.wd = t
			c.wdN++
		}
	}
	return c.Conn.Write(p)
}

// toReading starts the window a request must arrive in.
func (c *coarseConn) toReading() {
	c.writing = false
	if t := time.Unix(0, c.l.now.Load()).Add(c.l.read); !c.keep(c.rd, t) {
		// An error here is the connection's, and its read reports it.
		if c.Conn.SetReadDeadline(t) == nil {
			c.rd = t
			c.rdN++
		}
	}
}

// keep reports whether the deadline in force, cur, may stand for t.
func (c *coarseConn) keep(cur, t time.Time) bool {
	return !cur.IsZero() && !t.Before(cur) && t.Sub(cur) < c.l.slack
}

// A deadline set from outside is applied as asked, and the connection's
// own setting takes it into account.

func (c *coarseConn) SetReadDeadline(t time.Time) error {
	c.rd = t
	return c.Conn.SetReadDeadline(t)
}

func (c *coarseConn) SetWriteDeadline(t time.Time) error {
	c.wd = t
	return c.Conn.SetWriteDeadline(t)
}

func (c *coarseConn) SetDeadline(t time.Time) error {
	c.rd, c.wd = t, t
	return c.Conn.SetDeadline(t)
}
