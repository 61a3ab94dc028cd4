package dynamic_test

import (
	"encoding/json"
	"testing"
	"time"
)

// Signing keys rotate after 30 days; the old key stays in the JWKS, and
// tokens it signed keep working, until they have expired.
func TestSigningKeyRotation(t *testing.T) {
	s := newSignInEnv(t)
	kids := func() []string {
		r := s.do(req{method: "GET", path: "/.well-known/jwks.json"})
		var v struct{ Keys []struct{ Kid string } }
		json.Unmarshal(r.body, &v)
		var out []string
		for _, k := range v.Keys {
			out = append(out, k.Kid)
		}
		return out
	}
	signIn := func() tokens {
		verifier, challenge := pkce()
		_, tok := s.exchange(s.code(s.signedIn(userID), authorizeParams(challenge)).Get("code"), verifier)
		if tok.AccessToken == "" {
			t.Fatal("no access token")
		}
		return tok
	}
	works := func(tok string) bool {
		return s.do(req{method: "GET", path: "/v1/apps/" + appID + "/permissions", bearer: "Bearer " + tok}).status == 200
	}
	old := signIn()
	h, _ := claims(t, old.AccessToken)
	first := h["kid"].(string)
	if k := kids(); len(k) != 1 || k[0] != first {
		t.Fatalf("JWKS %v, want the one signing key %s", k, first)
	}

	s.clock.Add(30*24*time.Hour - 30*time.Minute)
	old = signIn() // signed with the first key half an hour before it retires
	s.clock.Add(31 * time.Minute)
	fresh := signIn()
	h, _ = claims(t, fresh.AccessToken)
	second := h["kid"].(string)
	if second == first {
		t.Fatal("the key did not rotate after 30 days")
	}
	if k := kids(); len(k) != 2 {
		t.Errorf("JWKS after rotation %v, want both keys", k)
	}
	if !works(old.AccessToken) || !works(fresh.AccessToken) {
		t.Errorf("after rotation: old token works %v, new token works %v", works(old.AccessToken), works(fresh.AccessToken))
	}
	s.clock.Add(time.Hour)
	if k := kids(); len(k) != 1 || k[0] != second {
		t.Errorf("JWKS once the old key's tokens expired: %v, want only %s", k, second)
	}
}
