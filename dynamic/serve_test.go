package dynamic

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestFastHandler checks that handlers behind fasthttp answer as they would
// behind net/http, and that what a handler keeps from a request is its own.
func TestFastHandler(t *testing.T) {
	var mu sync.Mutex
	var kept []string // what the handler kept from each request
	mux := http.NewServeMux()
	mux.HandleFunc("GET /keep/{v}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		kept = append(kept, r.Header.Get("Authorization"), r.URL.Query().Get("q"), r.PathValue("v"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "kept")
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		w.WriteHeader(http.StatusCreated)
		w.Write(b)
	})
	mux.HandleFunc("DELETE /gone", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
		w.Write([]byte("dropped"))
	})
	mux.HandleFunc("GET /ctx", func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(ctxKey{}) != "base" {
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: fastHandler(mux, context.WithValue(context.Background(), ctxKey{}, "base")),
		NoDefaultServerHeader: true, NoDefaultContentType: true}
	go srv.Serve(ln)
	defer srv.Shutdown()
	base := "http://" + ln.Addr().String()

	for _, tc := range []struct {
		method, path, body string
		status             int
		contentType        string
		wantBody           string
		cookies            int
	}{
		{"GET", "/keep/one?q=first", "", 200, "text/plain", "kept", 0},
		{"GET", "/keep/two?q=second", "", 200, "text/plain", "kept", 0},
		{"POST", "/echo", `{"x":1}`, 201, "text/plain; charset=utf-8", `{"x":1}`, 2},
		{"POST", "/echo", `<html><body>x</body></html>`, 201, "text/html; charset=utf-8", `<html><body>x</body></html>`, 2},
		{"DELETE", "/gone", "", 204, "", "", 0},
		{"GET", "/ctx", "", 200, "", "", 0},
		{"GET", "/nowhere", "", 404, "text/plain; charset=utf-8", "404 page not found\n", 0},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Authorization", "Bearer "+tc.path)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.StatusCode; got != tc.status {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.path, got, tc.status)
		}
		if got := resp.Header.Get("Content-Type"); got != tc.contentType {
			t.Errorf("%s %s: Content-Type %q, want %q", tc.method, tc.path, got, tc.contentType)
		}
		if got := string(b); got != tc.wantBody {
			t.Errorf("%s %s: body %q, want %q", tc.method, tc.path, got, tc.wantBody)
		}
		if got := len(resp.Header.Values("Set-Cookie")); got != tc.cookies {
			t.Errorf("%s %s: %d Set-Cookie, want %d", tc.method, tc.path, got, tc.cookies)
		}
	}
	want := []string{"Bearer /keep/one?q=first", "first", "one", "Bearer /keep/two?q=second", "second", "two"}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(kept, "|") != strings.Join(want, "|") {
		t.Errorf("kept %q, want %q", kept, want)
	}
}

type ctxKey struct{}
