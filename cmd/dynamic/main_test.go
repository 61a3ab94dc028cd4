package main

import (
	"testing"

	"github.com/alecthomas/kong"
)

// TestServeFlags: the serve flags are spelled as the docs and the
// command's own messages spell them.
func TestServeFlags(t *testing.T) {
	var c cli
	p, err := kong.New(&c, kong.Name("dynamic"), vars, kong.Exit(func(int) { t.Fatal("kong exited") }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse([]string{"serve", "--database-url", "postgres://db/dynamic", "--store", "s3://content",
		"--edge-token", "secret", "--jwks-url", "https://id.example/jwks.json", "--no-access-log"}); err != nil {
		t.Fatal(err)
	}
	if got, want := c.Serve.JWKSURL, "https://id.example/jwks.json"; got != want {
		t.Errorf("--jwks-url: got %q, want %q", got, want)
	}
	if c.Serve.AccessLog {
		t.Error("--no-access-log left the access log on")
	}
}
