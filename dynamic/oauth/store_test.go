package oauth

import "testing"

func TestCheckRedirectURI(t *testing.T) {
	for _, tt := range []struct {
		uri string
		ok  bool
	}{
		{"https://app.example/callback", true},
		{"http://127.0.0.1:3000/callback", true},
		{"com.example.app:/callback", true},
		{"https://app.example/callback?from=sign-in", true},
		{"/callback", false},
		{"https://app.example/callback#x", false},
		{"https:///callback", false},
		{"javascript:alert(1)", false},
		{"https://app.example/call back", false},
	} {
		if err := CheckRedirectURI(tt.uri); (err == nil) != tt.ok {
			t.Errorf("CheckRedirectURI(%q) = %v, want ok %v", tt.uri, err, tt.ok)
		}
	}
}

func FuzzCheckRedirectURI(f *testing.F) {
	for _, s := range []string{"https://a/b", "x:/y", "#", "http://[::1]:1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckRedirectURI(s) == nil && (len(s) == 0 || s[0] == '/') {
			t.Fatalf("%q accepted", s)
		}
	})
}
