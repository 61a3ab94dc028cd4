// Package dynamic is the service that owns everything mutable: apps and
// their App Keys, licence agreements, users' permission grants, highlights
// and the data-exchange (consent) flow. It sits behind the edge, which
// authenticates App Keys and forwards the routes that need user data with
// the verified app id, and it serves the edge the access snapshot it
// enforces.
//
// The domain types live here and the storage interfaces, by role, in
// store.go; dynamic/postgres implements them; cmd/dynamic wires them.
package dynamic

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"time"
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

// HighlightOutcome is what applying a HighlightRequest did. It is stored
// with the request id, so that a retry learns what the first attempt did;
// the handler turns it into the HTTP answer.
type HighlightOutcome struct {
	// Changed: at least one verse was created or recoloured. False when
	// the user already had every verse in that colour.
	Changed bool
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
