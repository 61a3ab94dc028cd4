package dynamic

// The rules behind the admin commands (`dynamic apps|keys|licenses|users|
// seed`): what a valid app and agreement are, how an App Key is minted, and
// how the demo apps of an access snapshot are seeded. cmd/dynamic only
// parses flags and prints.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
)

// Validate reports what is wrong with an app before it is stored.
func (a App) Validate() error {
	if !bible.ValidUUID(a.ID) {
		return fmt.Errorf("app id %q is not a UUID", a.ID)
	}
	if a.OrganizationID != "" && !bible.ValidUUID(a.OrganizationID) {
		return fmt.Errorf("organization %q is not a UUID", a.OrganizationID)
	}
	if a.WebsiteURL != "" && !httpURL(a.WebsiteURL) {
		return fmt.Errorf("website %q is not an absolute http(s) URL", a.WebsiteURL)
	}
	if a.CallbackURL != "" && !httpURL(a.CallbackURL) {
		return fmt.Errorf("callback URL %q is not an absolute http(s) URL", a.CallbackURL)
	}
	if a.RatePerSecond < 0 || a.RateBurst < 0 {
		return errors.New("rate and burst cannot be negative")
	}
	return nil
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.Fragment == ""
}

// Validate reports what is wrong with an agreement before it is stored:
// someone must have agreed (an organization, a developer or both), and
// both ids are UUIDs.
func (a Agreement) Validate() error {
	if a.OrganizationID == "" && a.DeveloperID == "" {
		return errors.New("an agreement needs an organization, a developer or both")
	}
	for _, id := range []string{a.OrganizationID, a.DeveloperID} {
		if id != "" && !bible.ValidUUID(id) {
			return fmt.Errorf("%q is not a UUID", id)
		}
	}
	return nil
}

// CreateApp validates a and stores it; an empty id gets a new random UUID.
// It returns the app as stored.
func CreateApp(ctx context.Context, db AppStore, a App) (App, error) {
	if a.ID == "" {
		a.ID = bible.NewUUID()
	}
	a.ID, a.OrganizationID = strings.ToLower(a.ID), strings.ToLower(a.OrganizationID)
	if err := a.Validate(); err != nil {
		return a, err
	}
	return a, db.CreateApp(ctx, a)
}

// IssueKey mints an App Key for app: 24 random bytes, URL-safe base64 after
// the "bpk_" prefix. The database keeps only its SHA-256 (what the edge
// looks keys up by) and its first characters as a hint, so the key is
// returned once, here.
func IssueKey(ctx context.Context, db KeyStore, app string) (key string, id int64, err error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", 0, err
	}
	key = "bpk_" + base64.RawURLEncoding.EncodeToString(b[:])
	h := access.HashKey([]byte(key))
	id, err = db.AddKey(ctx, strings.ToLower(app), h[:], key[:8])
	return key, id, err
}

// RevokeKeyText revokes the key whose text is key (as the app holds it).
func RevokeKeyText(ctx context.Context, db KeyStore, key string, at time.Time) error {
	h := access.HashKey([]byte(key))
	return db.RevokeKeyHash(ctx, h[:], at)
}

// SeedResult is what Seed did for one app.
type SeedResult struct {
	App access.App
	// Unreadable are Bibles the app lists that no licence opens to it
	// (a restricted licence is agreed only when the app lists all its
	// Bibles).
	Unreadable []int32
}

// Seed makes db hold the apps of an access snapshot: the apps, their key
// hashes and, for each app's organization, an agreement to every
// restricted licence whose Bibles the app lists. Apps without an
// organization get one derived from their id; a licence is agreed only
// when the app lists all its Bibles, so the seed never opens more than the
// snapshot does. Running it again changes nothing. source names the
// snapshot in the apps' descriptions; callback is every app's consent
// callback.
func Seed(ctx context.Context, db SeedStore, snap *access.Snapshot, lics []License, source, callback string, now time.Time) ([]SeedResult, error) {
	if len(lics) == 0 {
		return nil, errors.New("no published licences: run publish build first")
	}
	var out []SeedResult
	for _, a := range snap.Apps {
		org := a.OrganizationID
		if org == "" {
			org = derivedUUID("demo-organization:" + a.ID)
		}
		app := App{ID: a.ID, Name: a.Name, Status: a.Status, OrganizationID: org,
			Description: "Demo app seeded from " + source, CallbackURL: callback,
			RatePerSecond: a.RateLimit.PerSecond, RateBurst: a.RateLimit.Burst}
		if err := app.Validate(); err != nil {
			return out, err
		}
		if err := db.UpsertApp(ctx, app); err != nil {
			return out, err
		}
		for _, h := range a.KeyHashes {
			b, err := hex.DecodeString(h)
			if err != nil {
				return out, fmt.Errorf("app %s: key hash %q: %w", a.ID, h, err)
			}
			if _, err := db.AddKey(ctx, a.ID, b, "seed"); err != nil && !errors.Is(err, ErrConflict) {
				return out, err
			}
		}
		readable := map[int32]bool{}
		for _, l := range lics {
			if !l.Open && (len(l.BibleIDs) == 0 || !subset(l.BibleIDs, a.Bibles)) {
				continue
			}
			if !l.Open {
				if err := db.Agree(ctx, Agreement{LicenseID: l.ID, OrganizationID: org, AgreedAt: now}); err != nil {
					return out, err
				}
			}
			for _, b := range l.BibleIDs {
				readable[b] = true
			}
		}
		r := SeedResult{App: a}
		for _, b := range a.Bibles {
			if !readable[b] {
				r.Unreadable = append(r.Unreadable, b)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func subset(a, b []int32) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// derivedUUID is a stable UUID for a name (the version 8 "custom" layout
// over SHA-256), so a reseed reuses the same ids.
func derivedUUID(name string) string {
	sum := sha256.Sum256([]byte(name))
	return bible.FormatUUID([16]byte(sum[:16]), 8)
}
