// Package access is the access snapshot: what the owner of apps, keys and
// licences (the dynamic service; a file in development and tests) hands the
// edge that enforces them. It lists every app, the hashes of its App Keys,
// its status, its organization, the Bibles it may read and its rate limit.
// The rest of what the two services share on the wire is package wire.
//
// The edge holds a Snapshot in memory and never asks a database on its
// request path. Keys are never stored or shipped in clear: a snapshot carries
// the SHA-256 of each key.
package access

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// App statuses, as the spec's App summary spells them.
const (
	StatusDevelopment = "development"
	StatusLive        = "live"
	StatusArchived    = "archived"
)

// Snapshot is the whole access data at one moment.
type Snapshot struct {
	// Version increases with every change; an edge that already holds a
	// version does not reload it.
	Version   int64     `json:"version"`
	Generated time.Time `json:"generated"`
	Apps      []App     `json:"apps"`
	// OpenBibles are readable by every app with a valid key (public-domain
	// texts whose licence needs no agreement).
	OpenBibles []int32 `json:"open_bibles,omitempty"`
	// Build is the content build whose licences the snapshot was made
	// from: an edge that serves another build for long is following
	// another store than its dynamic service (a misconfiguration).
	Build string `json:"build,omitempty"`
}

// App is one registered app.
type App struct {
	ID             string `json:"id"` // uuid
	Name           string `json:"name"`
	Status         string `json:"status"`
	OrganizationID string `json:"organization_id,omitempty"`
	// KeyHashes are the hex SHA-256 of the app's active App Keys.
	KeyHashes []string `json:"key_hashes"`
	// Bibles are the Bible ids the app's organization is licensed for.
	Bibles []int32 `json:"bibles"`
	// RateLimit is requests per second with a burst; zero means the
	// edge's default.
	RateLimit Rate `json:"rate_limit"`
}

// Rate is an allowance of Burst requests at once, refilled at PerSecond.
type Rate struct {
	PerSecond float64 `json:"per_second,omitempty"`
	Burst     int     `json:"burst,omitempty"`
}

// HashKey is the digest under which a key is stored and looked up. It does
// not allocate.
func HashKey(key []byte) [sha256.Size]byte { return sha256.Sum256(key) }

// HashKeyHex is HashKey in the hex form snapshots carry.
func HashKeyHex(key string) string {
	h := HashKey([]byte(key))
	return hex.EncodeToString(h[:])
}

// ParseHash decodes a hex key hash from a snapshot.
func ParseHash(s string) ([sha256.Size]byte, error) {
	var h [sha256.Size]byte
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("access: bad key hash %q", s)
	}
	copy(h[:], b)
	return h, nil
}

// Validate checks what the edge relies on: unique app ids, well-formed
// and unique key hashes, known statuses.
func (s *Snapshot) Validate() error {
	apps := make(map[string]bool, len(s.Apps))
	keys := make(map[string]string)
	for _, a := range s.Apps {
		if a.ID == "" {
			return fmt.Errorf("access: an app has no id")
		}
		if apps[a.ID] {
			return fmt.Errorf("access: app %s listed twice", a.ID)
		}
		apps[a.ID] = true
		switch a.Status {
		case StatusDevelopment, StatusLive, StatusArchived:
		default:
			return fmt.Errorf("access: app %s has unknown status %q", a.ID, a.Status)
		}
		for _, k := range a.KeyHashes {
			if _, err := ParseHash(k); err != nil {
				return fmt.Errorf("app %s: %w", a.ID, err)
			}
			if other, dup := keys[k]; dup {
				return fmt.Errorf("access: key hash %s belongs to apps %s and %s", k, other, a.ID)
			}
			keys[k] = a.ID
		}
	}
	return nil
}

// ReadFile loads and validates a snapshot written as JSON.
func ReadFile(path string) (*Snapshot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// Decode parses and validates a JSON snapshot.
func Decode(b []byte) (*Snapshot, error) {
	var s Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("access: decode snapshot: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}
