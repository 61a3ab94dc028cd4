// Package oauth is the platform's OAuth 2.0 authorization server and OpenID
// Connect provider. The protocol is github.com/zitadel/oidc's op package
// (OpenID certified); this package is its storage (op.Storage) over the
// role interface Store, and the platform's policy where the protocol leaves
// a choice: public clients whose client_id is an App Key, PKCE with S256
// only, state required, registered callback URLs matched byte for byte,
// one-hour RS256 JWT access tokens, rotating single-use refresh tokens whose
// reuse revokes their family, and signing keys that rotate.
package oauth

import (
	"context"
	"errors"
	"time"
)

// Client is an app as a sign-in client.
type Client struct {
	AppID        string
	Name         string
	Status       string // access.StatusLive, …; archived apps are refused
	RedirectURIs []string
}

// AuthRequest is an authorization request, from /auth/authorize until its
// code is exchanged.
type AuthRequest struct {
	ID                   string
	AppID                string
	ClientID             string // the App Key the request named
	RedirectURI          string
	State                string
	Nonce                string
	Scopes               []string
	ResponseType         string
	ResponseMode         string
	CodeChallenge        string
	CodeChallengeMethod  string
	RequestedPermissions []string
	RequireInteraction   bool
	CreatedAt            time.Time

	// Set when the user has signed in and agreed.
	AccountID          string
	GrantedPermissions []string
	AuthTime           time.Time

	// Set when a code was issued, and when it was exchanged.
	CodeAt *time.Time
	UsedAt *time.Time
}

// Family is the refresh tokens rotated from one sign-in.
type Family struct {
	ID            string
	AccountID     string
	AppID         string
	ClientID      string
	Scopes        []string
	AuthTime      time.Time
	AuthRequestID string
	CreatedAt     time.Time
	RevokedAt     *time.Time
}

// RefreshToken is one refresh token of a family, by hash.
type RefreshToken struct {
	Hash      []byte
	Family    Family
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// SigningKey is a stored RSA signing key.
type SigningKey struct {
	KID        string
	PrivateDER []byte // PKCS #8
	CreatedAt  time.Time
}

// ErrSpent is returned when a code or refresh token that was already used is
// presented again: the store has revoked what it issued.
var ErrSpent = errors.New("oauth: already used")

// Store is the storage the provider needs. dynamic/postgres implements it.
// Lookups of something absent return an error wrapping dynamic's
// ErrNotFound; a database that cannot be reached, dynamic's ErrUnavailable.
type Store interface {
	// ClientByKeyHash finds the app whose unrevoked App Key has this
	// SHA-256, with its registered redirect URIs.
	ClientByKeyHash(ctx context.Context, hash []byte) (*Client, error)
	// SetRedirectURIs replaces an app's registered redirect URIs.
	SetRedirectURIs(ctx context.Context, appID string, uris []string) error
	// RedirectURIs lists an app's registered redirect URIs.
	RedirectURIs(ctx context.Context, appID string) ([]string, error)

	CreateAuthRequest(ctx context.Context, r AuthRequest) error
	AuthRequest(ctx context.Context, id string) (*AuthRequest, error)
	// CompleteAuthRequest records who signed in and what they granted, on
	// a request that has no code yet.
	CompleteAuthRequest(ctx context.Context, id, accountID string, granted []string, authTime time.Time) error
	// SaveCode records the hash of the code issued for a completed request.
	SaveCode(ctx context.Context, id string, codeHash []byte, at time.Time) error
	// AuthRequestByCode finds the request a code was issued for. A code
	// exchanged before gives ErrSpent, after the store revoked the token
	// families the first exchange created (RFC 6749 §4.1.2).
	AuthRequestByCode(ctx context.Context, codeHash []byte, now time.Time) (*AuthRequest, error)
	// StartFamily marks the request's code used (ErrSpent when it was, in a
	// race with another exchange) and stores the family and its first
	// refresh token, in one transaction.
	StartFamily(ctx context.Context, f Family, first RefreshToken) error
	// RefreshToken finds a refresh token by hash. A spent one gives
	// ErrSpent, after its family was revoked.
	RefreshToken(ctx context.Context, hash []byte, now time.Time) (*RefreshToken, error)
	// Rotate spends the token old and stores next in its family, in one
	// transaction; when old was spent already (a concurrent use), the
	// family is revoked and the error is ErrSpent.
	Rotate(ctx context.Context, old []byte, next RefreshToken, now time.Time) error
	// RevokeFamilyOf revokes the family of the refresh token hash, when
	// it belongs to the client; anything else is no error (RFC 7009 §2.2).
	RevokeFamilyOf(ctx context.Context, hash []byte, clientID string, now time.Time) error

	SigningKeys(ctx context.Context) ([]SigningKey, error)
	AddSigningKey(ctx context.Context, k SigningKey) error

	// FirstParty reports whether the operator marked the app first-party.
	FirstParty(ctx context.Context, appID string) (bool, error)
	SetFirstParty(ctx context.Context, appID string, on bool, at time.Time) error

	// PurgeOAuth deletes requests, families and tokens that ended before
	// before, and signing keys no token can be verified with any more.
	PurgeOAuth(ctx context.Context, before time.Time) error
}
