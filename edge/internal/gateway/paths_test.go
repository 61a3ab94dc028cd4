package gateway

import "testing"

// The sign-in routes go to dynamic; nothing else under /.well-known does.
func TestSignInRoutes(t *testing.T) {
	for _, tt := range []struct {
		path        string
		signIn, fwd bool
	}{
		{"/auth/authorize", true, true},
		{"/auth/token", true, true},
		{"/auth/sign-in", true, true},
		{"/auth/", false, false},
		{"/auth", false, false},
		{"/.well-known/openid-configuration", true, true},
		{"/.well-known/jwks.json", true, true},
		{"/.well-known/security.txt", false, false},
		{"/authx/authorize", false, false},
		{"/data-exchange", false, true},
		{"/developers", true, true},
		{"/developers/", true, true},
		{"/developers/app", true, true},
		{"/developersx", false, false},
		{"/developer", false, false},
	} {
		if got := isSignIn([]byte(tt.path)); got != tt.signIn {
			t.Errorf("isSignIn(%q) = %v, want %v", tt.path, got, tt.signIn)
		}
		if got := IsPath([]byte(tt.path)); got != tt.fwd {
			t.Errorf("IsPath(%q) = %v, want %v", tt.path, got, tt.fwd)
		}
	}
}
