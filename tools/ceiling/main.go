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
//
// With -answers FILE as well, it answers each request with the edge's own
// body for its target and coding, all held in memory (FILE is written by
// -fetch from a running edge): the least any server of those answers
// does, a lookup and a write, for a mix of any size (docs/edge.md, "What
// a server with every answer in memory makes of the scale mix").
// -answers-bound BYTES holds at most that much of them instead, and reads
// any other from FILE (bounded.go): what a server of those answers makes
// of a mix within a given memory.
package main

import (
	"bytes"
	"flag"
	"log"
	"net"
	"runtime/debug"

	"github.com/bibleplatform/platform/edge"
	"github.com/valyala/fasthttp"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8091", "address")
	edgeAnswer := flag.Bool("edge-answer", false, "read and answer with the edge's header fields")
	answersFile := flag.String("answers", "", "with -edge-answer: answer with the bodies in this file (-fetch)")
	fetch := flag.String("fetch", "", "write to -answers what the edge at this base URL answers for the targets in the path files (arguments), and exit")
	key := flag.String("key", "", "with -fetch: the App Key")
	bound := flag.Int64("answers-bound", 0, "with -answers: hold at most this many bytes of bodies in memory, reading the others from the file (0: hold all)")
	door := flag.Int("doorkeeper", 1<<20, "with -answers-bound: a body is held from its second request within about this many keys asked (0: from its first)")
	flag.Parse()
	if *fetch != "" {
		if err := fetchAnswers(*fetch, *key, *answersFile, flag.Args()); err != nil {
			log.Fatal(err)
		}
		return
	}
	var held *answers
	var bnd *bounded
	if *answersFile != "" && *bound > 0 {
		var err error
		if bnd, err = loadBounded(*answersFile, *bound, *door); err != nil {
			log.Fatal(err)
		}
		log.Printf("ceiling: %d answers indexed, at most %d MiB of bodies held", len(bnd.at), *bound>>20)
		go bnd.report()
	} else if *answersFile != "" {
		var err error
		if held, err = loadAnswers(*answersFile); err != nil {
			log.Fatal(err)
		}
		log.Printf("ceiling: %d answers, %d MB", len(held.at), len(held.bodies)>>20)
		// Serving allocates nothing: a collection would only walk the
		// map's keys.
		debug.SetGCPercent(-1)
	}
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
		handler = edgeShaped(body, held, bnd)
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
// header fields written as the edge writes them, in its order; with held,
// the body is the edge's for the request's target and coding, and so with
// bnd, held or read.
func edgeShaped(body []byte, held *answers, bnd *bounded) fasthttp.RequestHandler {
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
	blockOf := func(enc []byte) *fasthttp.ResponseHeader {
		b := new(fasthttp.ResponseHeader)
		b.SetContentTypeBytes(ctype)
		b.SetContentEncodingBytes(enc)
		b.SetCanonical(lastMod, lastModV)
		b.SetCanonical(vary, varyV)
		b.SetCanonical(ranges, bytesV)
		b.SetCanonical(cc, ccV)
		return b
	}
	brBlock, gzBlock := blockOf(br), blockOf(kv("gzip"))
	return func(ctx *fasthttp.RequestCtx) {
		// The App Key as the edge reads it (respond.RequestField): under
		// the name fasthttp stores, normalised.
		ae := ctx.Request.Header.Peek("Accept-Encoding")
		if len(ctx.Request.Header.PeekCanonical(appKey)) == 0 || len(ae) == 0 {
			ctx.SetStatusCode(fasthttp.StatusBadRequest)
			return
		}
		// The query as the edge reads it (respond.QueryOf): the raw query
		// string fasthttp split off the URI, searched once, no argument
		// parse; the least any reader of a query field does.
		bytes.Index(ctx.URI().QueryString(), formatName)
		h := &ctx.Response.Header
		b, blk := body, brBlock
		var lent *[]byte // a body read for this answer alone (bnd)
		if held != nil || bnd != nil {
			coding := byte('b')
			if !bytes.Contains(ae, br) {
				coding, blk = 'g', gzBlock
			}
			var kb [512]byte
			if held != nil {
				b = held.find(kb[:0], ctx.RequestURI(), coding)
			} else {
				var err error
				if b, lent, err = bnd.find(kb[:0], ctx.RequestURI(), coding); err != nil {
					log.Print(err)
					ctx.SetStatusCode(fasthttp.StatusInternalServerError)
					return
				}
			}
			if b == nil {
				ctx.SetStatusCode(fasthttp.StatusNotFound)
				return
			}
		}
		blk.CopyTo(h)
		h.SetCanonical(etag, etagV)
		if lent != nil {
			ctx.Response.SetBody(b) // a copy: the buffer serves the next read
			bnd.giveBack(lent)
		} else {
			ctx.Response.SetBodyRaw(b)
		}
		h.SetCanonical(limit, limitV)
		h.SetCanonical(remaining, remainingV)
		h.SetCanonical(reset, resetV)
		h.SetCanonical(acao, star)
	}
}
