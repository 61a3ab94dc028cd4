package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestScaleLuaSends runs scale.lua in wrk, the client it is written for,
// against a server that records what it is sent: the paths of the file in
// order from the start given (past the request wrk makes to check it), its last line without a newline included,
// every fifth request asking for gzip alone, each with the key.
func TestScaleLuaSends(t *testing.T) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		t.Skip("wrk is not installed (make bench-edge installs it)")
	}
	dir := t.TempDir()
	paths := []string{"/v1/bibles/1/passages/GEN.1", "/a", "/bc", "/v1/x?y=z", "/d/e", "/f", "/last"}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pathFile := write("scale.paths", strings.Join(paths, "\n"))
	script := write("scale.lua", scaleLua("k1", 0.8))

	type got struct{ uri, enc, key string }
	var mu sync.Mutex
	var sent []got
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if len(sent) < 40 {
			sent = append(sent, got{r.RequestURI, r.Header.Get("Accept-Encoding"), r.Header.Get("X-SVC-App-Key")})
		}
		mu.Unlock()
	}))
	defer srv.Close()

	out, err := exec.Command(wrk, "-t", "1", "-c", "1", "-d", "1s", "-s", script, srv.URL, "--", pathFile, "5", "1").CombinedOutput()
	if err != nil {
		t.Fatalf("wrk: %v\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sent) < 20 {
		t.Fatalf("server got %d requests, want at least 20; wrk said:\n%s", len(sent), out)
	}
	for j, g := range sent {
		i := 5 + 1 + j // wrk makes one request to check it before the run
		want := got{paths[i%len(paths)], "br, gzip", "k1"}
		if (i+1)%5 == 0 {
			want.enc = "gzip"
		}
		if g != want {
			t.Errorf("request %d: got %+v, want %+v", j, g, want)
		}
	}
}
