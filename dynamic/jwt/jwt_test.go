package jwt

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var (
	edPub, edKey, _ = ed25519.GenerateKey(rand.Reader)
	rsaKey, _       = rsa.GenerateKey(rand.Reader, 2048)
)

func pemKeys(t *testing.T, keys ...crypto.PublicKey) *StaticKeys {
	t.Helper()
	var all []byte
	for _, k := range keys {
		b, err := EncodePublicPEM(k)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	s, err := ParsePEM(all)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	good := Claims{Subject: "user-1", Issuer: "https://id.example", Audience: []string{"platform"},
		ExpiresAt: now.Add(time.Hour), IssuedAt: now}
	with := func(f func(*Claims)) Claims { c := good; f(&c); return c }
	sign := func(k crypto.Signer, kid string, c Claims) string {
		s, err := Sign(k, kid, c)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	edTok := sign(edKey, KeyID(edPub), good)
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + "." + strings.Split(edTok, ".")[1] + "."
	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"ed25519", edTok, true},
		{"ed25519 without kid", sign(edKey, "", good), true},
		{"rs256", sign(rsaKey, KeyID(&rsaKey.PublicKey), good), true},
		{"audience list", sign(edKey, "", with(func(c *Claims) { c.Audience = []string{"x", "platform"} })), true},
		{"expired", sign(edKey, "", with(func(c *Claims) { c.ExpiresAt = now.Add(-time.Minute) })), false},
		{"no exp", sign(edKey, "", with(func(c *Claims) { c.ExpiresAt = time.Time{} })), false},
		{"not yet valid", sign(edKey, "", with(func(c *Claims) { c.NotBefore = now.Add(time.Minute) })), false},
		{"wrong issuer", sign(edKey, "", with(func(c *Claims) { c.Issuer = "https://evil.example" })), false},
		{"wrong audience", sign(edKey, "", with(func(c *Claims) { c.Audience = []string{"other"} })), false},
		{"no subject", sign(edKey, "", with(func(c *Claims) { c.Subject = "" })), false},
		{"alg none", none, false},
		{"tampered claims", tamper(edTok), false},
		{"unknown key", sign(ed25519.NewKeyFromSeed(make([]byte, 32)), "", good), false},
		{"garbage", "a.b.c", false},
		{"empty", "", false},
	}
	v := &Verifier{Keys: pemKeys(t, edPub, &rsaKey.PublicKey), Issuer: "https://id.example", Audience: "platform",
		Now: func() time.Time { return now }}
	for _, tt := range tests {
		c, err := v.Verify(context.Background(), tt.token)
		if got := err == nil; got != tt.ok {
			t.Errorf("%s: got err %v, want ok=%v", tt.name, err, tt.ok)
			continue
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %v does not wrap ErrInvalid", tt.name, err)
		}
		if err == nil && c.Subject != "user-1" {
			t.Errorf("%s: subject %q, want user-1", tt.name, c.Subject)
		}
	}
}

// tamper re-encodes the claims with another subject, keeping the signature.
func tamper(tok string) string {
	p := strings.Split(tok, ".")
	b, _ := base64.RawURLEncoding.DecodeString(p[1])
	var m map[string]any
	json.Unmarshal(b, &m)
	m["sub"] = "admin"
	b, _ = json.Marshal(m)
	return p[0] + "." + base64.RawURLEncoding.EncodeToString(b) + "." + p[2]
}

// A key of one type must not verify the other algorithm, even when the
// token names it by id.
func TestAlgorithmMustMatchKey(t *testing.T) {
	keys := pemKeys(t, edPub)
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256","kid":"` + KeyID(edPub) + `"}`))
	p := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"x","exp":9999999999}`))
	v := &Verifier{Keys: keys}
	if _, err := v.Verify(context.Background(), h+"."+p+"."+base64.RawURLEncoding.EncodeToString(make([]byte, 256))); err == nil {
		t.Error("an RS256 token verified with an Ed25519 key")
	}
}

func TestJWKS(t *testing.T) {
	var hits atomic.Int32
	set := map[string]any{"keys": []map[string]string{
		{"kty": "OKP", "crv": "Ed25519", "kid": "ed", "x": base64.RawURLEncoding.EncodeToString(edPub)},
		{"kty": "RSA", "kid": "rsa", "n": base64.RawURLEncoding.EncodeToString(rsaKey.N.Bytes()),
			"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(rsaKey.E)).Bytes())},
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		json.NewEncoder(w).Encode(set)
	}))
	defer srv.Close()
	j := NewJWKS(srv.URL)
	v := &Verifier{Keys: j, Audience: "platform"}
	claims := Claims{Subject: "u", Audience: []string{"platform"}, ExpiresAt: time.Now().Add(time.Hour)}
	for _, tc := range []struct {
		key crypto.Signer
		kid string
		ok  bool
	}{{edKey, "ed", true}, {rsaKey, "rsa", true}, {rsaKey, "ed", false}, {edKey, "nope", false}} {
		tok, _ := Sign(tc.key, tc.kid, claims)
		if _, err := v.Verify(context.Background(), tok); (err == nil) != tc.ok {
			t.Errorf("kid %s with %T: got %v, want ok=%v", tc.kid, tc.key, err, tc.ok)
		}
	}
	// The unknown kid may refetch once, not on every request.
	if n := hits.Load(); n > 2 {
		t.Errorf("JWKS fetched %d times, want at most 2", n)
	}
}

func TestPrivatePEMRoundTrip(t *testing.T) {
	for _, k := range []crypto.Signer{edKey, rsaKey} {
		b, err := EncodePrivatePEM(k)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParsePrivatePEM(b)
		if err != nil {
			t.Fatal(err)
		}
		if KeyID(got.Public()) != KeyID(k.Public()) {
			t.Errorf("%T: key changed in a PEM round trip", k)
		}
		// A private key file also serves as the verifier's key file.
		s, err := ParsePEM(b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Key(context.Background(), KeyID(k.Public()), algOf(k.Public())); err != nil {
			t.Errorf("%T: %v", k, err)
		}
	}
}
