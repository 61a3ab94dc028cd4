package dynamic

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzCheckHTTPURL: whatever checkHTTPURL accepts parses as an absolute
// http(s) URL with a host and no fragment or user information, and its
// origin (what the approval page writes into its CSP) holds nothing that
// could end a source or a directive.
func FuzzCheckHTTPURL(f *testing.F) {
	for _, s := range []string{
		"https://reader.example/cb", "http://localhost:3000/callback?x=1", "http://[::1]:8080/a",
		"http://a.com;frame-ancestors/cb", "http://a.com/c b", "https://u@h/", "http://h:0/", "http://h/%zz",
		"HTTP://H.EXAMPLE/", "http://1.2.3.4:65535/a/b?c=d&e=(f)", "http://h/#x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if checkHTTPURL(s) != nil {
			return
		}
		u, err := url.Parse(s)
		if err != nil {
			t.Fatalf("%q accepted but url.Parse fails: %v", s, err)
		}
		if sc := strings.ToLower(u.Scheme); sc != "http" && sc != "https" || u.Host == "" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
			t.Fatalf("%q accepted: scheme %q host %q user %v fragment %q opaque %q", s, u.Scheme, u.Host, u.User, u.Fragment, u.Opaque)
		}
		if o := origin(s); o == "" || strings.ContainsAny(o, " \t\r\n;,'\"*") {
			t.Fatalf("%q accepted with origin %q", s, o)
		}
	})
}
