// Package accounts holds platform accounts: who a person is on the
// platform's own origin, how they prove it (a password), their browser
// sessions and the throttling of failed sign-ins. It is the storage role
// (Store) and the rules that need no HTTP; the pages are dynamic's.
package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

// Account is a platform account.
type Account struct {
	ID           string // a UUID: the sub of the tokens issued for it
	Email        string // as typed
	DisplayName  string
	PasswordHash string // argon2id PHC string; "" when the account has none
	CreatedAt    time.Time
}

// EmailKey is how an address is compared and stored uniquely: lower case.
func EmailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Session is a browser session, stored by the hash of its id.
type Session struct {
	Hash      []byte
	AccountID string
	CreatedAt time.Time
	LastSeen  time.Time
	ExpiresAt time.Time // absolute end
}

// Store is the storage accounts need. dynamic/postgres implements it. Every
// method returns an error wrapping dynamic's ErrUnavailable when the
// database cannot be reached.
type Store interface {
	// CreateAccount stores a new account; an email key already taken is
	// an error wrapping dynamic's ErrConflict.
	CreateAccount(ctx context.Context, a Account) error
	// AccountByEmail finds an account by EmailKey; none is an error
	// wrapping dynamic's ErrNotFound.
	AccountByEmail(ctx context.Context, emailKey string) (*Account, error)
	// Account finds an account by id; none wraps dynamic's ErrNotFound.
	Account(ctx context.Context, id string) (*Account, error)

	// CreateSession stores a new session.
	CreateSession(ctx context.Context, s Session) error
	// TouchSession returns the live session hash names and records now as
	// its last use, in one statement: a session revoked, past its absolute
	// end or idle since before idleSince is not live and wraps dynamic's
	// ErrNotFound.
	TouchSession(ctx context.Context, hash []byte, now, idleSince time.Time) (*Session, error)
	// RevokeSession ends one session (nothing when it is not there).
	RevokeSession(ctx context.Context, hash []byte, at time.Time) error
	// RevokeSessions ends every session of an account.
	RevokeSessions(ctx context.Context, accountID string, at time.Time) error

	// RecordFailure notes a failed sign-in under each key at at.
	RecordFailure(ctx context.Context, at time.Time, keys ...string) error
	// Failures counts key's failures since since.
	Failures(ctx context.Context, key string, since time.Time) (int, error)
	// PurgeAccounts deletes failures and ended sessions older than before.
	PurgeAccounts(ctx context.Context, before time.Time) error
}

// Session lifetimes: a session ends after IdleLifetime without use or
// AbsoluteLifetime after sign-in, whichever comes first.
const (
	IdleLifetime     = 7 * 24 * time.Hour
	AbsoluteLifetime = 30 * 24 * time.Hour
)

// NewSessionID returns a random session id (the cookie's value) and the
// hash it is stored as.
func NewSessionID() (id string, hash []byte) {
	var b [32]byte
	rand.Read(b[:])
	id = base64.RawURLEncoding.EncodeToString(b[:])
	return id, HashSessionID(id)
}

// HashSessionID is what a session id is stored and looked up as.
func HashSessionID(id string) []byte {
	h := sha256.Sum256([]byte(id))
	return h[:]
}

// Limits on what sign-up takes.
const (
	MaxDisplayName = 100
	MaxEmail       = 254 // RFC 5321's limit on a path, the usual bound
)

// Problems with what sign-up was given, written for the person filling in
// the form.
const (
	ErrDisplayName Problem = "Enter a display name of at most 100 characters."
	ErrEmail       Problem = "Enter an email address such as name@example.com."
)

// Problem is a reason a form cannot be taken, worded for the person who
// filled it in (pages show it as it is).
type Problem string

func (p Problem) Error() string { return string(p) }

// CheckProfile checks a display name and an email address for sign-up.
func CheckProfile(name, email string) error {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxDisplayName || !utf8.ValidString(name) {
		return ErrDisplayName
	}
	email = strings.TrimSpace(email)
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > MaxEmail || !strings.Contains(email, "@") {
		return ErrEmail
	}
	return nil
}

// Passkeys is the storage of accounts' passkeys (WebAuthn credentials)
// and of ceremonies in progress. dynamic/postgres implements it; errors as
// Store's.
type Passkeys interface {
	// AddPasskey stores a credential (the WebAuthn library's JSON record)
	// for an account; a credential id stored already wraps ErrConflict.
	AddPasskey(ctx context.Context, accountID string, id, credential []byte, at time.Time) error
	// Passkeys lists an account's credentials.
	Passkeys(ctx context.Context, accountID string) ([][]byte, error)
	// UpdatePasskey replaces a credential's record (its sign count).
	UpdatePasskey(ctx context.Context, id, credential []byte) error
	// SaveCeremony keeps a ceremony's data until expires.
	SaveCeremony(ctx context.Context, hash, data []byte, expires time.Time) error
	// TakeCeremony returns and deletes a live ceremony's data; none (or
	// expired) wraps ErrNotFound.
	TakeCeremony(ctx context.Context, hash []byte, now time.Time) ([]byte, error)
}
