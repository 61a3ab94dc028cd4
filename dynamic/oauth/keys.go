package oauth

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"fmt"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/bibleplatform/platform/dynamic/jwt"
)

// Key rotation: the newest key signs for KeyRotation; a key stays in the
// JWKS for as long after that as a token it signed can live.
const (
	KeyRotation = 30 * 24 * time.Hour
	keyRSABits  = 2048
	keyCacheTTL = time.Minute
)

// keyring is the provider's signing keys, read from the store at most
// every keyCacheTTL; a new key is made when the newest is due for rotation.
type keyring struct {
	store Store
	now   func() time.Time

	mu      sync.Mutex
	read    time.Time
	missed  time.Time // when an unknown kid last forced a reload
	signing *signingKey
	public  []*signingKey // every key still published, newest first
}

type signingKey struct {
	kid     string
	key     *rsa.PrivateKey
	created time.Time
}

func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *signingKey) Key() any                                    { return k.key }
func (k *signingKey) ID() string                                  { return k.kid }

// publicKey is a key as op publishes it in the JWKS.
type publicKey struct{ k *signingKey }

func (p publicKey) ID() string                         { return p.k.kid }
func (p publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (p publicKey) Use() string                        { return "sig" }
func (p publicKey) Key() any                           { return &p.k.key.PublicKey }

func (r *keyring) load(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if r.signing != nil && !r.read.IsZero() && now.Sub(r.read) < keyCacheTTL && now.Sub(r.signing.created) < KeyRotation {
		return nil
	}
	rows, err := r.store.SigningKeys(ctx)
	if err != nil {
		return fmt.Errorf("signing keys: %w", err)
	}
	var keys []*signingKey
	for _, row := range rows {
		k, err := x509.ParsePKCS8PrivateKey(row.PrivateDER)
		if err != nil {
			return fmt.Errorf("signing key %s: %w", row.KID, err)
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return fmt.Errorf("signing key %s: not RSA", row.KID)
		}
		keys = append(keys, &signingKey{kid: row.KID, key: rk, created: row.CreatedAt})
	}
	// Newest first.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j].created.After(keys[j-1].created); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	if len(keys) == 0 || now.Sub(keys[0].created) >= KeyRotation {
		k, err := rsa.GenerateKey(rand.Reader, keyRSABits)
		if err != nil {
			return fmt.Errorf("new signing key: %w", err)
		}
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			return fmt.Errorf("new signing key: %w", err)
		}
		sk := &signingKey{kid: jwt.KeyID(&k.PublicKey), key: k, created: now}
		if err := r.store.AddSigningKey(ctx, SigningKey{KID: sk.kid, PrivateDER: der, CreatedAt: now}); err != nil {
			return fmt.Errorf("store signing key: %w", err)
		}
		keys = append([]*signingKey{sk}, keys...)
	}
	r.signing, r.read = keys[0], now
	r.public = r.public[:0]
	for _, k := range keys {
		// A key stops signing at created+KeyRotation; what it signed
		// lives at most TokenLifetime more.
		if now.Sub(k.created) < KeyRotation+TokenLifetime+time.Minute {
			r.public = append(r.public, k)
		}
	}
	return nil
}

// Key is the public key named kid, for dynamic/jwt's verifier: dynamic
// accepts the tokens it issued as it accepts an external issuer's.
func (r *keyring) Key(ctx context.Context, kid, alg string) (crypto.PublicKey, error) {
	if alg != jwt.RS256 {
		return nil, fmt.Errorf("algorithm %s not used by this issuer", alg)
	}
	for try := 0; ; try++ {
		if err := r.load(ctx); err != nil {
			return nil, err
		}
		r.mu.Lock()
		for _, k := range r.public {
			if k.kid == kid {
				r.mu.Unlock()
				return &k.key.PublicKey, nil
			}
		}
		// Another instance may have made a key since the last read: read
		// again, at most every few seconds whatever kids are sent.
		now := r.now()
		reload := try == 0 && now.Sub(r.missed) >= keyMissInterval
		if reload {
			r.missed, r.read = now, time.Time{}
		}
		r.mu.Unlock()
		if !reload {
			return nil, fmt.Errorf("unknown key id %q", kid)
		}
	}
}

// keyMissInterval bounds the reloads unknown key ids cause.
const keyMissInterval = 5 * time.Second
