package wire

import (
	"io"
	"net"
	"sync/atomic"
	"time"
)

// Bounds of a lingering close: a client sending more, or more slowly, has
// its connection reset.
const (
	lingerBytes = 16 << 20
	lingerTime  = 2 * time.Second
)

// CloseLingering closes c after reading what the client still sends: both
// services answer a body over MaxRequestBody with 413 before reading it,
// and closing a socket with unread data makes the kernel send a reset,
// which can reach the client before the answer does. It closes the write
// side, reads and drops up to lingerBytes for up to lingerTime, then closes.
func CloseLingering(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	c.SetReadDeadline(time.Now().Add(lingerTime))
	io.Copy(io.Discard, io.LimitReader(c, lingerBytes))
	return c.Close()
}

// LingerListener accepts connections that close lingering once
// LingerOnClose marks them (dynamic's listener; the edge's own connection
// wrapper does the same).
type LingerListener struct{ net.Listener }

// Accept wraps the accepted connection.
func (l LingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &lingerConn{Conn: c}, nil
}

type lingerConn struct {
	net.Conn
	linger atomic.Bool
}

func (c *lingerConn) Close() error {
	if c.linger.Load() {
		return CloseLingering(c.Conn)
	}
	return c.Conn.Close()
}

// LingerOnClose marks c, accepted by a LingerListener, to close lingering;
// it reports false for any other connection.
func LingerOnClose(c net.Conn) bool {
	lc, ok := c.(*lingerConn)
	if ok {
		lc.linger.Store(true)
	}
	return ok
}
