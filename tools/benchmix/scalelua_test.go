package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// TestScaleLuaInterleaves runs scale.lua with a second path file: it
// sends both files' paths, each file's in its own order from its own
// start, in slices of the clock, and prints how many requests each file's
// slices sent and how long they lasted, which add up to the run.
func TestScaleLuaInterleaves(t *testing.T) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		t.Skip("wrk is not installed (make bench-edge installs it)")
	}
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var a, b []string
	for i := range 1000 {
		a = append(a, fmt.Sprintf("/a/%d", i))
		b = append(b, fmt.Sprintf("/b/%d", i))
	}
	fa, fb := write("a.paths", strings.Join(a, "\n")+"\n"), write("b.paths", strings.Join(b, "\n")+"\n")
	script := write("scale.lua", scaleLua("k1", 0.8))

	var mu sync.Mutex
	var uris []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		uris = append(uris, r.RequestURI)
		mu.Unlock()
	}))
	defer srv.Close()

	out, err := exec.Command(wrk, "-t", "1", "-c", "1", "-d", "2s", "-s", script, srv.URL, "--",
		fa, "7", "1", fb, "300", "0.25").CombinedOutput()
	if err != nil {
		t.Fatalf("wrk: %v\n%s", err, out)
	}
	var n1, n2 int
	var t1, t2 float64
	line := regexp.MustCompile(`(?m)^interleaved: .*$`).Find(out)
	if _, err := fmt.Sscanf(string(line), "interleaved: first_requests=%d first_seconds=%g second_requests=%d second_seconds=%g",
		&n1, &t1, &n2, &t2); err != nil {
		t.Fatalf("no interleaved line (%v); wrk said:\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	// Each file's paths in order from its start (wrk's check request
	// takes one of them before the run), round again at its end, and
	// both files' slices taken: next counts where each file got to.
	next := map[byte]int{'a': -1, 'b': -1}
	switches := 0
	for j, u := range uris {
		var f byte
		var k int
		if _, err := fmt.Sscanf(u, "/%c/%d", &f, &k); err != nil {
			t.Fatalf("request %d: %q is neither file's", j, u)
		}
		if next[f] >= 0 && k != next[f]%len(a) {
			t.Fatalf("request %d: %s, want /%c/%d next", j, u, f, next[f]%len(a))
		}
		if j > 0 && uris[j-1][1] != f {
			switches++
		}
		if next[f] < 0 {
			next[f] = k
		}
		next[f]++
	}
	if next['a'] < 8 || next['b'] < 301 || switches < 4 {
		t.Fatalf("a reached %d, b %d, %d switches over %d requests: want both files sent in turns", next['a'], next['b'], switches, len(uris))
	}
	if got := n1 + n2; got < len(uris) || got > len(uris)+2 {
		t.Errorf("the script counted %d+%d requests, the server got %d", n1, n2, len(uris))
	}
	if s := t1 + t2; s < 1.5 || s > 2.2 || t1 < 0.5 || t2 < 0.5 {
		t.Errorf("slices of %.3f and %.3f s in a run of 2 s", t1, t2)
	}
}
