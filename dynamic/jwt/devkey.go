package jwt

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// LoadOrCreateKey reads the PEM private key at path (Ed25519 or RSA). When
// the file is missing it creates an Ed25519 key there (0600) with its public
// half beside it as .pub.pem, which is what a development dynamic service
// is given as --jwt-keys.
func LoadOrCreateKey(path string) (crypto.Signer, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		return ParsePrivatePEM(b)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	pemPriv, err := EncodePrivatePEM(priv)
	if err != nil {
		return nil, err
	}
	pemPub, err := EncodePublicPEM(priv.Public())
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, pemPriv, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(strings.TrimSuffix(path, ".pem")+".pub.pem", pemPub, 0o644); err != nil {
		return nil, err
	}
	return priv, nil
}
