package represent

import (
	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/publish"
)

// Content codings the edge can serve, in order of preference when a client
// weights several equally: brotli is the smallest, identity the largest.
const (
	CodingBrotli = iota
	CodingGzip
	CodingIdentity
	NumCodings
)

// CodingNames are the codings' names as packs store them (publish) and
// Content-Encoding sends them; identity's is empty.
var CodingNames = [NumCodings]string{publish.Brotli, publish.Gzip, publish.Identity}

// codingNamesB are CodingNames as bytes, for the response header.
var codingNamesB = func() (b [NumCodings][]byte) {
	for c, n := range CodingNames {
		if n != "" {
			b[c] = []byte(n)
		}
	}
	return b
}()

// acceptEncoding is a parsed Accept-Encoding header: the weight (q-value in
// thousandths) given to each coding we can produce.
type acceptEncoding struct {
	q [NumCodings]int
}

// parseAcceptEncoding reads an Accept-Encoding field value (RFC 9110
// §12.5.3) without allocating. Absent header: any coding is acceptable, but
// we then send identity, as the RFC suggests for clients that did not
// state a preference. Identity is acceptable unless it is excluded by
// "identity;q=0" or by "*;q=0" without an identity entry.
func parseAcceptEncoding(h []byte, present bool) acceptEncoding {
	if !present {
		var a acceptEncoding
		a.q[CodingIdentity] = 1000
		return a
	}
	for i := range commonAcceptEncodings {
		if string(h) == commonAcceptEncodings[i].value {
			return commonAcceptEncodings[i].parsed
		}
	}
	return parseAcceptEncodingList(h)
}

// commonAcceptEncodings are the Accept-Encoding values nearly every
// request sends, byte for byte (browsers, curl --compressed, HTTP
// libraries, make bench-edge's mix), parsed once: a hit compares its value
// with them instead of parsing it, a quarter of the instructions.
var commonAcceptEncodings = func() (t [6]struct {
	value  string
	parsed acceptEncoding
}) {
	for i, v := range [len(t)]string{"gzip, deflate, br, zstd", "gzip, deflate, br", "br, gzip", "gzip, deflate", "gzip", "br"} {
		t[i].value, t[i].parsed = v, parseAcceptEncodingList([]byte(v))
	}
	return t
}()

// parseAcceptEncodingList is parseAcceptEncoding of a value that is sent.
func parseAcceptEncodingList(h []byte) acceptEncoding {
	var a acceptEncoding
	star := -1
	var set [NumCodings]bool
	for len(h) > 0 {
		var item []byte
		item, h, _ = respond.CutByte(h, ',')
		name, params, _ := respond.CutByte(item, ';')
		name = respond.TrimOWS(name)
		if len(name) == 0 {
			continue
		}
		q := 1000
		for len(params) > 0 {
			var p []byte
			p, params, _ = respond.CutByte(params, ';')
			p = respond.TrimOWS(p)
			if len(p) >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=' {
				if v, ok := parseQValue(respond.TrimOWS(p[2:])); ok {
					q = v
				} else {
					q = 0 // a malformed weight cannot be trusted to allow the coding
				}
			}
		}
		switch {
		case respond.EqualFoldASCII(name, "br"):
			a.q[CodingBrotli], set[CodingBrotli] = q, true
		case respond.EqualFoldASCII(name, "gzip"), respond.EqualFoldASCII(name, "x-gzip"):
			a.q[CodingGzip], set[CodingGzip] = q, true
		case respond.EqualFoldASCII(name, "identity"):
			a.q[CodingIdentity], set[CodingIdentity] = q, true
		case len(name) == 1 && name[0] == '*':
			star = q
		}
	}
	if star >= 0 {
		// "*" matches every coding not listed explicitly.
		for c := range a.q {
			if !set[c] {
				a.q[c] = star
			}
		}
	}
	if !set[CodingIdentity] && star < 0 {
		// Identity stays acceptable when not mentioned, but loses to any
		// coding the client asked for.
		a.q[CodingIdentity] = 1
	}
	return a
}

// choose returns the coding to send among those the resource has, or
// identity when nothing acceptable exists: RFC 9110 §12.5.3 lets a server
// send an unencoded response rather than fail. has is asked only about a
// coding that would win, so that an answer reads no more of the resource
// than the coding it sends (resource).
func (a *acceptEncoding) choose(has func(c int) bool) int {
	best, bestQ := CodingIdentity, 0
	for c := 0; c < NumCodings; c++ {
		if a.q[c] > bestQ && has(c) {
			best, bestQ = c, a.q[c]
		}
	}
	return best
}

// held is the coding to answer a request that lists tags in
// If-None-Match (inm) with, and that field's outcome for it
// (checkIfNoneMatch): the chosen coding c, unless the client holds
// another coding of res that it accepts, which it then keeps (304). RFC
// 9110 §12.5.3 leaves the choice among acceptable codings to the server,
// and the coding a client holds costs it no bytes. A client's copy is not
// always the coding it would be given now: a composed answer is first
// sent as it is when short and compressed when asked for again
// (compose.Answer), and a client may add a coding to its Accept-Encoding.
func (a *acceptEncoding) held(res *Resource, c int, inm []byte) (int, condResult) {
	if checkIfNoneMatch(inm, res.Reps[c].ETag()) == condFalse {
		return c, condFalse
	}
	for o := range NumCodings {
		if o != c && a.q[o] > 0 && res.Has(o) && checkIfNoneMatch(inm, res.Reps[o].ETag()) == condFalse {
			return o, condFalse
		}
	}
	return c, condTrue
}

// parseQValue parses a weight: "0", "1", "0.5", "1.000" (RFC 9110 §12.4.2),
// returning thousandths.
func parseQValue(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 5 {
		return 0, false
	}
	if b[0] != '0' && b[0] != '1' {
		return 0, false
	}
	v := int(b[0]-'0') * 1000
	if len(b) == 1 {
		return v, true
	}
	if b[1] != '.' {
		return 0, false
	}
	scale := 100
	for _, c := range b[2:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		v += int(c-'0') * scale
		scale /= 10
	}
	if v > 1000 {
		return 0, false
	}
	return v, true
}

// Negotiate is the coding Serve sends in answer to a request with header
// h among the codings has reports: for a caller that compresses a body
// only in the coding a request gets.
func Negotiate(h *fasthttp.RequestHeader, has func(c int) bool) int {
	v := h.Peek(fasthttp.HeaderAcceptEncoding)
	a := parseAcceptEncoding(v, len(v) > 0)
	return a.choose(has)
}
