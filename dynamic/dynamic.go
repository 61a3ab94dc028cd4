// Package dynamic is the service that owns everything mutable: apps and
// their App Keys, licence agreements, users' permission grants, highlights
// and the data-exchange (consent) flow. It sits behind the edge, which
// authenticates App Keys and forwards the routes that need user data with
// the verified app id, and it serves the edge the access snapshot it
// enforces.
//
// The domain types and the DB interface live here; dynamic/postgres
// implements DB; cmd/dynamic wires them.
package dynamic

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/bibleplatform/platform/trending"
)

// PermissionHighlights is the only permission a user can grant (spec, App
// permissions).
const PermissionHighlights = "highlights"

// App is a registered app.
type App struct {
	ID             string
	Name           string
	Description    string
	WebsiteURL     string
	Status         string // access.StatusDevelopment, …
	OrganizationID string // "" when none
	// CallbackURL is where the consent flow sends the user back.
	CallbackURL   string
	RatePerSecond float64
	RateBurst     int
	CreatedAt     time.Time
}

// Key is an issued App Key, without the key itself.
type Key struct {
	ID        int64
	AppID     string
	Hint      string
	CreatedAt time.Time
	RevokedAt *time.Time
}

// Agreement is an organization's or a developer's agreement to a licence.
type Agreement struct {
	LicenseID      int
	OrganizationID string // "" for a developer's own agreement
	DeveloperID    string // "" when not recorded
	AgreedAt       time.Time
}

// AccessData is what an access snapshot is built from, read in one
// consistent transaction.
type AccessData struct {
	Version int64
	Apps    []AccessApp
}

// AccessApp is one app with its active key hashes and the licences its
// organization agreed to.
type AccessApp struct {
	App
	KeyHashes []string // hex SHA-256
	Licenses  []int
}

// Highlight is one highlighted verse.
type Highlight struct {
	BibleID   int32  `json:"bible_id"`
	PassageID string `json:"passage_id"`
	Color     string `json:"color"`
}

// HighlightRequest is a creation of highlights on one or more verses.
type HighlightRequest struct {
	UserID    string
	RequestID string
	BibleID   int32
	Verses    []string // passage ids of single verses
	Color     string
}

// Fingerprint identifies what the request asks for (not how its JSON was
// spelt), so that a retry can be told from another request that reuses
// its id.
func (r HighlightRequest) Fingerprint() []byte {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00%s", r.BibleID, strings.Join(r.Verses, ","), r.Color)
	return h.Sum(nil)
}

// Answer is a stored HTTP answer, replayed for a retried request.
type Answer struct {
	Status int
	Body   []byte
}

// ExchangeToken is a data-exchange token as stored (by its hash).
type ExchangeToken struct {
	Hash        []byte
	AppID       string
	UserID      string
	Permissions []string
	CreatedAt   time.Time
	ExpiresAt   time.Time
	ConsumedAt  *time.Time
}

// DB is the storage the service needs. dynamic/postgres implements it.
type DB interface {
	// Apps and keys.
	CreateApp(ctx context.Context, a App) error
	UpsertApp(ctx context.Context, a App) error
	SetAppStatus(ctx context.Context, id, status string) error
	App(ctx context.Context, id string) (*App, error)
	Apps(ctx context.Context) ([]App, error)
	AddKey(ctx context.Context, appID string, hash []byte, hint string) (int64, error)
	RevokeKey(ctx context.Context, id int64, at time.Time) error
	RevokeKeyHash(ctx context.Context, hash []byte, at time.Time) error
	Keys(ctx context.Context, appID string) ([]Key, error)

	// Licence agreements.
	Agree(ctx context.Context, a Agreement) error
	DeveloperAgreements(ctx context.Context, developerID string) ([]Agreement, error)

	// Access snapshot.
	AccessData(ctx context.Context) (*AccessData, error)
	AccessVersion(ctx context.Context) (int64, error)
	BumpAccessVersion(ctx context.Context) (int64, error)
	// ListenAccess blocks, calling fn with each new version notified,
	// until ctx ends or the connection fails.
	ListenAccess(ctx context.Context, ready func(), fn func(version int64)) error

	// Grants.
	Grants(ctx context.Context, userID, appID string) ([]string, error)
	HasGrant(ctx context.Context, userID, appID, permission string) (bool, error)
	// Grant records permissions outside the consent flow (admin, demo).
	Grant(ctx context.Context, userID, appID string, permissions []string, at time.Time) error

	// Highlights.
	Highlights(ctx context.Context, userID string, bibleID int32, verses []string) ([]Highlight, error)
	// CreateHighlights applies req unless its request id was seen before;
	// answer turns the number of verses created or recoloured into the
	// HTTP answer, which is stored with the request id. It returns the
	// first answer given for the request id.
	CreateHighlights(ctx context.Context, req HighlightRequest, answer func(changed int) Answer) (Answer, error)
	DeleteHighlights(ctx context.Context, userID string, bibleID int32, verses []string) error

	// Data exchange.
	CreateExchangeToken(ctx context.Context, t ExchangeToken) error
	ExchangeToken(ctx context.Context, hash []byte) (*ExchangeToken, error)
	// ConsumeExchangeToken marks a valid token used at now and, when grant
	// is set, grants its permissions, in one transaction. A used token
	// gives ErrTokenUsed, an expired one ErrTokenExpired.
	ConsumeExchangeToken(ctx context.Context, hash []byte, now time.Time, grant bool) (*ExchangeToken, error)

	// Purge deletes expired tokens and idempotency records older than
	// before.
	Purge(ctx context.Context, before time.Time) error

	// Trending search queries (trending.go).
	// SearchSalt returns day's salt (UTC), created on first use.
	SearchSalt(ctx context.Context, day time.Time) ([]byte, error)
	// AddSearchQueries adds counts at the hour of at, and app hashes for
	// its day, in one transaction.
	AddSearchQueries(ctx context.Context, at time.Time, qs []SearchCount) error
	// Trending is each language's limit most searched phrases since since
	// with at least minApps distinct apps on one day.
	Trending(ctx context.Context, since time.Time, minApps, limit int) (map[string][]trending.Phrase, error)
	// PurgeSearchQueries deletes counts and hashes before before, and the
	// salts of days before now's.
	PurgeSearchQueries(ctx context.Context, before, now time.Time) error
}
