package edge

import (
	"testing"

	"github.com/valyala/fasthttp"
)

// BenchmarkCatalogue measures catalogue answers through the handler (no
// network), once their encoded form is cached: composing the page from
// memory, hashing it and serving the cached encoding.
func BenchmarkCatalogue(b *testing.B) {
	e := newCatalogEdge(b, nil)
	for _, bc := range []struct{ name, uri, al string }{
		{"bibles", "/v1/bibles?language_ranges[]=*", ""},
		{"bibles-fields", "/v1/bibles?language_ranges[]=e*&fields[]=id&fields[]=title&page_size=*", ""},
		{"languages-ids-all", "/v1/languages?page_size=*&fields[]=id&fields[]=localized_name", "fr-CH, fr;q=0.9"},
		{"languages-page25-full", "/v1/languages?page_size=25", "de"},
		{"language-en", "/v1/languages/en", "fr"},
		{"organization", "/v1/organizations/e5aaf952-2601-4eb8-af08-bc2e48aa31fc", "en"},
		{"font", "/v1/fonts/1", ""},
		{"votd-day", "/v1/verse_of_the_days/60", ""},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var ctx fasthttp.RequestCtx
			b.ReportAllocs()
			for b.Loop() {
				ctx.Request.Reset()
				ctx.Response.Reset()
				ctx.Request.SetRequestURI(bc.uri)
				ctx.Request.Header.Set("X-SVC-App-Key", keyDemo)
				ctx.Request.Header.SetHost("edge.test")
				ctx.Request.Header.Set("Accept-Encoding", "br, gzip")
				if bc.al != "" {
					ctx.Request.Header.Set("Accept-Language", bc.al)
				}
				e.srv.Handler(&ctx)
				if ctx.Response.StatusCode() != 200 {
					b.Fatal(ctx.Response.StatusCode())
				}
			}
		})
	}
}
