// Package wire is the edge↔dynamic wire contract: the headers the edge
// sets on what it forwards, the check dynamic makes before believing them,
// the error bodies both services answer with (DESIGN.md; their words are
// in wire/problem), the bound on a
// request body and the lingering close of a connection whose body was
// refused unread. Neither service declares these itself, so the two cannot
// drift apart. The access snapshot the edge enforces is package access.
package wire

import (
	"crypto/subtle"
	"errors"
	"net"
	"unicode/utf8"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/wire/problem"
)

// Headers the edge sets on every request it forwards to dynamic. A client
// can set none of them: the edge deletes whatever the request carried before
// setting its own, and dynamic believes HeaderVerifiedAppID only when
// HeaderEdgeToken matches its secret.
const (
	HeaderVerifiedAppID  = "X-Verified-App-Id"
	HeaderEdgeToken      = "X-Edge-Token"
	HeaderForwardedFor   = "X-Forwarded-For"
	HeaderForwardedProto = "X-Forwarded-Proto"
	HeaderForwardedHost  = "X-Forwarded-Host"
	// HeaderRequestID is the id the edge's access log gives the request,
	// so that a line of dynamic's log can be found in the edge's.
	HeaderRequestID = "X-Request-Id"
)

// HeaderAppKey is the header a client sends its App Key in (spec,
// Authentication).
const HeaderAppKey = "X-SVC-App-Key"

// EdgeTokenOK reports whether got is the edge's secret want, in constant
// time. An empty secret matches nothing: without it no forwarded identity
// can be trusted.
func EdgeTokenOK(got []byte, want string) bool {
	return want != "" && subtle.ConstantTimeCompare(got, []byte(want)) == 1
}

// Fault is the API gateway's 401 envelope (DESIGN.md), whose errorcode tells
// a missing key from an unrecognised one. It never carries
// Access-Control-* headers.
type Fault struct {
	String string // faultstring
	Code   string // detail.errorcode
}

// The 401 faults, spelled as the reference service's gateway spells them.
var (
	FaultMissingKey       = Fault{"Failed to resolve API Key variable request.header.x-svc-app-key", "steps.oauth.v2.FailedToResolveAPIKey"}
	FaultInvalidKey       = Fault{"Invalid ApiKey", "oauth.v2.InvalidApiKey"}
	FaultInvalidEdgeToken = Fault{"Invalid edge token", "dynamic.InvalidEdgeToken"}
)

// MaxRequestBody is the largest request body either service takes: the
// most any route needs (a highlight, a data-exchange token request, the
// approval form, all well under 1 KiB) with room to spare. A larger one is
// 413 with problem.TooLarge (docs/edge.md, Request limits).
const MaxRequestBody = 64 << 10

// MaxRequestHeader is the most request-header bytes either service reads
// (fasthttp.Server.ReadBufferSize: headers are read into one buffer of
// this size; more is 431). fasthttp's default, 4 KiB, refuses bearer
// tokens over about 3 KB, which identity providers issue (tokens with many
// claims or RSA signatures); 16 KiB is what common proxies pass on (nginx:
// 4 buffers of 8 KiB).
const MaxRequestHeader = 16 << 10

// UnreadRequest is how both services answer a request their fasthttp
// server could not read (its ErrorHandler), in the {"message": …} shape: a
// body over MaxRequestBody is 413 (RFC 9110 §15.5.14), headers over the
// read buffer 431, a request that did not arrive within the read timeout
// 408, anything else 400. linger is set for the 413: the client may still
// be sending the body, and closing a socket with unread data makes the
// kernel send a reset that can reach the client before the answer does,
// so the connection must read the rest before it closes.
func UnreadRequest(err error) (status int, msg problem.Text, linger bool) {
	var small *fasthttp.ErrSmallBuffer
	var nerr net.Error
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		return fasthttp.StatusRequestEntityTooLarge, problem.TooLarge, true
	case errors.As(err, &small):
		return fasthttp.StatusRequestHeaderFieldsTooLarge, problem.HeadersTooLarge, false
	case errors.As(err, &nerr) && nerr.Timeout():
		return fasthttp.StatusRequestTimeout, problem.RequestTimeout, false
	}
	return fasthttp.StatusBadRequest, problem.NotHTTP, false
}

// AppendMessage appends the API's usual error body, {"message": msg}.
func AppendMessage(dst []byte, msg problem.Text) []byte {
	dst = append(dst, `{"message":`...)
	dst = appendString(dst, string(msg))
	return append(dst, '}')
}

// AppendValidation appends the 422 body, {"detail": [...]}.
func AppendValidation(dst []byte, ds ...problem.Detail) []byte {
	dst = append(dst, `{"detail":[`...)
	for i, d := range ds {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"loc":[`...)
		for j, l := range d.Loc {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, l)
		}
		dst = append(dst, `],"msg":`...)
		dst = appendString(dst, string(d.Msg))
		dst = append(dst, `,"type":`...)
		dst = appendString(dst, d.Type)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

// AppendFault appends the 401 envelope,
// {"fault":{"faultstring":…,"detail":{"errorcode":…}}}.
func AppendFault(dst []byte, f Fault) []byte {
	dst = append(dst, `{"fault":{"faultstring":`...)
	dst = appendString(dst, f.String)
	dst = append(dst, `,"detail":{"errorcode":`...)
	dst = appendString(dst, f.Code)
	return append(dst, "}}}"...)
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string as json.Marshal writes it
// (appendString): for an answer written without reflection.
func AppendJSONString(dst []byte, s string) []byte { return appendString(dst, s) }

// appendString appends s as a JSON string exactly as encoding/json writes
// it (HTML-safe: <, > and & escaped; U+2028, U+2029 escaped; invalid UTF-8
// replaced), so the bodies read byte for byte as they did when they were
// marshalled.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
