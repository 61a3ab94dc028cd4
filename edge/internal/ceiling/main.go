// Command ceiling is the benchmark's upper bound: a minimal fasthttp server
// answering every request with the same 1 KiB body. The edge cannot beat
// it; make bench-edge reports the edge's throughput as a fraction of it.
package main

import (
	"bytes"
	"flag"
	"log"

	"github.com/valyala/fasthttp"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8091", "address")
	flag.Parse()
	body := bytes.Repeat([]byte("x"), 1024)
	s := &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("application/json")
			ctx.Response.SetBodyRaw(body)
		},
		NoDefaultServerHeader: true,
	}
	log.Fatal(s.ListenAndServe(*listen))
}
