package jwt

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"time"
)

// StaticKeys is a fixed set of public keys, by key id.
type StaticKeys struct {
	keys map[string]crypto.PublicKey
	list []crypto.PublicKey
}

// Key returns the key named kid or, for a token naming none, the first key
// whose type verifies alg.
func (s *StaticKeys) Key(_ context.Context, kid, alg string) (crypto.PublicKey, error) {
	if kid != "" {
		if k, ok := s.keys[kid]; ok {
			return k, nil
		}
		return nil, fmt.Errorf("unknown key id %q", kid)
	}
	for _, k := range s.list {
		if algOf(k) == alg {
			return k, nil
		}
	}
	return nil, fmt.Errorf("no key for %s", alg)
}

func algOf(k crypto.PublicKey) string {
	switch k.(type) {
	case ed25519.PublicKey:
		return EdDSA
	case *rsa.PublicKey:
		return RS256
	}
	return ""
}

// KeyID is the id a public key goes by when its source names none: the
// RFC 7638 thumbprint, so a minted token's kid matches the key that a
// verifier loads from the same PEM file.
func KeyID(k crypto.PublicKey) string {
	var j string
	switch k := k.(type) {
	case ed25519.PublicKey:
		j = `{"crv":"Ed25519","kty":"OKP","x":"` + base64.RawURLEncoding.EncodeToString(k) + `"}`
	case *rsa.PublicKey:
		j = `{"e":"` + base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes()) +
			`","kty":"RSA","n":"` + base64.RawURLEncoding.EncodeToString(k.N.Bytes()) + `"}`
	default:
		return ""
	}
	sum := sha256.Sum256([]byte(j))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// ParsePEM reads public keys from PEM blocks: PUBLIC KEY (PKIX), RSA PUBLIC
// KEY, CERTIFICATE, or a PRIVATE KEY whose public half is used. Keys are
// named by KeyID.
func ParsePEM(data []byte) (*StaticKeys, error) {
	s := &StaticKeys{keys: make(map[string]crypto.PublicKey)}
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		var k any
		var err error
		switch b.Type {
		case "PUBLIC KEY":
			k, err = x509.ParsePKIXPublicKey(b.Bytes)
		case "RSA PUBLIC KEY":
			k, err = x509.ParsePKCS1PublicKey(b.Bytes)
		case "CERTIFICATE":
			var c *x509.Certificate
			if c, err = x509.ParseCertificate(b.Bytes); err == nil {
				k = c.PublicKey
			}
		case "PRIVATE KEY", "RSA PRIVATE KEY":
			var p crypto.Signer
			if p, err = ParsePrivatePEMBlock(b); err == nil {
				k = p.Public()
			}
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("jwt: %s block: %w", b.Type, err)
		}
		if algOf(k) == "" {
			return nil, fmt.Errorf("jwt: a %T key verifies neither EdDSA nor RS256", k)
		}
		s.keys[KeyID(k)] = k
		s.list = append(s.list, k)
	}
	if len(s.list) == 0 {
		return nil, errors.New("jwt: no public key in PEM data")
	}
	return s, nil
}

// ParsePrivatePEM reads the first private key of PEM data (PKCS #8, or
// PKCS #1 for RSA).
func ParsePrivatePEM(data []byte) (crypto.Signer, error) {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return nil, errors.New("jwt: no private key in PEM data")
		}
		if b.Type == "PRIVATE KEY" || b.Type == "RSA PRIVATE KEY" {
			return ParsePrivatePEMBlock(b)
		}
	}
}

// ParsePrivatePEMBlock decodes one private key block.
func ParsePrivatePEMBlock(b *pem.Block) (crypto.Signer, error) {
	if b.Type == "RSA PRIVATE KEY" {
		return x509.ParsePKCS1PrivateKey(b.Bytes)
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, err
	}
	switch k := k.(type) {
	case ed25519.PrivateKey:
		return k, nil
	case *rsa.PrivateKey:
		return k, nil
	}
	return nil, fmt.Errorf("jwt: unsupported private key %T", k)
}

// EncodePrivatePEM is the PKCS #8 PEM form of key.
func EncodePrivatePEM(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// EncodePublicPEM is the PKIX PEM form of key.
func EncodePublicPEM(key crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// JWKS fetches keys from a JWK Set URL (RFC 7517 §5) and keeps them for
// MaxAge. A token naming an unknown key id triggers a refetch, at most once
// per MinRefresh, so that a rotated key is picked up without letting
// random key ids hammer the issuer.
type JWKS struct {
	URL        string
	Client     *http.Client
	MaxAge     time.Duration
	MinRefresh time.Duration

	mu      sync.Mutex
	keys    *StaticKeys
	fetched time.Time
}

// NewJWKS returns a JWKS source with sensible refresh periods.
func NewJWKS(url string) *JWKS {
	return &JWKS{URL: url, Client: &http.Client{Timeout: 10 * time.Second},
		MaxAge: 10 * time.Minute, MinRefresh: 30 * time.Second}
}

// Key implements KeySet.
func (j *JWKS) Key(ctx context.Context, kid, alg string) (crypto.PublicKey, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	age := time.Since(j.fetched)
	if j.keys == nil || age > j.MaxAge {
		if err := j.fetch(ctx); err != nil && j.keys == nil {
			return nil, err
		}
	}
	k, err := j.keys.Key(ctx, kid, alg)
	if err != nil && time.Since(j.fetched) > j.MinRefresh {
		if ferr := j.fetch(ctx); ferr == nil {
			k, err = j.keys.Key(ctx, kid, alg)
		}
	}
	return k, err
}

type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	N   string `json:"n"`
	E   string `json:"e"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
}

func (j *JWKS) fetch(ctx context.Context) error {
	j.fetched = time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.URL, nil)
	if err != nil {
		return fmt.Errorf("jwks: %w", err)
	}
	resp, err := j.Client.Do(req)
	if err != nil {
		return fmt.Errorf("jwks: fetch: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("jwks: fetch %s: status %d", j.URL, resp.StatusCode)
	}
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return fmt.Errorf("jwks: decode: %w", err)
	}
	keys, err := parseJWKs(set.Keys)
	if err != nil {
		return err
	}
	j.keys = keys
	return nil
}

func parseJWKs(set []jwk) (*StaticKeys, error) {
	s := &StaticKeys{keys: make(map[string]crypto.PublicKey)}
	for _, k := range set {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		var pub crypto.PublicKey
		switch {
		case k.Kty == "OKP" && k.Crv == "Ed25519":
			x, err := base64.RawURLEncoding.DecodeString(k.X)
			if err != nil || len(x) != ed25519.PublicKeySize {
				return nil, fmt.Errorf("jwks: key %q: bad x", k.Kid)
			}
			pub = ed25519.PublicKey(x)
		case k.Kty == "RSA":
			n, err1 := base64.RawURLEncoding.DecodeString(k.N)
			e, err2 := base64.RawURLEncoding.DecodeString(k.E)
			if err1 != nil || err2 != nil || len(e) > 4 || len(n) < 256 {
				return nil, fmt.Errorf("jwks: key %q: bad RSA key (2048 bits at least)", k.Kid)
			}
			pub = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		default:
			continue // other key types verify nothing we accept
		}
		kid := k.Kid
		if kid == "" {
			kid = KeyID(pub)
		}
		s.keys[kid] = pub
		s.list = append(s.list, pub)
	}
	if len(s.list) == 0 {
		return nil, errors.New("jwks: no usable key")
	}
	return s, nil
}
