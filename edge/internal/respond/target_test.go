package respond

import (
	"bufio"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// FuzzTarget checks that QueryOf's PeekAll reads what
// ctx.QueryArgs().Peek reads, for any request fasthttp reads from a
// connection, two distinct names at once (the second "format", or
// "include_notes" when the first is "format"). Whether an empty value is nil is not compared: fasthttp's
// depends on how its argument slice grew, and callers read only lengths.
func FuzzTarget(f *testing.F) {
	for _, s := range [][3]string{
		{"/v1/bibles/206/passages/JHN.3.16?format=html", "127.0.0.1:18181", "format"},
		{"/v1/bibles/206/passages/JHN.3.16?format=html&format=text", "api.example.org", "format"},
		{"/v1/bibles/206/passages/JHN.3.16?include_notes&format=", "h", "include_notes"},
		{"/v1/bibles/206/passages/JHN.3.16?a=b=c&=x&&", "h", "a"},
		{"/v1/bibles/206/../207/passages/JHN.3.16", "example.org", ""},
		{"/v1/./bibles//206/%70assages/x?format=%68tml", "example.org", "format"},
		{"/a/..", "h", ""}, {"/a/b/.", "h", ""}, {"/?x=http://y/z", "h", "x"}, {"/#frag?x=1", "h", "x"},
		{"/a?b=1#c", "h", "b"}, {"/a?b=x+y", "h", "b"}, {"http://other.example/v1/bibles?x=1", "h", "x"},
		{"*", "h", ""}, {"/x?y=1", "", "y"}, {"/x?y=1", "[::1]:80", "y"}, {"/x?y=1", "h:", "y"},
		{"/x?y=1", "h:8a", "y"}, {"/x?y=1", "a_b", "y"}, {"/x?y=1", "h%41", "y"}, {"/x", "H.Example:443", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, uri, host, name string) {
		var fast, slow fasthttp.RequestCtx
		raw := "GET " + uri + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n"
		if fast.Request.Read(bufio.NewReader(strings.NewReader(raw))) != nil {
			return
		}
		if slow.Request.Read(bufio.NewReader(strings.NewReader(raw))) != nil {
			t.Fatalf("%q read once, not twice", raw)
		}
		names := []string{name, "format"}
		if name == names[1] {
			names[1] = "include_notes"
		}
		var got [2][]byte
		QueryOf(&fast).PeekAll(names, got[:])
		for i, name := range names {
			if want := slow.QueryArgs().Peek(name); string(got[i]) != string(want) {
				t.Errorf("GET %q, Host %q: QueryOf.PeekAll %q: %q, ctx.QueryArgs().Peek %q", uri, host, name, got[i], want)
			}
		}
	})
}

// TestTargetFast: a query is read from its own bytes unless it holds
// what fasthttp's parsing decodes, whatever the path and the Host.
func TestTargetFast(t *testing.T) {
	for _, tc := range []struct {
		uri, host string
		want      bool
	}{
		{"/v1/bibles/206/passages/JHN.3.16?format=html", "127.0.0.1:18181", true},
		{"/v1/bibles/206/books/JHN/chapters/3", "api.example.org", true},
		{"/v1/bibles/206/passages/JHN.3.16%20?format=html", "h", true},
		{"/v1/bibles/206/./passages/JHN.3.16?format=html", "[::1]:80", true},
		{"/v1/bibles/206/passages/JHN.3.16?format=%68tml", "h", false},
		{"/v1/bibles/206/passages/JHN.3.16?format=a+b", "h", false},
	} {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI(tc.uri)
		ctx.Request.Header.SetHost(tc.host)
		if got := QueryOf(&ctx).args == nil; got != tc.want {
			t.Errorf("GET %s, Host %s: query read from its own bytes %v, want %v", tc.uri, tc.host, got, tc.want)
		}
	}
}
