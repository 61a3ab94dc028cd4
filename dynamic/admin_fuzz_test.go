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

// FuzzCheckRedirectURI: whatever CheckRedirectURI accepts is an http(s)
// URL checkHTTPURL accepts, or an absolute URL in a private-use scheme
// (a reverse domain name) with a path and no host, user or fragment.
func FuzzCheckRedirectURI(f *testing.F) {
	for _, s := range []string{"https://a.example/b", "com.example.app:/cb", "x:/y", "#", "http://[::1]:1/",
		"javascript:alert(1)", "com.example.app://host/cb", "com.example.app:/c b", "Com.Example:/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckRedirectURI(s) != nil {
			return
		}
		if _, ok := cutScheme(s); ok {
			if err := checkHTTPURL(s); err != nil {
				t.Fatalf("%q accepted, but checkHTTPURL refuses it: %v", s, err)
			}
			return
		}
		u, err := url.Parse(s)
		if err != nil {
			t.Fatalf("%q accepted but url.Parse fails: %v", s, err)
		}
		if !strings.Contains(u.Scheme, ".") || u.Host != "" || u.User != nil || u.Fragment != "" || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
			t.Fatalf("%q accepted: scheme %q host %q user %v fragment %q opaque %q path %q", s, u.Scheme, u.Host, u.User, u.Fragment, u.Opaque, u.Path)
		}
	})
}
