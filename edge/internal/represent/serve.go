package represent

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/respond"
)

// Serve answers a GET or HEAD for res with the semantics of RFC
// 9110, in net/http's fs.go order: choose the encoding, evaluate the
// preconditions, then Range. private selects the Cache-Control that keeps
// shared caches out (resource.go). It returns the status written.
//
// A 200 or 206 starts its header afresh from the representation's header
// block (Head.writeBlock): a caller sets its own fields after serving,
// never before.
func Serve(ctx *fasthttp.RequestCtx, res *Resource, private bool) int {
	var rh condHeaders
	rh.scan(&ctx.Request.Header)
	return serveScanned(ctx, &rh, res, private)
}

// serveScanned is Serve for a request whose fields are scanned.
func serveScanned(ctx *fasthttp.RequestCtx, rh *condHeaders, res *Resource, private bool) int {
	resp := &ctx.Response.Header
	ae := parseAcceptEncoding(rh.acceptEncoding, len(rh.acceptEncoding) > 0)
	c := ae.choose(res.Has)
	// If-None-Match is compared once, with the coding it chooses.
	inm := condNone
	if len(rh.ifNoneMatch) > 0 {
		c, inm = ae.held(res, c, rh.ifNoneMatch)
	}
	r := &res.Reps[c]
	h := r.head

	// The dates are read only when a request sends one.
	status := fasthttp.StatusOK
	ch := checkIfMatch(rh.ifMatch, r.ETag())
	if ch == condNone && len(rh.ifUnmodifiedSince) > 0 {
		ch = checkIfUnmodifiedSince(rh.ifUnmodifiedSince, h.modified())
	}
	if ch == condFalse {
		status = fasthttp.StatusPreconditionFailed
	} else {
		switch inm {
		case condFalse:
			status = fasthttp.StatusNotModified
		case condNone:
			if len(rh.ifModifiedSince) > 0 && checkIfModifiedSince(rh.ifModifiedSince, h.modified()) == condFalse {
				status = fasthttp.StatusNotModified
			}
		}
	}
	if status != fasthttp.StatusOK {
		// A 304 carries the fields a 200 would that guide caches (RFC
		// 9110 §15.4.5), and a 412 tells the same of the current one.
		setCaching(resp, private)
		resp.SetCanonical(respond.HdrETag, r.ETag())
		if status == fasthttp.StatusNotModified {
			return notModified(ctx)
		}
		ctx.SetStatusCode(status)
		return status
	}

	h.writeBlock(resp, c, private)
	resp.SetCanonical(respond.HdrETag, r.ETag())

	rangeH := rh.rng
	if len(rangeH) > 0 && checkIfRange(rh.ifRange, r.ETag(), h.modified()) == condFalse {
		rangeH = nil
	}
	// Only the bytes unit is ours; any other must be ignored (RFC 9110 §14.2).
	if len(rangeH) > 0 && respond.HasPrefixFold(rangeH, "bytes=") {
		return serveRanges(ctx, res, r, rangeH)
	}
	ctx.Response.SetBodyRaw(r.body)
	return fasthttp.StatusOK
}

// condHeaders are the request fields Serve reads, and the App Key
// (authorize's on the content routes). fasthttp's Peek copies and
// normalises the name on every call and then scans the headers; one pass
// over the headers finds all eight for less than two Peeks cost.
type condHeaders struct {
	acceptEncoding, ifMatch, ifUnmodifiedSince, ifNoneMatch, ifModifiedSince, rng, ifRange []byte
	seen                                                                                   uint8
}

// scan fills c from h. A repeated field keeps its first value, as Peek
// does. Names compare case-insensitively: a server may turn off fasthttp's
// name normalising.
func (c *condHeaders) scan(h *fasthttp.RequestHeader) {
	for k, v := range h.All() {
		var dst *[]byte
		var bit uint8
		switch len(k) {
		case len("Range"):
			if respond.IsFieldName(k, "Range") {
				dst, bit = &c.rng, 1<<0
			}
		case len("If-Match"): // and If-Range
			switch {
			case respond.IsFieldName(k, "If-Match"):
				dst, bit = &c.ifMatch, 1<<1
			case respond.IsFieldName(k, "If-Range"):
				dst, bit = &c.ifRange, 1<<2
			}
		case len("If-None-Match"):
			if respond.IsFieldName(k, "If-None-Match") {
				dst, bit = &c.ifNoneMatch, 1<<3
			}
		case len("Accept-Encoding"):
			if respond.IsFieldName(k, "Accept-Encoding") {
				dst, bit = &c.acceptEncoding, 1<<4
			}
		case len("If-Modified-Since"):
			if respond.IsFieldName(k, "If-Modified-Since") {
				dst, bit = &c.ifModifiedSince, 1<<5
			}
		case len("If-Unmodified-Since"):
			if respond.IsFieldName(k, "If-Unmodified-Since") {
				dst, bit = &c.ifUnmodifiedSince, 1<<6
			}
		}
		if dst != nil && c.seen&bit == 0 {
			*dst, c.seen = v, c.seen|bit
		}
	}
}

// notModified answers 304: validators and Cache-Control stay, the
// representation's own metadata goes, as net/http's writeNotModified does
// (RFC 9110 §15.4.5).
func notModified(ctx *fasthttp.RequestCtx) int {
	ctx.SetStatusCode(fasthttp.StatusNotModified)
	ctx.Response.SkipBody = true
	return fasthttp.StatusNotModified
}

func serveRanges(ctx *fasthttp.RequestCtx, res *Resource, r *Rep, h []byte) int {
	size := int64(len(r.body))
	ranges, err := parseRange(h, size)
	switch err {
	case nil:
	case errNoOverlap:
		if size == 0 {
			ranges = nil // nothing to slice; answer with the (empty) whole
			break
		}
		fallthrough
	default:
		ctx.Response.Header.SetCanonical(respond.HdrContentRange, strconv.AppendInt([]byte("bytes */"), size, 10))
		ctx.Response.Header.SetContentType("text/plain; charset=utf-8")
		ctx.Response.Header.Del("Content-Encoding")
		ctx.SetStatusCode(fasthttp.StatusRequestedRangeNotSatisfiable)
		ctx.SetBodyString("requested range not satisfiable\n")
		return fasthttp.StatusRequestedRangeNotSatisfiable
	}
	if len(ranges) > maxRanges || sumRangesSize(ranges) > size {
		// More bytes asked than the representation holds, or too many
		// pieces: an attack or a broken client. Ignore the Range.
		ranges = nil
	}
	switch len(ranges) {
	case 0:
		ctx.Response.SetBodyRaw(r.body)
		return fasthttp.StatusOK
	case 1:
		ra := ranges[0]
		ctx.Response.Header.SetCanonical(respond.HdrContentRange, contentRange(nil, ra, size))
		ctx.Response.SetBodyRaw(r.body[ra.start : ra.start+ra.length])
		ctx.SetStatusCode(fasthttp.StatusPartialContent)
		return fasthttp.StatusPartialContent
	}
	boundary := newBoundary()
	var body []byte
	for i, ra := range ranges {
		if i > 0 {
			body = append(body, "\r\n"...)
		}
		body = append(body, "--"...)
		body = append(body, boundary...)
		body = append(body, "\r\nContent-Range: "...)
		body = contentRange(body, ra, size)
		body = append(body, "\r\nContent-Type: "...)
		body = append(body, r.head.ctype...)
		body = append(body, "\r\n\r\n"...)
		body = append(body, r.body[ra.start:ra.start+ra.length]...)
	}
	body = append(body, "\r\n--"...)
	body = append(body, boundary...)
	body = append(body, "--\r\n"...)
	ctx.Response.Header.SetContentType("multipart/byteranges; boundary=" + boundary)
	ctx.Response.SetBodyRaw(body)
	ctx.SetStatusCode(fasthttp.StatusPartialContent)
	return fasthttp.StatusPartialContent
}

func newBoundary() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
