package respond

import "github.com/valyala/fasthttp"

// Header names in canonical form, for SetCanonical (no normalising, no
// copying of the key), and the values the edge sets often.
var (
	HdrVary          = []byte("Vary")
	HdrETag          = []byte("Etag") // fasthttp's canonical spelling, so Peek finds it
	HdrCacheControl  = []byte("Cache-Control")
	HdrLastModified  = []byte("Last-Modified")
	HdrAcceptRanges  = []byte("Accept-Ranges")
	HdrContentRange  = []byte("Content-Range")
	HdrACAO          = []byte("Access-Control-Allow-Origin")
	HdrRetryAfter    = []byte("Retry-After")
	HdrRateLimit     = []byte("X-Ratelimit-Limit")
	HdrRateRemaining = []byte("X-Ratelimit-Remaining")
	HdrRateReset     = []byte("X-Ratelimit-Reset")

	ValAcceptEncoding = []byte("Accept-Encoding")
	ValBytes          = []byte("bytes")
	ValStar           = []byte("*")
	ValNoStore        = []byte("no-store")
)

// RequestField is a request header name prepared for Peek: fasthttp's Peek
// copies and normalises the name on every call before it scans the fields
// (about 550 instructions for the App Key on a hit), where the name's
// normalised spelling, made once, can be looked up as it is.
type RequestField struct {
	name       string
	normalised []byte
}

// NewRequestField prepares name for Peek.
func NewRequestField(name string) RequestField {
	return RequestField{name: name, normalised: fasthttp.AppendNormalizedHeaderKey(nil, name)}
}

// Peek is h.Peek(name). fasthttp stores the names it reads normalised
// unless the server turns that off; then the field is looked up as
// h.Peek does, for a request that sent none under the normalised name.
func (f RequestField) Peek(h *fasthttp.RequestHeader) []byte {
	if v := h.PeekCanonical(f.normalised); len(v) > 0 {
		return v
	}
	return h.Peek(f.name)
}
