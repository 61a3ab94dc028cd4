package dynamic

import (
	"bytes"
	"context"
	"net/http"
	"net/url"

	"github.com/valyala/fasthttp"
)

// The service's handlers are plain net/http handlers (tests and the edge
// contract are written against them); fasthttp is only the transport.
// Per request it costs fewer system calls than net/http's server, whose
// background read of every connection and per-request deadline changes were
// a fifth of this process's CPU on the highlight read path.
//
// fasthttp's own adaptor (fasthttpadaptor) hands the handler strings that
// alias fasthttp's reused buffers, and runs each request on a goroutine of
// its own. A handler that keeps such a string (the verified-token cache
// keeps the bearer token) would see it change under it with the next
// request, so fastHandler copies the request into memory of its own and
// runs the handler in place.
func fastHandler(h http.Handler, base context.Context) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		uri := string(ctx.RequestURI())
		u, err := url.ParseRequestURI(uri)
		if err != nil {
			ctx.SetStatusCode(fasthttp.StatusBadRequest)
			ctx.SetContentType("application/json; charset=utf-8")
			ctx.SetBodyString(`{"message":"Malformed request URI."}`)
			return
		}
		body := bytes.Clone(ctx.PostBody())
		r := (&http.Request{
			Method:        string(ctx.Method()),
			URL:           u,
			RequestURI:    uri,
			Proto:         "HTTP/1.1",
			ProtoMajor:    1,
			ProtoMinor:    1,
			Header:        make(http.Header, ctx.Request.Header.Len()),
			Host:          string(ctx.Host()),
			RemoteAddr:    ctx.RemoteAddr().String(),
			ContentLength: int64(len(body)),
			Body:          http.NoBody,
		}).WithContext(base)
		if len(body) > 0 {
			r.Body = bodyReader{bytes.NewReader(body)}
		}
		for k, v := range ctx.Request.Header.All() {
			r.Header.Add(string(k), string(v))
		}
		w := &bufferedWriter{header: make(http.Header, 4)}
		h.ServeHTTP(w, r)
		w.copyTo(&ctx.Response)
	}
}

type bodyReader struct{ *bytes.Reader }

func (bodyReader) Close() error { return nil }

// bufferedWriter collects a handler's answer; every answer of this service
// is small and complete when the handler returns.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferedWriter) Header() http.Header { return w.header }

func (w *bufferedWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *bufferedWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// copyTo writes the answer as net/http would: 200 unless told otherwise, a
// sniffed Content-Type for a body that names none, no body where the
// status allows none (RFC 9110 §6.4.1). fasthttp sets Content-Length.
func (w *bufferedWriter) copyTo(resp *fasthttp.Response) {
	w.WriteHeader(http.StatusOK)
	resp.SetStatusCode(w.status)
	bodyless := w.status == http.StatusNoContent || w.status == http.StatusNotModified || w.status < 200
	for k, vs := range w.header {
		// net/http drops these too; a 304 describes a body it does not carry.
		if k == "Content-Length" || k == "Transfer-Encoding" || k == "Content-Type" && w.status == http.StatusNotModified {
			continue
		}
		for _, v := range vs {
			resp.Header.Add(k, v)
		}
	}
	if bodyless {
		resp.SkipBody = true
		return
	}
	if w.header.Get("Content-Type") == "" && w.body.Len() > 0 {
		resp.Header.SetContentType(http.DetectContentType(w.body.Bytes()))
	}
	resp.SetBody(w.body.Bytes())
}
