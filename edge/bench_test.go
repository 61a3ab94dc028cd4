package edge

import (
	"testing"

	"github.com/valyala/fasthttp"
)

// BenchmarkHandler measures the handler alone (no network) on the hot
// path: a pre-rendered verse, key check, licence check, rate limit and
// encoding choice; and a range the composed cache does not hold (its
// chapters' entries in memory), as most ranges of a large catalogue are.
func BenchmarkHandler(b *testing.B) {
	e := newTestEdge(b, nil)
	for _, bc := range []struct {
		name, uri, ae string
		miss          bool
	}{
		{"verse-br", "/v1/bibles/9002/passages/JHN.3.16?format=html", "br, gzip", false},
		{"chapter-gzip", "/v1/bibles/9001/passages/JHN.3", "gzip", false},
		{"range-cached", "/v1/bibles/9001/passages/JHN.3.16-18?format=html", "br, gzip", false},
		{"range-composed-br", "/v1/bibles/9001/passages/JHN.3.16-18?format=html", "br, gzip", true},
		{"range-composed-gzip", "/v1/bibles/9001/passages/JHN.3.16-18", "gzip", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var ctx fasthttp.RequestCtx
			b.ReportAllocs()
			for b.Loop() {
				if bc.miss {
					e.srv.composed.Clear()
				}
				ctx.Request.Reset()
				ctx.Response.Reset()
				ctx.Request.SetRequestURI(bc.uri)
				ctx.Request.Header.Set("X-SVC-App-Key", keyDemo)
				ctx.Request.Header.Set("Accept-Encoding", bc.ae)
				e.srv.Handler(&ctx)
				if ctx.Response.StatusCode() != 200 {
					b.Fatal(ctx.Response.StatusCode())
				}
			}
		})
	}
}
