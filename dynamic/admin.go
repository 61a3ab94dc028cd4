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
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
)

// Validate reports what is wrong with an app before it is stored. It is
// the one check of an app's fields, whatever path registers or changes
// the app: the name is shown to users on the approval page and the
// callback's origin is written into that page's Content-Security-Policy.
func (a App) Validate() error {
	if !bible.ValidUUID(a.ID) {
		return fmt.Errorf("app id %q is not a UUID", a.ID)
	}
	if err := checkAppName(a.Name); err != nil {
		return err
	}
	if a.OrganizationID != "" && !bible.ValidUUID(a.OrganizationID) {
		return fmt.Errorf("organization %q is not a UUID", a.OrganizationID)
	}
	if a.WebsiteURL != "" {
		if err := checkHTTPURL(a.WebsiteURL); err != nil {
			return fmt.Errorf("website %q: %w", a.WebsiteURL, err)
		}
	}
	if a.CallbackURL != "" {
		if err := checkHTTPURL(a.CallbackURL); err != nil {
			return fmt.Errorf("callback URL %q: %w", a.CallbackURL, err)
		}
	}
	if a.RatePerSecond < 0 || a.RateBurst < 0 {
		return errors.New("rate and burst cannot be negative")
	}
	return nil
}

// MaxAppNameLen is the longest app name, in characters: room for any
// product name, not for a paragraph on the approval page.
const MaxAppNameLen = 100

// checkAppName refuses an empty or overlong name, and one carrying control
// characters or bidirectional controls (an override can make the approval
// page show a name other than the one stored).
func checkAppName(name string) error {
	switch n := utf8.RuneCountInString(name); {
	case !utf8.ValidString(name):
		return errors.New("app name is not valid UTF-8")
	case strings.TrimSpace(name) == "":
		return errors.New("app name is empty")
	case n > MaxAppNameLen:
		return fmt.Errorf("app name is %d characters long; at most %d are allowed", n, MaxAppNameLen)
	}
	for i, r := range name {
		if unicode.IsControl(r) || bidiControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("app name has the control character %U at byte %d", r, i)
		}
	}
	return nil
}

// bidiControl reports the characters that change the direction of the
// text around them (Unicode Bidi_Control).
func bidiControl(r rune) bool {
	return r == '\u061c' || r == '\u200e' || r == '\u200f' ||
		r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// MaxURLLen is the longest website or callback URL accepted.
const MaxURLLen = 2048

// httpURL reports whether s is a URL checkHTTPURL accepts.
func httpURL(s string) bool { return checkHTTPURL(s) == nil }

// checkHTTPURL holds an app's URLs to a strict grammar, so that nothing in
// one can end a header value or a CSP source list it is written into:
//
//	url   = ("http" | "https") "://" host [":" port] [path] ["?" query]
//	host  = DNS name (letters, digits, "-", "." ) | IPv4 | "[" IPv6 "]"
//	path  = "/" *( unreserved | pct-encoded | "/" | "!" | "$" | "&" | "(" | ")" | "+" | "=" | ":" | "@" )
//	query = the same characters, and "?"
//
// No user info, fragment, spaces, quotes, ";", ",", "*" or other
// characters beyond those.
func checkHTTPURL(s string) error {
	if len(s) > MaxURLLen {
		return fmt.Errorf("longer than %d bytes", MaxURLLen)
	}
	rest, ok := cutScheme(s)
	if !ok {
		return errors.New("want an absolute http:// or https:// URL")
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if err := checkAuthority(rest[:end]); err != nil {
		return err
	}
	return checkPathQuery(s, rest[end:])
}

// checkPathQuery holds the path and query of url s, rest, to the grammar
// of checkHTTPURL.
func checkPathQuery(s, rest string) error {
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '#':
			return errors.New("has a fragment (#); the flow adds its own query and needs none")
		case c == '%':
			if i+2 >= len(rest) || !isHex(rest[i+1]) || !isHex(rest[i+2]) {
				return fmt.Errorf("has a %% at byte %d not followed by two hex digits", len(s)-len(rest)+i)
			}
		case c >= utf8.RuneSelf:
			return fmt.Errorf("has a non-ASCII character at byte %d; percent-encode it", len(s)-len(rest)+i)
		case !urlPathChar(c):
			return fmt.Errorf("has the character %q, which is not allowed in a path or query", rune(c))
		}
	}
	return nil
}

// CheckRedirectURI says whether raw may be registered as an app's sign-in
// redirect URI (docs/sign-in.md). It is the callback rule of
// App.Validate (checkHTTPURL), widened only for native apps: their own
// private-use scheme (RFC 8252 §7.1), a reverse domain name such as
// com.example.app, then ":/" and a path and query in the same grammar.
func CheckRedirectURI(raw string) error {
	if _, ok := cutScheme(raw); ok {
		if err := checkHTTPURL(raw); err != nil {
			return fmt.Errorf("redirect URI %q: %w", raw, err)
		}
		return nil
	}
	scheme, rest, ok := strings.Cut(raw, ":")
	switch {
	case len(raw) > MaxURLLen:
		return fmt.Errorf("redirect URI %q: longer than %d bytes", raw, MaxURLLen)
	case !ok || !privateScheme(scheme):
		return fmt.Errorf("redirect URI %q: want an http(s) URL or an app's own scheme (a reverse domain name such as com.example.app)", raw)
	case !strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, "//"):
		return fmt.Errorf("redirect URI %q: want %s:/ and a path", raw, scheme)
	}
	if err := checkPathQuery(raw, rest); err != nil {
		return fmt.Errorf("redirect URI %q: %w", raw, err)
	}
	return nil
}

// privateScheme accepts a URI scheme in the form RFC 8252 §7.1 asks of a
// native app's: a reverse domain name, at least two labels of lowercase
// letters, digits and hyphens, starting with a letter.
func privateScheme(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' || !strings.Contains(s, ".") {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func cutScheme(s string) (string, bool) {
	for _, p := range []string{"https://", "http://"} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return s[len(p):], true
		}
	}
	return "", false
}

// checkAuthority accepts host [":" port], where host is a DNS name, an IPv4
// address or a bracketed IPv6 address.
func checkAuthority(a string) error {
	if strings.Contains(a, "@") {
		return errors.New("has user information (@) before the host")
	}
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return errors.New("has an unclosed [ in the host")
		}
		if ip, err := netip.ParseAddr(a[1:end]); err != nil || !ip.Is6() || ip.Zone() != "" {
			return fmt.Errorf("host %q is not an IPv6 address", a[:end+1])
		}
		switch rest := a[end+1:]; {
		case rest == "":
			return nil
		case rest[0] != ':':
			return fmt.Errorf("has %q after the host", rest)
		default:
			return checkPort(rest[1:])
		}
	}
	host, port, hasPort := a, "", false
	if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, port, hasPort = a[:i], a[i+1:], true
	}
	if host == "" {
		return errors.New("has no host")
	}
	if err := checkHostName(host); err != nil {
		return err
	}
	if hasPort {
		return checkPort(port)
	}
	return nil
}

// checkPort accepts a decimal port from 1 to 65535.
func checkPort(p string) error {
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 || len(p) > 5 || strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return fmt.Errorf("port %q is not a number from 1 to 65535", p)
	}
	return nil
}

// checkHostName accepts a DNS name of letters, digits and hyphens in
// labels of at most 63 characters (which covers IPv4 addresses too).
func checkHostName(h string) error {
	if len(h) > 253 {
		return errors.New("host is longer than 253 characters")
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("host %q is not a DNS name", h)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("host %q has the character %q, not allowed in a DNS name", h, rune(c))
			}
		}
	}
	return nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// urlPathChar is a character the grammar of checkHTTPURL allows in a path
// or query (other than "%", checked with its digits).
func urlPathChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("-._~/?!$&()+=:@", c) >= 0
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
