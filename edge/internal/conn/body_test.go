package conn

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/respond"
)

// TestSetBody serves bodies handed to the connection (respond.SetBody,
// TakeBody) through a real server on CoarseDeadlines' connections, and
// checks that each answer reads as the same answer with SetBodyRaw does: GET and HEAD, bodies that
// fit in the server's write buffer with the header and ones that do not,
// an empty body, and pipelined requests whose answers share the buffer.
func TestSetBody(t *testing.T) {
	bodies := map[string][]byte{
		"/small": []byte(`{"a":1}`),
		"/page":  bytes.Repeat([]byte("0123456789abcdef"), 200),    // 3,200 bytes: header and body fill most of 4 KiB
		"/big":   bytes.Repeat([]byte("The Word was God. "), 5000), // 90,000 bytes
		"/empty": {},
	}
	handler := func(raw bool) fasthttp.RequestHandler {
		return func(ctx *fasthttp.RequestCtx) {
			ctx.Response.Header.Set("Etag", `"x"`)
			if raw {
				ctx.Response.SetBodyRaw(bodies[string(ctx.Path())])
				return
			}
			respond.SetBody(ctx, bodies[string(ctx.Path())])
		}
	}
	serve := func(raw bool) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &fasthttp.Server{Handler: handler(raw), NoDefaultDate: true, NoDefaultServerHeader: true}
		go srv.Serve(CoarseDeadlines(ln, time.Minute, time.Minute, time.Second))
		t.Cleanup(func() { srv.Shutdown() })
		return ln.Addr().String()
	}
	handed, copied := serve(false), serve(true)

	// exchange sends reqs on one connection, all at once (pipelined), and
	// returns everything the server answered.
	exchange := func(addr string, reqs []string) string {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte(strings.Join(reqs, ""))); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(c)
		var out strings.Builder
		for _, req := range reqs {
			var resp fasthttp.Response
			resp.SkipBody = strings.HasPrefix(req, "HEAD")
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if err := resp.Read(r); err != nil {
				t.Fatalf("%q: %v", req, err)
			}
			fmt.Fprintf(&out, "%s\n%s\n", resp.Header.String(), resp.Body())
		}
		return out.String()
	}
	req := func(method, path string) string {
		return method + " " + path + " HTTP/1.1\r\nHost: x\r\n\r\n"
	}
	for _, reqs := range [][]string{
		{req("GET", "/small")},
		{req("GET", "/page")},
		{req("GET", "/big")},
		{req("GET", "/empty")},
		{req("HEAD", "/small")},
		{req("HEAD", "/big")},
		{req("GET", "/small"), req("GET", "/big"), req("HEAD", "/page"), req("GET", "/page"), req("GET", "/small")},
	} {
		got, want := exchange(handed, reqs), exchange(copied, reqs)
		if got != want {
			t.Errorf("%q:\ngot  %q\nwant %q", reqs, got, want)
		}
		if !strings.Contains(want, "Content-Length") {
			t.Errorf("%q: no answer read: %q", reqs, want)
		}
	}
}

// TestSetBodyRead checks that a body handed to the connection is still
// the response's body for a reader in the process (Body, Write into a
// buffer of the caller's), and that a context without such a connection
// gets the body as SetBodyRaw sets it.
func TestSetBodyRead(t *testing.T) {
	body := []byte("In the beginning was the Word")
	var ln coarseListener
	ln.now.Store(time.Now().UnixNano())
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	cc := &coarseConn{Conn: a, l: &ln}

	var ctx fasthttp.RequestCtx
	ctx.Init2(cc, nil, false)
	respond.SetBody(&ctx, body)
	if !ctx.Response.IsBodyStream() {
		t.Fatal("body not handed to the connection")
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	if err := ctx.Response.Write(w); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if got := buf.String(); !strings.HasSuffix(got, "\r\n\r\n"+string(body)) || !strings.Contains(got, fmt.Sprintf("Content-Length: %d\r\n", len(body))) {
		t.Errorf("written to a buffer of the caller's: %q", got)
	}
	if cc.pending != nil || cc.body.b != nil {
		t.Error("a body is left on the connection after its answer")
	}

	// Written through the connection, the body goes to the socket as it
	// is, after the header, not copied into the write buffer.
	rec := &recordConn{}
	cc.Conn = rec
	respond.SetBody(&ctx, body)
	w = bufio.NewWriter(cc)
	if err := ctx.Response.Write(w); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if len(rec.writes) != 2 || &rec.writes[1][0] != &body[0] || len(rec.writes[1]) != len(body) ||
		!bytes.HasSuffix(rec.writes[0], []byte("\r\n\r\n")) {
		t.Errorf("written through the connection as %q, want the header, then the body itself", rec.writes)
	}

	// A HEAD's answer writes no body, and lets go of it too.
	respond.SetBody(&ctx, body)
	ctx.Response.SkipBody = true
	if err := ctx.Response.Write(w); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	ctx.Response.SkipBody = false
	if cc.body.b != nil || !bytes.HasSuffix(rec.writes[len(rec.writes)-1], []byte("\r\n\r\n")) {
		t.Errorf("HEAD: body kept %v, last write %q", cc.body.b != nil, rec.writes[len(rec.writes)-1])
	}

	respond.SetBody(&ctx, body)
	if got := ctx.Response.Body(); !bytes.Equal(got, body) {
		t.Errorf("Body() = %q, want %q", got, body)
	}

	var plain fasthttp.RequestCtx
	respond.SetBody(&plain, body)
	if plain.Response.IsBodyStream() || !bytes.Equal(plain.Response.Body(), body) {
		t.Errorf("without the edge's connection: stream %v, body %q", plain.Response.IsBodyStream(), plain.Response.Body())
	}
}

// recordConn keeps the slices it is asked to write.
type recordConn struct {
	net.Conn
	writes [][]byte
}

func (c *recordConn) Write(p []byte) (int, error) {
	c.writes = append(c.writes, p)
	return len(p), nil
}

func (c *recordConn) SetWriteDeadline(time.Time) error { return nil }

// TestSetBodyAllocs checks that handing a body to the connection and
// writing the answer through it, with a writev on a TCP socket, allocates
// nothing: it runs on every hit.
func TestSetBodyAllocs(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := CoarseDeadlines(tcp, time.Minute, time.Minute, time.Second)
	defer ln.Close()
	client, err := net.Dial("tcp", tcp.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	go io.Copy(io.Discard, client)
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cc := c.(*coarseConn)
	var ctx fasthttp.RequestCtx
	ctx.Init2(cc, nil, false)
	w := bufio.NewWriterSize(cc, 4096)
	body := bytes.Repeat([]byte("x"), 1500)
	answer := func() {
		ctx.Response.Reset()
		ctx.Response.Header.Set("Etag", `"x"`)
		respond.SetBody(&ctx, body)
		if err := ctx.Response.Write(w); err != nil {
			t.Fatal(err)
		}
		w.Flush()
	}
	answer()
	if cc.pending != nil || w.Buffered() != 0 {
		t.Fatal("answer not written through the connection")
	}
	if n := testing.AllocsPerRun(100, answer); n != 0 {
		t.Errorf("%v allocations per answer, want 0", n)
	}
}
