package conn

import (
	"bufio"
	"io"

	"github.com/valyala/fasthttp"
)

// TakeBody makes body resp's body, sent from where it lies: the connection
// sends the header and the body together with one writev, and the body
// is not copied into the server's write buffer (respond.SetBody, which
// calls it). A hit's body is the largest thing it touches, mostly not in
// the processor's caches; copied into the buffer, it was the hit path's
// largest source of cache misses in user time. The answer reads as one
// set with SetBodyRaw would (Body, HEAD, Content-Length). An empty body
// is not taken.
func (c *coarseConn) TakeBody(resp *fasthttp.Response, body []byte) bool {
	if len(body) == 0 {
		return false
	}
	c.body = bodyStream{c: c, b: body}
	resp.SetBodyStream(&c.body, len(body))
	return true
}

// bodyStream is an answer's body handed to its connection (TakeBody). The
// server writes it through WriteTo; Read serves any other reader of the
// response (Body(), a test's Write into a buffer).
type bodyStream struct {
	c   *coarseConn
	b   []byte
	off int
}

func (s *bodyStream) Read(p []byte) (int, error) {
	if s.off >= len(s.b) {
		return 0, io.EOF
	}
	n := copy(p, s.b[s.off:])
	s.off += n
	return n, nil
}

// Close lets go of the body: fasthttp closes a body stream once the
// answer is written, or dropped, and a connection waiting for its next
// request must not keep a representation's memory from being freed.
func (s *bodyStream) Close() error {
	*s = bodyStream{c: s.c}
	return nil
}

// SupportsBodyWriteTo tells fasthttp to write the body through WriteTo
// (fasthttp.BodyWriterTo).
func (s *bodyStream) SupportsBodyWriteTo() bool { return true }

// WriteTo writes the rest of the body to w, the server's write buffer
// holding the answer's header. Flushed, the buffer reaches the
// connection's Write, which sends the body after it (coarseConn.Write). A
// buffer that writes elsewhere, or holds nothing to flush, gets the body
// as any writer would.
func (s *bodyStream) WriteTo(w io.Writer) (int64, error) {
	rest := s.b[s.off:]
	s.off = len(s.b)
	if bw, ok := w.(*bufio.Writer); ok && len(rest) > 0 && bw.Buffered() > 0 {
		s.c.pending = rest
		err := bw.Flush()
		sent := s.c.pending == nil
		s.c.pending = nil
		if sent || err != nil {
			return int64(len(rest)), err
		}
	}
	n, err := w.Write(rest)
	return int64(n), err
}

// writeWithBody writes p and then the pending body with one writev (the
// body handed over by TakeBody). It reports what it wrote of p, as the
// caller, the server's write buffer, expects; on an error the body may
// be partly written, and the connection is done for anyway.
func (c *coarseConn) writeWithBody(p []byte) (int, error) {
	// The slices live in c, so that handing them to the writev
	// allocates nothing; WriteTo consumes c.iov, c.bufs keeps its array.
	c.bufs = [2][]byte{p, c.pending}
	c.pending = nil
	c.iov = c.bufs[:]
	n, err := c.iov.WriteTo(c.Conn)
	c.bufs, c.iov = [2][]byte{}, nil
	return int(min(n, int64(len(p)))), err
}
