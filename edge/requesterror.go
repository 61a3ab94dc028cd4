package edge

import (
	"crypto/tls"
	"errors"
	"net"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
)

// MaxRequestBody is the largest request body the edge takes
// (fasthttp.Server.MaxRequestBodySize); dynamic takes the same.
const MaxRequestBody = access.MaxRequestBody

// RequestError is fasthttp.Server's ErrorHandler: it answers a request the
// server could not read in the spec's {"message": …} shape instead of
// fasthttp's plain-text one. A body over MaxRequestBody is 413 (RFC 9110
// §15.5.14), and the connection is closed only after the rest of that body
// is read (see lingerConn), so the client sees the 413 instead of a reset.
func RequestError(ctx *fasthttp.RequestCtx, err error) {
	var small *fasthttp.ErrSmallBuffer
	var nerr net.Error
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		answer(ctx, failTooLarge, access.MsgTooLarge)
		lingerOnClose(ctx.Conn())
	case errors.As(err, &small):
		answer(ctx, failHeadersTooLarge, failures[failHeadersTooLarge].msg)
	case errors.As(err, &nerr) && nerr.Timeout():
		answer(ctx, failRequestTimeout, failures[failRequestTimeout].msg)
	default:
		answer(ctx, failUnacceptable, "The request is not valid HTTP/1.1.")
	}
}

// lingerOnClose asks c (a connection CoarseDeadlines accepted, perhaps
// under TLS) to read what the client is still sending before it closes:
// closing a socket with unread data makes the kernel send a reset, which
// can reach the client before the answer does.
func lingerOnClose(c net.Conn) {
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	if cc, ok := c.(*coarseConn); ok {
		cc.linger = true
	}
}
