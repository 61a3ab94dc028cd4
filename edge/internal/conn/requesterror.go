package conn

import (
	"crypto/tls"
	"net"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/wire"
)

// MaxRequestBody is the largest request body the edge takes
// (fasthttp.Server.MaxRequestBodySize); dynamic takes the same.
const MaxRequestBody = wire.MaxRequestBody

// RequestError is fasthttp.Server's ErrorHandler: it answers a request the
// server could not read as wire.UnreadRequest says, and a connection
// whose body was too large closes only after reading the rest of it (see
// lingerConn), so the client sees the 413 instead of a reset.
func RequestError(ctx *fasthttp.RequestCtx, err error) {
	status, msg, linger := wire.UnreadRequest(err)
	respond.Message(ctx, status, msg)
	if linger {
		LingerOnClose(ctx.Conn())
	}
}

// LingerOnClose asks c (a connection CoarseDeadlines accepted, perhaps
// under TLS) to read what the client is still sending before it closes:
// closing a socket with unread data makes the kernel send a reset, which
// can reach the client before the answer does.
func LingerOnClose(c net.Conn) {
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	if cc, ok := c.(*coarseConn); ok {
		cc.linger = true
	}
}
