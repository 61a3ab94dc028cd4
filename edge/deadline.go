package edge

import (
	"net"
	"time"

	"github.com/bibleplatform/platform/access"
)

// DefaultDeadlineSlack is how far CoarseDeadlines lets a connection's
// deadline lag behind the one asked for.
const DefaultDeadlineSlack = time.Second

// CoarseDeadlines wraps ln so that the connections it accepts move their
// read and write deadlines forward at most once per slack.
//
// fasthttp sets a read deadline before it waits for a keep-alive request,
// another once the request starts, and a write deadline before it answers:
// three timer updates in the runtime's poller per request, about 2 % of the
// edge's CPU on the benchmark. With the server's IdleTimeout equal to its
// ReadTimeout, each of these asks for "now + the same timeout" again, a few
// microseconds after the previous request asked for nearly the same. A
// deadline that is later than the one in force by less than slack is not
// applied, so a busy connection updates each deadline about once a second.
//
// The deadline in force is never later than the one asked for, and at most
// slack earlier: an earlier or cleared deadline is always applied. The
// slowloris protection therefore stays that of ReadTimeout (a request
// must arrive whole within ReadTimeout of the previous one ending, less up
// to slack) and WriteTimeout (a client that stops reading is dropped), only
// up to slack stricter.
//
// A connection's deadlines must be set from one goroutine at a time, as
// fasthttp does (the serving goroutine alone sets them). Wrap the TCP
// listener below TLS, so that the TLS connection stays what fasthttp sees.
func CoarseDeadlines(ln net.Listener, slack time.Duration) net.Listener {
	return &coarseListener{Listener: ln, slack: slack}
}

type coarseListener struct {
	net.Listener
	slack time.Duration
}

func (l *coarseListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &coarseConn{Conn: c, slack: l.slack}, nil
}

type coarseConn struct {
	net.Conn
	slack    time.Duration
	rd, wd   time.Time // the deadlines in force; zero is none
	rdN, wdN uint64    // deadlines applied, for tests
	linger   bool      // read what the client still sends before closing
}

func (c *coarseConn) Close() error {
	if c.linger {
		return access.CloseLingering(c.Conn)
	}
	return c.Conn.Close()
}

// keep reports whether the deadline in force, cur, may stand for t.
func (c *coarseConn) keep(cur, t time.Time) bool {
	return !cur.IsZero() && !t.IsZero() && !t.Before(cur) && t.Sub(cur) < c.slack
}

func (c *coarseConn) SetReadDeadline(t time.Time) error {
	if c.keep(c.rd, t) {
		return nil
	}
	if err := c.Conn.SetReadDeadline(t); err != nil {
		return err
	}
	c.rd = t
	c.rdN++
	return nil
}

func (c *coarseConn) SetWriteDeadline(t time.Time) error {
	if c.keep(c.wd, t) {
		return nil
	}
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	c.wd = t
	c.wdN++
	return nil
}

func (c *coarseConn) SetDeadline(t time.Time) error {
	if c.keep(c.rd, t) && c.keep(c.wd, t) {
		return nil
	}
	if err := c.Conn.SetDeadline(t); err != nil {
		return err
	}
	c.rd, c.wd = t, t
	c.rdN++
	c.wdN++
	return nil
}
