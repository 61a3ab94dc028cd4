package respond

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
