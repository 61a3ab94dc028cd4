package wire

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// MsgAmbiguousFraming is the 400 message for a request that carries both
// Content-Length and Transfer-Encoding.
const MsgAmbiguousFraming = "The request has both Content-Length and Transfer-Encoding."

// AmbiguousFraming reports whether the request headers raw (a request's
// header block as read, fasthttp's RawHeaders) carry both Content-Length
// and Transfer-Encoding. Such a request may be an attempt at request
// smuggling: a proxy in front may have framed its body by the other field
// (RFC 9112 §6.3).
func AmbiguousFraming(raw []byte) bool {
	var cl, te bool
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		// A field's name ends at its line's first colon; neither name
		// holds one, so a line names one only with a colon right after
		// it, and most lines are looked at no further: this runs on every
		// request.
		switch {
		case len(line) > len(nameContentLength) && line[len(nameContentLength)] == ':':
			cl = cl || bytes.EqualFold(line[:len(nameContentLength)], nameContentLength)
		case len(line) > len(nameTransferEncoding) && line[len(nameTransferEncoding)] == ':':
			te = te || bytes.EqualFold(line[:len(nameTransferEncoding)], nameTransferEncoding)
		}
	}
	return cl && te
}

var (
	nameContentLength    = []byte("Content-Length")
	nameTransferEncoding = []byte("Transfer-Encoding")
)

// RefuseAmbiguousFraming answers a request whose framing is ambiguous
// (AmbiguousFraming) with 400 and closes the connection after the answer,
// as RFC 9112 §6.3 requires: whatever follows on it cannot be told from
// this request's body. It reports whether it answered.
//
// The header block as received is read, not the parsed fields: having read
// a chunked body, fasthttp sets Content-Length to the body's length and
// drops Transfer-Encoding, and an empty chunked body ("0\r\n\r\n") after a
// Content-Length of 5 is the classic smuggling request.
func RefuseAmbiguousFraming(ctx *fasthttp.RequestCtx) bool {
	if !AmbiguousFraming(ctx.Request.Header.RawHeaders()) {
		return false
	}
	var buf [128]byte
	ctx.Response.Header.Set(fasthttp.HeaderCacheControl, "no-store")
	ctx.SetContentType("application/json; charset=utf-8")
	ctx.SetStatusCode(fasthttp.StatusBadRequest)
	ctx.SetBody(AppendMessage(buf[:0], MsgAmbiguousFraming))
	ctx.SetConnectionClose()
	return true
}
