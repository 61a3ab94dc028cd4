// Package jwt verifies and mints the user bearer tokens the dynamic service
// accepts: compact JWS (RFC 7515) with EdDSA (Ed25519, RFC 8037) or RS256,
// whose keys come from a PEM file or a JWKS URL, and whose exp, nbf, iss and
// aud claims (RFC 7519 §4.1) are checked.
//
// Only these two algorithms exist here, and a key only verifies the
// algorithm of its own type, so a token cannot pick a weaker algorithm
// ("none", HS256 with a public key as secret).
package jwt

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Algorithms, as the JWS "alg" header spells them.
const (
	EdDSA = "EdDSA"
	RS256 = "RS256"
)

// ErrInvalid is wrapped by every verification failure.
var ErrInvalid = errors.New("invalid token")

// Claims are the registered claims the service uses.
type Claims struct {
	Subject   string
	Issuer    string
	Audience  []string
	ExpiresAt time.Time
	NotBefore time.Time
	IssuedAt  time.Time
	// ID is the jti claim ("" when absent).
	ID string
}

type wireClaims struct {
	Sub string   `json:"sub,omitempty"`
	Iss string   `json:"iss,omitempty"`
	Aud audience `json:"aud,omitempty"`
	Exp int64    `json:"exp,omitempty"`
	Nbf int64    `json:"nbf,omitempty"`
	Iat int64    `json:"iat,omitempty"`
	Jti string   `json:"jti,omitempty"`
}

// audience is a string or an array of strings (RFC 7519 §4.1.3).
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = audience{s}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return errors.New("aud is neither a string nor an array of strings")
	}
	*a = l
	return nil
}

type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid,omitempty"`
	Typ string `json:"typ,omitempty"`
}

// KeySet finds the public key that verifies a token.
type KeySet interface {
	// Key returns the key for kid ("" when the token names none) that
	// verifies alg, or an error.
	Key(ctx context.Context, kid, alg string) (crypto.PublicKey, error)
}

// Verifier checks tokens. Issuer and Audience are required claims' values.
type Verifier struct {
	Keys     KeySet
	Issuer   string
	Audience string
	// Leeway tolerates clock skew on exp and nbf.
	Leeway time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Verify checks token's signature and claims and returns the claims.
func (v *Verifier) Verify(ctx context.Context, token string) (*Claims, error) {
	fail := func(format string, args ...any) (*Claims, error) {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if len(token) > 8<<10 {
		return fail("too long")
	}
	h64, rest, ok1 := strings.Cut(token, ".")
	p64, s64, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || strings.Contains(s64, ".") {
		return fail("not a compact JWS")
	}
	var h header
	if err := decodePart(h64, &h); err != nil {
		return fail("header: %v", err)
	}
	if h.Alg != EdDSA && h.Alg != RS256 {
		return fail("algorithm %q not accepted", h.Alg)
	}
	sig, err := base64.RawURLEncoding.DecodeString(s64)
	if err != nil {
		return fail("signature: %v", err)
	}
	key, err := v.Keys.Key(ctx, h.Kid, h.Alg)
	if err != nil {
		return fail("%v", err)
	}
	signed := token[:len(h64)+1+len(p64)]
	if !verifySig(key, h.Alg, []byte(signed), sig) {
		return fail("bad signature")
	}
	var w wireClaims
	if err := decodePart(p64, &w); err != nil {
		return fail("claims: %v", err)
	}
	now := time.Now()
	if v.Now != nil {
		now = v.Now()
	}
	c := &Claims{Subject: w.Sub, Issuer: w.Iss, Audience: w.Aud, ID: w.Jti}
	switch {
	case w.Exp == 0:
		return fail("no exp")
	case !now.Before(time.Unix(w.Exp, 0).Add(v.Leeway)):
		return fail("expired")
	case w.Nbf != 0 && now.Add(v.Leeway).Before(time.Unix(w.Nbf, 0)):
		return fail("not valid yet")
	case w.Sub == "":
		return fail("no sub")
	case v.Issuer != "" && w.Iss != v.Issuer:
		return fail("issuer %q not accepted", w.Iss)
	}
	if v.Audience != "" && !contains(w.Aud, v.Audience) {
		return fail("audience %q not accepted", []string(w.Aud))
	}
	c.ExpiresAt = time.Unix(w.Exp, 0)
	if w.Nbf != 0 {
		c.NotBefore = time.Unix(w.Nbf, 0)
	}
	if w.Iat != 0 {
		c.IssuedAt = time.Unix(w.Iat, 0)
	}
	return c, nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func decodePart(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func verifySig(key crypto.PublicKey, alg string, signed, sig []byte) bool {
	switch k := key.(type) {
	case ed25519.PublicKey:
		return alg == EdDSA && ed25519.Verify(k, signed, sig)
	case *rsa.PublicKey:
		if alg != RS256 {
			return false
		}
		sum := sha256.Sum256(signed)
		return rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], sig) == nil
	}
	return false
}

// Sign mints a token for c with key (an ed25519.PrivateKey gives EdDSA, an
// *rsa.PrivateKey RS256), naming kid in the header when not empty.
func Sign(key crypto.Signer, kid string, c Claims) (string, error) {
	h := header{Kid: kid, Typ: "JWT"}
	switch key.(type) {
	case ed25519.PrivateKey:
		h.Alg = EdDSA
	case *rsa.PrivateKey:
		h.Alg = RS256
	default:
		return "", fmt.Errorf("jwt: cannot sign with a %T", key)
	}
	w := wireClaims{Sub: c.Subject, Iss: c.Issuer, Aud: c.Audience, Exp: unix(c.ExpiresAt),
		Nbf: unix(c.NotBefore), Iat: unix(c.IssuedAt), Jti: c.ID}
	hb, _ := json.Marshal(h)
	var pb []byte
	if len(w.Aud) == 1 {
		// The common single-audience form is a plain string.
		pb, _ = json.Marshal(struct {
			wireClaims
			Aud string `json:"aud"`
		}{w, w.Aud[0]})
	} else {
		pb, _ = json.Marshal(w)
	}
	signed := base64.RawURLEncoding.EncodeToString(hb) + "." + base64.RawURLEncoding.EncodeToString(pb)
	var sig []byte
	var err error
	switch k := key.(type) {
	case ed25519.PrivateKey:
		sig = ed25519.Sign(k, []byte(signed))
	case *rsa.PrivateKey:
		sum := sha256.Sum256([]byte(signed))
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
	}
	if err != nil {
		return "", fmt.Errorf("jwt: sign: %w", err)
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func (a audience) MarshalJSON() ([]byte, error) { return json.Marshal([]string(a)) }
