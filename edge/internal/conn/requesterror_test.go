package conn

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// TestOversizedBody: a body over MaxRequestBody is 413 with the spec's
// {message}, read by the client as an answer, not a reset connection, even
// for a body of megabytes the edge never reads.
func TestOversizedBody(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{
		Handler:            func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("ok") },
		MaxRequestBodySize: MaxRequestBody,
		ErrorHandler:       RequestError,
		Logger:             quiet{},
	}
	go srv.Serve(CoarseDeadlines(ln, 5*time.Second, 5*time.Second, DefaultDeadlineSlack))
	defer srv.Shutdown()
	client := &http.Client{Timeout: 10 * time.Second}
	for _, size := range []int{MaxRequestBody, 100 << 10, 4 << 20, 12 << 20} {
		resp, err := client.Post("http://"+ln.Addr().String()+"/v1/highlights", "application/json",
			bytes.NewReader(bytes.Repeat([]byte("x"), size)))
		if err != nil {
			t.Errorf("%d bytes: %v", size, err)
			continue
		}
		var v struct{ Message string }
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		want := http.StatusRequestEntityTooLarge
		if size <= MaxRequestBody {
			want, err, v.Message = 200, nil, "ok"
		}
		if resp.StatusCode != want || err != nil || v.Message == "" ||
			want != 200 && !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%d bytes: %d %s %q (%v), want %d with a message", size, resp.StatusCode, resp.Header.Get("Content-Type"), v.Message, err, want)
		}
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}
