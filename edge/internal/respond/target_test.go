package respond

import (
	"bufio"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// FuzzTarget checks that Path and QueryOf's PeekAll read what ctx.Path()
// and ctx.QueryArgs().Peek read, for any request fasthttp reads from a
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
		if got, want := string(Path(&fast)), string(slow.Path()); got != want {
			t.Errorf("GET %q, Host %q: Path %q, ctx.Path() %q", uri, host, got, want)
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

// TestTargetFast: a passage request's path and query are read from its
// target's own bytes, not from fasthttp's parsed copy.
func TestTargetFast(t *testing.T) {
	for _, tc := range []struct {
		uri, host       string
		fast, fastQuery bool
	}{
		{"/v1/bibles/206/passages/JHN.3.16?format=html", "127.0.0.1:18181", true, true},
		{"/v1/bibles/206/books/JHN/chapters/3", "api.example.org", true, true},
		// What the path's normalising changes does not touch the query.
		{"/v1/bibles/206/passages/JHN.3.16%20?format=html", "h", false, true},
		{"/v1/bibles/206/./passages/JHN.3.16?format=html", "h", false, true},
		{"/v1/bibles/206/passages/JHN.3.16?format=%68tml", "h", true, false},
		{"/v1/bibles/206/passages/JHN.3.16?format=html", "[::1]:80", false, true},
	} {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI(tc.uri)
		ctx.Request.Header.SetHost(tc.host)
		p := Path(&ctx)
		raw := ctx.Request.Header.RequestURI()
		if got := &p[0] == &raw[0]; got != tc.fast {
			t.Errorf("GET %s, Host %s: fast path %v, want %v (path %q)", tc.uri, tc.host, got, tc.fast, p)
		}
		if got := QueryOf(&ctx).args == nil; got != tc.fastQuery {
			t.Errorf("GET %s, Host %s: query read from the target %v, want %v", tc.uri, tc.host, got, tc.fastQuery)
		}
	}
}
