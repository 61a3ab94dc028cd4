package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/valyala/fasthttp"
)

// writeAnswers writes n answers of size bytes each (coding 'b') to a file
// of answers and returns its path and each target's body.
func writeAnswers(t *testing.T, n, size int) (string, map[string]string) {
	t.Helper()
	var b []byte
	want := map[string]string{}
	for i := range n {
		target := fmt.Sprintf("/v1/bibles/1/passages/GEN.1.%d", i+1)
		body := fmt.Sprintf("%0*d", size, i)
		b = appendRecord(b, target, 'b', []byte(body))
		want[target] = body
	}
	path := filepath.Join(t.TempDir(), "answers")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, want
}

// TestBoundedServesEveryAnswer: every body is found by target and coding,
// whether held or read from the file, and what is held stays within the
// bound; a body is held from its second request, not its first.
func TestBoundedServesEveryAnswer(t *testing.T) {
	const n, size = 200, 100
	path, want := writeAnswers(t, n, size)
	maxBytes := int64(20 * (size + 64 + slotCost))
	b, err := loadBounded(path, maxBytes, 1024)
	if err != nil {
		t.Fatal(err)
	}
	var kb [64]byte
	for round := range 3 {
		for target, body := range want {
			got, lent, err := b.find(kb[:0], []byte(target), 'b')
			if err != nil || string(got) != body {
				t.Fatalf("round %d: find(%s) = %q, %v; want %q", round, target, got, err, body)
			}
			if round == 0 && lent == nil {
				t.Fatalf("%s held from its first request", target)
			}
			b.giveBack(lent)
			if b.used > b.max {
				t.Fatalf("%d bytes held, over the bound of %d", b.used, b.max)
			}
		}
	}
	if b.admitted == 0 || len(b.held) == 0 || len(b.held) >= n {
		t.Errorf("%d admitted, %d held of %d: want some held, not all", b.admitted, len(b.held), n)
	}
	if got, _, err := b.find(kb[:0], []byte("/v1/bibles/2"), 'b'); got != nil || err != nil {
		t.Errorf("a target not in the file: %q, %v", got, err)
	}
	if got, _, err := b.find(kb[:0], []byte("/v1/bibles/1/passages/GEN.1.1"), 'g'); got != nil || err != nil {
		t.Errorf("a coding not in the file: %q, %v", got, err)
	}
}

// TestBoundedHotStaysHeld: a body asked again and again stays held while
// others pass through the bound (the clock's second chance).
func TestBoundedHotStaysHeld(t *testing.T) {
	const n, size = 500, 100
	path, _ := writeAnswers(t, n, size)
	b, err := loadBounded(path, int64(10*(size+64+slotCost)), 0)
	if err != nil {
		t.Fatal(err)
	}
	var kb [64]byte
	hot := []byte("/v1/bibles/1/passages/GEN.1.1")
	for i := range n {
		for _, target := range [][]byte{hot, fmt.Appendf(nil, "/v1/bibles/1/passages/GEN.1.%d", i+1)} {
			_, lent, err := b.find(kb[:0], target, 'b')
			if err != nil {
				t.Fatal(err)
			}
			b.giveBack(lent)
		}
	}
	if _, ok := b.held[string(answerKey(nil, hot, 'b'))]; !ok {
		t.Error("the body asked every other request was evicted")
	}
	if b.misses > n+1 {
		t.Errorf("%d misses for %d distinct bodies", b.misses, n)
	}
}

// TestBoundedRefusesCutFiles: a file cut short does not load.
func TestBoundedRefusesCutFiles(t *testing.T) {
	path, _ := writeAnswers(t, 3, 10)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{1, 5, 12} {
		if err := os.WriteFile(path, data[:len(data)-cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadBounded(path, 1<<20, 0); err == nil {
			t.Errorf("a file cut by %d bytes loaded", cut)
		}
	}
}

// TestEdgeShapedBounded: the floor's handler answers from the bound, held
// or read, with the body of the request's target in the coding it
// accepts, and 404 for a target it has none of.
func TestEdgeShapedBounded(t *testing.T) {
	var rec []byte
	rec = appendRecord(rec, "/v1/bibles/1/passages/JHN.3.16", 'b', []byte("brotli body"))
	rec = appendRecord(rec, "/v1/bibles/1/passages/JHN.3.16", 'g', []byte("gzip body"))
	path := filepath.Join(t.TempDir(), "answers")
	if err := os.WriteFile(path, rec, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := loadBounded(path, 1<<20, 1024)
	if err != nil {
		t.Fatal(err)
	}
	h := edgeShaped(nil, nil, b)
	for range 3 { // read, then held from the second request
		for _, c := range []struct{ target, accept, status, enc, body string }{
			{"/v1/bibles/1/passages/JHN.3.16", "br, gzip", "200", "br", "brotli body"},
			{"/v1/bibles/1/passages/JHN.3.16", "gzip", "200", "gzip", "gzip body"},
			{"/v1/bibles/1/passages/JHN.3.17", "br, gzip", "404", "", ""},
		} {
			var ctx fasthttp.RequestCtx
			ctx.Request.SetRequestURI(c.target)
			ctx.Request.Header.Set("X-SVC-App-Key", "k")
			ctx.Request.Header.Set("Accept-Encoding", c.accept)
			h(&ctx)
			got := fmt.Sprintf("%d %s %s", ctx.Response.StatusCode(), ctx.Response.Header.Peek("Content-Encoding"), ctx.Response.Body())
			if want := fmt.Sprintf("%s %s %s", c.status, c.enc, c.body); got != want {
				t.Errorf("%s (%s): %q, want %q", c.target, c.accept, got, want)
			}
		}
	}
	if len(b.held) != 2 {
		t.Errorf("%d bodies held after three requests of each, want 2", len(b.held))
	}
}
