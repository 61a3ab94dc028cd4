package edge

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestHotPathAllocs proves the hot path allocates nothing: a pre-rendered
// passage hit with the key check, licence check, rate limit and encoding
// choice, a composed verse range found in its cache, and the same requests
// answered 304 from If-None-Match. The access log is on, writing JSON, as
// the default configuration serves.
func TestHotPathAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	// handlerAllocs is the fewest allocations per call of f in five
	// measurements. testing.AllocsPerRun counts the whole process's, and on
	// a loaded machine goroutines other tests left behind (servers winding
	// down, retries) get to allocate within one measurement; an allocation
	// of f's own shows in every one.
	handlerAllocs := func(f func()) float64 {
		least := testing.AllocsPerRun(100, f)
		for range 4 {
			least = min(least, testing.AllocsPerRun(100, f))
		}
		return least
	}
	e := newTestEdge(t, func(c *Config) {
		c.AccessLog = slog.New(slog.NewJSONHandler(io.Discard, nil))
	})
	var ctx fasthttp.RequestCtx
	setup := func(uri string, headers ...string) {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI(uri)
		ctx.Request.Header.SetMethod("GET")
		ctx.Request.Header.Set("X-SVC-App-Key", keyDemo)
		for i := 0; i+1 < len(headers); i += 2 {
			ctx.Request.Header.Set(headers[i], headers[i+1])
		}
	}
	cases := []struct {
		name    string
		uri     string
		headers []string
		status  int
	}{
		{"verse html br", "/v1/bibles/9002/passages/JHN.3.16?format=html&include_notes=true", []string{"Accept-Encoding", "gzip, deflate, br;q=1.0"}, 200},
		{"chapter text gzip", "/v1/bibles/9001/passages/JHN.3", []string{"Accept-Encoding", "gzip"}, 200},
		{"verse identity", "/v1/bibles/9001/passages/jhn.3.17?format=text", nil, 200},
		{"intro", "/v1/bibles/9001/passages/JHN.INTRO?format=html", []string{"Accept-Encoding", "br"}, 200},
		{"verse object", "/v1/bibles/9001/books/JHN/chapters/3/verses/16", []string{"Accept-Encoding", "br"}, 200},
		// The first request composes the range; the measured ones are
		// cache hits, found by the id as sent.
		{"composed range hit", "/v1/bibles/9001/passages/JHN.3.16-4.2?format=html", []string{"Accept-Encoding", "br"}, 200},
		{"composed range hit lower case text", "/v1/bibles/9002/passages/jhn.3.16-17", []string{"Accept-Encoding", "gzip"}, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setup(tc.uri, tc.headers...)
			e.srv.Handler(&ctx)
			if got := ctx.Response.StatusCode(); got != tc.status {
				t.Fatalf("status %d, want %d: %s", got, tc.status, ctx.Response.Body())
			}
			etag := string(ctx.Response.Header.Peek("ETag"))
			allocs := handlerAllocs(func() {
				setup(tc.uri, tc.headers...)
				e.srv.Handler(&ctx)
			})
			if allocs != 0 {
				t.Errorf("200: %v allocations per request, want 0", allocs)
			}
			cond := append(append([]string(nil), tc.headers...), "If-None-Match", `W/"x", `+etag)
			setup(tc.uri, cond...)
			e.srv.Handler(&ctx)
			if got := ctx.Response.StatusCode(); got != fasthttp.StatusNotModified {
				t.Fatalf("conditional: status %d, want 304", got)
			}
			allocs = handlerAllocs(func() {
				setup(tc.uri, cond...)
				e.srv.Handler(&ctx)
			})
			if allocs != 0 {
				t.Errorf("304: %v allocations per request, want 0", allocs)
			}
		})
	}
}

// TestAccessLogLine checks the access log's line: one flat JSON object
// with the request's attributes (they are pooled and grouped to stay
// allocation-free; the group must not show).
func TestAccessLogLine(t *testing.T) {
	var buf bytes.Buffer
	e := newTestEdge(t, func(c *Config) {
		c.AccessLog = slog.New(slog.NewJSONHandler(&buf, nil))
	})
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI("/v1/bibles/9001/passages/JHN.3.16")
	ctx.Request.Header.Set("X-SVC-App-Key", keyDemo)
	buf.Reset()
	e.srv.Handler(&ctx)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	for k, want := range map[string]any{"msg": "request", "method": "GET", "path": "/v1/bibles/9001/passages/JHN.3.16",
		"class": "passage", "status": 200.0, "remote": "0.0.0.0"} {
		if line[k] != want {
			t.Errorf("%s = %v, want %v (%s)", k, line[k], want, buf.Bytes())
		}
	}
	// Numbers, the duration in microseconds: a Go duration string has to
	// be parsed before it can be summed or compared.
	for _, k := range []string{"id", "bytes", "duration_us"} {
		if _, ok := line[k].(float64); !ok {
			t.Errorf("%s is %T, want a number: %s", k, line[k], buf.Bytes())
		}
	}
}
