package dynamic

import (
	"net/url"
	"strings"
	"testing"
)

func TestLocalReturn(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", accountPath},
		{"/auth/continue?id=1", "/auth/continue?id=1"},
		{"/data-exchange?token=a&x-svc-app-key=k", "/data-exchange?token=a&x-svc-app-key=k"},
		{"//evil.example/", accountPath},
		{"/\\evil.example", accountPath},
		{"https://evil.example/", accountPath},
		{"javascript:alert(1)", accountPath},
		{"/a\r\nSet-Cookie: x", accountPath},
	} {
		if got := localReturn(tt.in); got != tt.want {
			t.Errorf("localReturn(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Whatever a client sends as return, the browser stays on this origin.
func FuzzLocalReturn(f *testing.F) {
	for _, s := range []string{"/", "//x", "/\\x", "http://x", "/a?b=//c", "/%2F%2Fx", "\t//x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := localReturn(in)
		u, err := url.Parse(got)
		if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") ||
			strings.HasPrefix(got, "/\\") {
			t.Fatalf("localReturn(%q) = %q leaves the origin", in, got)
		}
	})
}
