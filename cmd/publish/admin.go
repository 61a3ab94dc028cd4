package main

// Admin commands: apps, App Keys, licence agreements, users' dev tokens and
// the demo seed, written to the dynamic service's PostgreSQL. The root CLI
// embeds adminCmds.

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/cmd/internal/storeurl"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/jwt"
	"github.com/bibleplatform/platform/dynamic/postgres"
)

type adminCmds struct {
	Apps     appsCmd     `cmd:"" help:"Register apps, list them, archive them."`
	Keys     keysCmd     `cmd:"" help:"Issue, list and revoke App Keys."`
	Licenses licensesCmd `cmd:"" help:"Record an organization's or a developer's agreement to a licence."`
	Users    usersCmd    `cmd:"" help:"Development user tokens and permission grants."`
	Seed     seedCmd     `cmd:"" help:"seed demo apps"`
}

// dbFlag is the database every admin command writes to.
type dbFlag struct {
	DatabaseURL string `help:"PostgreSQL URL of the dynamic service." required:"" env:"DATABASE_URL"`
}

// open connects and migrates, so that admin commands work on a fresh
// database before the service ever started.
func (f dbFlag) open(ctx context.Context) (*postgres.DB, error) {
	db, err := postgres.Open(ctx, f.DatabaseURL)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// output is where a command prints; tests capture it.
type output struct{ w io.Writer }

func (o output) out() io.Writer {
	if o.w == nil {
		return os.Stdout
	}
	return o.w
}

type appsCmd struct {
	Create  appsCreateCmd  `cmd:"" help:"Register an app (optionally issuing its first key)."`
	List    appsListCmd    `cmd:"" help:"List apps."`
	Archive appsArchiveCmd `cmd:"" help:"Archive an app: its keys still authenticate, requests get 412."`
	Status  appsStatusCmd  `cmd:"" help:"Set an app's status."`
}

type appsCreateCmd struct {
	dbFlag
	output       `kong:"-"`
	ID           string  `help:"App id (UUID); default: a new random one."`
	Name         string  `help:"App name." required:""`
	Description  string  `help:"What the app does."`
	Website      string  `help:"The app's website (http or https URL)."`
	Status       string  `help:"development, live or archived." default:"development" enum:"development,live,archived"`
	Organization string  `help:"Organization (UUID) whose licence agreements the app uses."`
	CallbackURL  string  `help:"Where the consent flow sends the user back (absolute http(s) URL)." name:"callback-url"`
	Rate         float64 `help:"Requests per second (0: the edge's default)."`
	Burst        int     `help:"Burst (0: the edge's default)."`
	Key          bool    `help:"Also issue an App Key and print it."`
}

func (c *appsCreateCmd) Run(ctx context.Context) error {
	a := dynamic.App{ID: strings.ToLower(c.ID), Name: c.Name, Description: c.Description, WebsiteURL: c.Website,
		Status: c.Status, OrganizationID: strings.ToLower(c.Organization), CallbackURL: c.CallbackURL,
		RatePerSecond: c.Rate, RateBurst: c.Burst}
	if a.ID == "" {
		a.ID = newUUID()
	}
	if err := checkApp(a); err != nil {
		return err
	}
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.CreateApp(ctx, a); err != nil {
		return err
	}
	fmt.Fprintf(c.out(), "app_id=%s\n", a.ID)
	if c.Key {
		key, id, err := issueKey(ctx, db, a.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.out(), "key_id=%d\napp_key=%s\n", id, key)
	}
	return nil
}

func checkApp(a dynamic.App) error {
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

type appsListCmd struct {
	dbFlag
	output `kong:"-"`
}

func (c *appsListCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	apps, err := db.Apps(ctx)
	if err != nil {
		return err
	}
	for _, a := range apps {
		fmt.Fprintf(c.out(), "%s\t%s\t%s\torg=%s\tcallback=%s\n", a.ID, a.Status, a.Name, a.OrganizationID, a.CallbackURL)
	}
	return nil
}

type appsArchiveCmd struct {
	dbFlag
	App string `help:"App id." required:""`
}

func (c *appsArchiveCmd) Run(ctx context.Context) error {
	return (&appsStatusCmd{dbFlag: c.dbFlag, App: c.App, Status: access.StatusArchived}).Run(ctx)
}

type appsStatusCmd struct {
	dbFlag
	App    string `help:"App id." required:""`
	Status string `help:"development, live or archived." required:"" enum:"development,live,archived"`
}

func (c *appsStatusCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.SetAppStatus(ctx, strings.ToLower(c.App), c.Status)
}

type keysCmd struct {
	Issue  keysIssueCmd  `cmd:"" help:"Issue an App Key; it is printed once and stored only as a hash."`
	List   keysListCmd   `cmd:"" help:"List an app's keys (ids and hints, never the keys)."`
	Revoke keysRevokeCmd `cmd:"" help:"Revoke a key by id or by the key itself; edges refuse it within seconds."`
}

type keysIssueCmd struct {
	dbFlag
	output `kong:"-"`
	App    string `help:"App id." required:""`
}

func (c *keysIssueCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	key, id, err := issueKey(ctx, db, strings.ToLower(c.App))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out(), "key_id=%d\napp_key=%s\n", id, key)
	return nil
}

// issueKey makes a key of 32 random bytes; the database keeps its SHA-256
// (what the edge looks keys up by) and its first characters as a hint.
func issueKey(ctx context.Context, db *postgres.DB, app string) (string, int64, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", 0, err
	}
	key := "bpk_" + base64.RawURLEncoding.EncodeToString(b[:])
	h := access.HashKey([]byte(key))
	id, err := db.AddKey(ctx, app, h[:], key[:8])
	return key, id, err
}

type keysListCmd struct {
	dbFlag
	output `kong:"-"`
	App    string `help:"App id." required:""`
}

func (c *keysListCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	keys, err := db.Keys(ctx, strings.ToLower(c.App))
	if err != nil {
		return err
	}
	for _, k := range keys {
		state := "active"
		if k.RevokedAt != nil {
			state = "revoked " + k.RevokedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(c.out(), "%d\t%s…\t%s\t%s\n", k.ID, k.Hint, k.CreatedAt.UTC().Format(time.RFC3339), state)
	}
	return nil
}

type keysRevokeCmd struct {
	dbFlag
	ID  int64  `help:"Key id (from keys list)." xor:"which" required:""`
	Key string `help:"The App Key itself." xor:"which" required:""`
}

func (c *keysRevokeCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if c.Key != "" {
		h := access.HashKey([]byte(c.Key))
		return db.RevokeKeyHash(ctx, h[:], time.Now())
	}
	return db.RevokeKey(ctx, c.ID, time.Now())
}

type licensesCmd struct {
	Agree licensesAgreeCmd `cmd:"" help:"Record an agreement to a licence (by an organization, a developer, or a developer for an organization)."`
}

type licensesAgreeCmd struct {
	dbFlag
	License      int       `help:"Licence id." required:""`
	Organization string    `help:"Organization (UUID): its apps may then read the licence's Bibles."`
	Developer    string    `help:"Developer (UUID) who agreed."`
	At           time.Time `help:"When the agreement was made (RFC 3339); default now."`
}

func (c *licensesAgreeCmd) Run(ctx context.Context) error {
	if c.Organization == "" && c.Developer == "" {
		return errors.New("give --organization, --developer or both")
	}
	for _, id := range []string{c.Organization, c.Developer} {
		if id != "" && !bible.ValidUUID(id) {
			return fmt.Errorf("%q is not a UUID", id)
		}
	}
	at := c.At
	if at.IsZero() {
		at = time.Now()
	}
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Agree(ctx, dynamic.Agreement{LicenseID: c.License, OrganizationID: strings.ToLower(c.Organization),
		DeveloperID: strings.ToLower(c.Developer), AgreedAt: at})
}

type usersCmd struct {
	Token usersTokenCmd `cmd:"" help:"Mint a development bearer token for a user with a local key."`
	Grant usersGrantCmd `cmd:"" help:"Grant a user's permission to an app without the consent flow (development)."`
}

type usersTokenCmd struct {
	output   `kong:"-"`
	User     string        `help:"User id (UUID)." required:""`
	Key      string        `help:"PEM private key (Ed25519 or RSA) to sign with; an Ed25519 key is created if the file is missing, with its public key beside it (.pub.pem)." default:".run/jwt-ed25519.pem"`
	Issuer   string        `help:"iss claim (dynamic's --jwt-issuer)." default:"bible-platform-dev" env:"JWT_ISSUER"`
	Audience string        `help:"aud claim (dynamic's --jwt-audience)." default:"bible-platform" env:"JWT_AUDIENCE"`
	TTL      time.Duration `help:"Lifetime." default:"24h"`
	DemoJSON string        `help:"Also store the token as user_token (and user_id) in this JSON file, e.g. .run/demo.json." name:"demo-json"`
}

func (c *usersTokenCmd) Run(ctx context.Context) error {
	if !bible.ValidUUID(c.User) {
		return fmt.Errorf("user %q is not a UUID", c.User)
	}
	key, err := loadOrCreateKey(c.Key)
	if err != nil {
		return err
	}
	now := time.Now()
	tok, err := jwt.Sign(key, jwt.KeyID(key.Public()), jwt.Claims{Subject: strings.ToLower(c.User), Issuer: c.Issuer,
		Audience: []string{c.Audience}, IssuedAt: now, ExpiresAt: now.Add(c.TTL)})
	if err != nil {
		return err
	}
	if c.DemoJSON != "" {
		if err := mergeJSON(c.DemoJSON, map[string]any{"user_token": tok, "user_id": strings.ToLower(c.User)}); err != nil {
			return err
		}
	}
	fmt.Fprintln(c.out(), tok)
	return nil
}

func loadOrCreateKey(path string) (crypto.Signer, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		return jwt.ParsePrivatePEM(b)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	pemPriv, err := jwt.EncodePrivatePEM(priv)
	if err != nil {
		return nil, err
	}
	pemPub, err := jwt.EncodePublicPEM(priv.Public())
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

// mergeJSON sets keys in a JSON object file, creating it if needed, and
// replaces the file atomically.
func mergeJSON(path string, set map[string]any) error {
	m := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	for k, v := range set {
		m[k] = v
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

type usersGrantCmd struct {
	dbFlag
	User       string `help:"User id (UUID)." required:""`
	App        string `help:"App id." required:""`
	Permission string `help:"Permission to grant." default:"highlights" enum:"highlights"`
}

func (c *usersGrantCmd) Run(ctx context.Context) error {
	if !bible.ValidUUID(c.User) || !bible.ValidUUID(c.App) {
		return errors.New("--user and --app must be UUIDs")
	}
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Grant(ctx, strings.ToLower(c.User), strings.ToLower(c.App), []string{c.Permission}, time.Now())
}

// seedCmd makes PostgreSQL hold the demo apps of an access snapshot file
// (fixtures/access.json): the apps, their key hashes (the keys themselves
// are in fixtures/demo-keys.json), and, for each app's organization, an
// agreement to every restricted licence whose Bibles the app lists. Apps in
// the file have no organization, so each gets one derived from its id; a
// licence is agreed only when the app lists all its Bibles, so the seed
// never opens more than the file does. Running it again changes nothing.
type seedCmd struct {
	dbFlag
	output      `kong:"-"`
	Access      string `help:"Access snapshot with the demo apps." default:"fixtures/access.json" type:"existingfile"`
	Store       string `help:"Published store (directory or s3://): the licences and the Bibles they cover." required:"" env:"PUBLISH_STORE"`
	CallbackURL string `help:"Consent callback registered for every demo app." default:"http://localhost:3000/callback" name:"callback-url"`
}

func (c *seedCmd) Run(ctx context.Context) error {
	snap, err := access.ReadFile(c.Access)
	if err != nil {
		return err
	}
	store, err := storeurl.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	lics, err := dynamic.NewContent(store).Licenses(ctx)
	if err != nil {
		return err
	}
	if len(lics) == 0 {
		return fmt.Errorf("the store %s has no published licences: run publish build first", c.Store)
	}
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	now := time.Now()
	for _, a := range snap.Apps {
		org := a.OrganizationID
		if org == "" {
			org = derivedUUID("demo-organization:" + a.ID)
		}
		app := dynamic.App{ID: a.ID, Name: a.Name, Status: a.Status, OrganizationID: org,
			Description: "Demo app seeded from " + filepath.Base(c.Access), CallbackURL: c.CallbackURL,
			RatePerSecond: a.RateLimit.PerSecond, RateBurst: a.RateLimit.Burst}
		if err := checkApp(app); err != nil {
			return err
		}
		if err := db.UpsertApp(ctx, app); err != nil {
			return err
		}
		for _, h := range a.KeyHashes {
			b, err := hex.DecodeString(h)
			if err != nil {
				return fmt.Errorf("app %s: key hash %q: %w", a.ID, h, err)
			}
			if _, err := db.AddKey(ctx, a.ID, b, "seed"); err != nil && !errors.Is(err, dynamic.ErrConflict) {
				return err
			}
		}
		readable := map[int32]bool{}
		for _, l := range lics {
			if l.Open {
				for _, b := range l.BibleIDs {
					readable[b] = true
				}
				continue
			}
			if len(l.BibleIDs) == 0 || !subset(l.BibleIDs, a.Bibles) {
				continue
			}
			if err := db.Agree(ctx, dynamic.Agreement{LicenseID: l.ID, OrganizationID: org, AgreedAt: now}); err != nil {
				return err
			}
			for _, b := range l.BibleIDs {
				readable[b] = true
			}
		}
		var missing []int32
		for _, b := range a.Bibles {
			if !readable[b] {
				missing = append(missing, b)
			}
		}
		fmt.Fprintf(c.out(), "seeded app %s (%s, %s)", a.ID, a.Name, a.Status)
		if len(missing) > 0 {
			fmt.Fprintf(c.out(), "; not readable through licences: %v", missing)
		}
		fmt.Fprintln(c.out())
	}
	return nil
}

func subset(a, b []int32) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	return formatUUID(b, 4)
}

// derivedUUID is a stable UUID for a name (the version 8 "custom" layout
// over SHA-256), so a reseed reuses the same ids.
func derivedUUID(name string) string {
	sum := sha256.Sum256([]byte(name))
	var b [16]byte
	copy(b[:], sum[:16])
	return formatUUID(b, 8)
}

func formatUUID(b [16]byte, version byte) string {
	b[6] = b[6]&0x0f | version<<4
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
