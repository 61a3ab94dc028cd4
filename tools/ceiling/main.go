// Command ceiling is the benchmark's upper bound: a minimal fasthttp server
// answering every request with the same 1 KiB body. The edge cannot beat
// it; make bench-edge reports the edge's throughput as a fraction of it.
//
// With -edge-answer it is the floor of the edge's own answer instead: it
// reads the request fields the edge reads (App Key, Accept-Encoding, the
// query) and writes the same response header fields through the same
// fasthttp calls, with fixed values and no lookup, licence check or
// limiter behind them, on connections handled as the edge's are
// (edge.Listener). What the edge spends beyond this is its own work; what this spends beyond the ceiling is fasthttp's for that
// answer's shape and the edge's connection handling.
package main

import (
	"bytes"
	"flag"
	"log"
	"net"

	"github.com/bibleplatform/platform/edge"
	"github.com/valyala/fasthttp"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8091", "address")
	edgeAnswer := flag.Bool("edge-answer", false, "read and answer with the edge's header fields")
	flag.Parse()
	body := bytes.Repeat([]byte("x"), 1024)
	handler := func(ctx *fasthttp.RequestCtx) {
		ctx.SetContentType("application/json")
		ctx.Response.SetBodyRaw(body)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	if *edgeAnswer {
		handler = edgeShaped(body)
		ln = edge.Listener(ln)
	}
	s := &fasthttp.Server{
		Handler:               handler,
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
	}
	log.Fatal(s.Serve(ln))
}

// edgeShaped answers like a hit of the edge's (a passage, br), with the
// header fields written as the edge writes them, in its order.
func edgeShaped(body []byte) fasthttp.RequestHandler {
	kv := func(s string) []byte { return []byte(s) }
	var (
		limit, remaining, reset = kv("X-Ratelimit-Limit"), kv("X-Ratelimit-Remaining"), kv("X-Ratelimit-Reset")
		vary, etag, cc          = kv("Vary"), kv("Etag"), kv("Cache-Control")
		lastMod, ranges, acao   = kv("Last-Modified"), kv("Accept-Ranges"), kv("Access-Control-Allow-Origin")
		limitV, remainingV      = kv("1000000000"), kv("999999999")
		resetV, varyV           = kv("1"), kv("Accept-Encoding")
		etagV                   = kv(`"89f5086216b88fb732fa609c-br"`)
		ccV                     = kv("public, max-age=3600, stale-while-revalidate=86400")
		ctype                   = kv("application/json; charset=utf-8")
		lastModV                = kv("Mon, 23 Nov 2026 21:07:25 GMT")
		bytesV, br, star        = kv("bytes"), kv("br"), kv("*")
		appKey                  = fasthttp.AppendNormalizedHeaderKey(nil, "X-SVC-App-Key")
		formatName              = []byte("format=")
	)
	// The fields fixed per representation, as the edge keeps them: a
	// prepared block copied into each answer (edge/resource.go).
	var block fasthttp.ResponseHeader
	block.SetContentTypeBytes(ctype)
	block.SetContentEncodingBytes(br)
	block.SetCanonical(lastMod, lastModV)
	block.SetCanonical(vary, varyV)
	block.SetCanonical(ranges, bytesV)
	block.SetCanonical(cc, ccV)
	return func(ctx *fasthttp.RequestCtx) {
		// The App Key as the edge reads it (respond.RequestField): under
		// the name fasthttp stores, normalised.
		if len(ctx.Request.Header.PeekCanonical(appKey)) == 0 || len(ctx.Request.Header.Peek("Accept-Encoding")) == 0 {
			ctx.SetStatusCode(fasthttp.StatusBadRequest)
			return
		}
		// The query as the edge reads it (respond.QueryOf): the raw query
		// string fasthttp split off the URI, searched once, no argument
		// parse; the least any reader of a query field does.
		bytes.Index(ctx.URI().QueryString(), formatName)
		h := &ctx.Response.Header
		block.CopyTo(h)
		h.SetCanonical(etag, etagV)
		ctx.Response.SetBodyRaw(body)
		h.SetCanonical(limit, limitV)
		h.SetCanonical(remaining, remainingV)
		h.SetCanonical(reset, resetV)
		h.SetCanonical(acao, star)
	}
}
