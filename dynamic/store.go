package dynamic

import (
	"context"
	"time"

	"github.com/bibleplatform/platform/trending"
)

// The storage the service needs, by role. Each part of the service is given
// only the roles it uses; dynamic/postgres implements them all (DB).
//
// Error contracts: besides the errors each method's doc names, every method
// may return ErrUnavailable (the database cannot be reached right now: 503),
// ErrUnacceptable for a value the store's own checks refuse (an id that is
// not a UUID, a status or colour outside its set) and, for anything else, an
// error wrapped with context for the log (500). The adapter translates its
// driver's errors into these sentinels; callers test them with errors.Is
// and never look for a driver's error type.

// AppStore holds registered apps.
type AppStore interface {
	// CreateApp stores a new app. ErrConflict: an app with a.ID exists.
	CreateApp(ctx context.Context, a App) error
	// UpsertApp creates a, or overwrites every field of the app with its
	// id (the seed of demo apps).
	UpsertApp(ctx context.Context, a App) error
	// SetAppStatus changes an app's status. ErrNotFound: no app has id.
	SetAppStatus(ctx context.Context, id, status string) error
	// App reads one app. ErrNotFound: no app has id.
	App(ctx context.Context, id string) (*App, error)
	// Apps lists every app, oldest first; none is an empty list.
	Apps(ctx context.Context) ([]App, error)
}

// KeyStore holds App Keys by their SHA-256.
type KeyStore interface {
	// AddKey stores a key's hash for an app and returns the key's id.
	// ErrNotFound: no app has appID. ErrConflict: the hash is stored
	// already (for this app or another).
	AddKey(ctx context.Context, appID string, hash []byte, hint string) (int64, error)
	// RevokeKey revokes the key with id at at; a key revoked before keeps
	// its first time. ErrNotFound: no key has id.
	RevokeKey(ctx context.Context, id int64, at time.Time) error
	// RevokeKeyHash is RevokeKey for the key whose hash is hash.
	// ErrNotFound: no key has that hash.
	RevokeKeyHash(ctx context.Context, hash []byte, at time.Time) error
	// Keys lists an app's keys, revoked ones too, oldest first; an unknown
	// app has none (no error).
	Keys(ctx context.Context, appID string) ([]Key, error)
}

// AgreementStore holds licence agreements (the licences themselves are
// published content).
type AgreementStore interface {
	// Agree records a; an agreement recorded before keeps its first time
	// (no error).
	Agree(ctx context.Context, a Agreement) error
	// DeveloperAgreements lists a developer's agreements by licence, then
	// time; none is an empty list.
	DeveloperAgreements(ctx context.Context, developerID string) ([]Agreement, error)
}

// AccessStore is what the access snapshot is built and kept current from.
type AccessStore interface {
	// AccessData reads apps, their active key hashes and agreed licences
	// with the version they are at, in one consistent read.
	AccessData(ctx context.Context) (*AccessData, error)
	// AccessVersion is the current version of the access data.
	AccessVersion(ctx context.Context) (int64, error)
	// BumpAccessVersion moves the version on (and notifies listeners)
	// without a change of rows: published content decides what an
	// agreement opens. It returns the new version.
	BumpAccessVersion(ctx context.Context) (int64, error)
	// ListenAccess calls ready once it listens, then fn with each new
	// version notified, until ctx ends or the connection fails (often
	// ErrUnavailable); it always returns an error saying which, and the
	// caller listens again unless ctx ended.
	ListenAccess(ctx context.Context, ready func(), fn func(version int64)) error
}

// GrantStore holds the permissions users granted to apps. A grant is never
// withdrawn.
type GrantStore interface {
	// Grants lists the permissions userID granted appID, sorted; none is
	// an empty list.
	Grants(ctx context.Context, userID, appID string) ([]string, error)
	// HasGrant reports whether userID granted permission to appID.
	HasGrant(ctx context.Context, userID, appID, permission string) (bool, error)
	// Grant records permissions outside the consent flow (admin, demo); a
	// permission granted before keeps its first time. ErrNotFound: no app
	// has appID.
	Grant(ctx context.Context, userID, appID string, permissions []string, at time.Time) error
}

// HighlightStore holds users' highlights and the outcomes of highlight
// creations by request id.
type HighlightStore interface {
	// Highlights lists the user's highlights among verses, in the order of
	// verses; none is an empty list. verses are the single-verse passage
	// ids of one passage (they share a prefix).
	Highlights(ctx context.Context, userID string, bibleID int32, verses []string) ([]Highlight, error)
	// CreateHighlights applies req unless its request id was seen before,
	// and returns the outcome of the first request with that id: a retry
	// learns what the first attempt did. ErrRequestReused: the id was
	// used for a different highlight (HighlightRequest.Fingerprint).
	CreateHighlights(ctx context.Context, req HighlightRequest) (HighlightOutcome, error)
	// DeleteHighlights removes the user's highlights on verses; verses
	// without one are no error.
	DeleteHighlights(ctx context.Context, userID string, bibleID int32, verses []string) error
	// PurgeHighlightRequests forgets the outcomes recorded before before:
	// a retry after that is a new request.
	PurgeHighlightRequests(ctx context.Context, before time.Time) error
}

// ExchangeStore holds data-exchange (consent) tokens by their hash.
type ExchangeStore interface {
	// CreateExchangeToken stores t. ErrNotFound: no app has t.AppID.
	// ErrConflict: a token with t.Hash exists.
	CreateExchangeToken(ctx context.Context, t ExchangeToken) error
	// ExchangeToken reads a token, used or expired ones too. ErrNotFound:
	// no token has hash.
	ExchangeToken(ctx context.Context, hash []byte) (*ExchangeToken, error)
	// ConsumeExchangeToken marks a valid token used at now and, when grant
	// is set, grants its permissions, in one transaction: of two racing
	// calls exactly one succeeds. ErrNotFound: no token has hash.
	// ErrTokenUsed, ErrTokenExpired: the token cannot be used any more
	// (the token is returned with either).
	ConsumeExchangeToken(ctx context.Context, hash []byte, now time.Time, grant bool) (*ExchangeToken, error)
	// PurgeExchangeTokens deletes the tokens that expired before before.
	PurgeExchangeTokens(ctx context.Context, before time.Time) error
}

// SearchStore holds the counts behind trending search queries (trending.go).
type SearchStore interface {
	// SearchSalt returns day's salt (UTC), created on first use; callers
	// racing to create it all get the one stored.
	SearchSalt(ctx context.Context, day time.Time) ([]byte, error)
	// AddSearchQueries adds counts at the hour of at, and app hashes for
	// its day, in one transaction.
	AddSearchQueries(ctx context.Context, at time.Time, qs []SearchCount) error
	// Trending is each language's limit most searched phrases since since
	// with at least minApps distinct apps on one day; no phrase is an
	// empty map.
	Trending(ctx context.Context, since time.Time, minApps, limit int) (map[string][]trending.Phrase, error)
	// PurgeSearchQueries deletes counts and hashes before before, and the
	// salts of days before now's.
	PurgeSearchQueries(ctx context.Context, before, now time.Time) error
}

// SeedStore is what Seed writes: apps, their keys and their organizations'
// agreements.
type SeedStore interface {
	AppStore
	KeyStore
	AgreementStore
}

// HealthStore answers whether the database serves at all (readiness).
type HealthStore interface {
	// Ping makes one round trip to the database.
	Ping(ctx context.Context) error
}

// DB is every role: what a whole Server is given.
type DB interface {
	HealthStore
	AppStore
	KeyStore
	AgreementStore
	AccessStore
	GrantStore
	HighlightStore
	ExchangeStore
	SearchStore
	UsageStore
}
