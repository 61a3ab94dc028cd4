package main

// Admin commands: apps, App Keys, licence agreements, users' dev tokens and
// the demo seed, written to the service's PostgreSQL. The rules they apply
// live in package dynamic; here are flags and printing.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	"github.com/bibleplatform/platform/internal/atomicfile"
)

type adminCmds struct {
	Apps          appsCmd          `cmd:"" help:"Register apps, list them, archive them."`
	Keys          keysCmd          `cmd:"" help:"Issue, list and revoke App Keys."`
	Licenses      licensesCmd      `cmd:"" help:"Record an organization's or a developer's agreement to a licence."`
	Users         usersCmd         `cmd:"" help:"Platform accounts, development user tokens and permission grants."`
	Organizations organizationsCmd `cmd:"" help:"Organizations of the developer portal."`
	Staff         staffCmd         `cmd:"" help:"Accounts marked as the operator's staff, who move apps to live on /developers/staff."`
	Trending      trendingCmd      `cmd:"" help:"The operator's block-list of trending phrases."`
	Seed          seedCmd          `cmd:"" help:"Seed the demo apps, keys and licence agreements of an access snapshot."`
}

// dbFlag is the database every admin command writes to.
type dbFlag struct {
	DatabaseURL string `help:"PostgreSQL URL." required:"" env:"DATABASE_URL"`
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

	RedirectURIs appsRedirectURIsCmd `cmd:"" name:"redirect-uris" help:"List or set the callback URLs an app signs users in with (matched exactly)."`
	FirstParty   appsFirstPartyCmd   `cmd:"" name:"first-party" help:"Mark an app first-party: it may grant permissions with a user's bearer token alone."`
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
	a := dynamic.App{ID: c.ID, Name: c.Name, Description: c.Description, WebsiteURL: c.Website,
		Status: c.Status, OrganizationID: c.Organization, CallbackURL: c.CallbackURL,
		RatePerSecond: c.Rate, RateBurst: c.Burst}
	if c.ID == "" {
		a.ID = bible.NewUUID()
	}
	// Refuse a bad app before connecting.
	if err := a.Validate(); err != nil {
		return err
	}
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if a, err = dynamic.CreateApp(ctx, db, a); err != nil {
		return err
	}
	fmt.Fprintf(c.out(), "app_id=%s\n", a.ID)
	if c.Key {
		key, id, err := dynamic.IssueKey(ctx, db, a.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.out(), "key_id=%d\napp_key=%s\n", id, key)
	}
	return nil
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
	output `kong:"-"`
	App    string `help:"App id." required:""`
}

func (c *appsArchiveCmd) Run(ctx context.Context) error {
	return (&appsStatusCmd{dbFlag: c.dbFlag, output: c.output, App: c.App, Status: access.StatusArchived}).Run(ctx)
}

type appsStatusCmd struct {
	dbFlag
	output `kong:"-"`
	App    string `help:"App id." required:""`
	Status string `help:"development, live or archived." required:"" enum:"development,live,archived"`
}

// Run sets the status and says what it changed: a move out of archived
// (which the portal never makes) is the operator's alone.
func (c *appsStatusCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	id := strings.ToLower(c.App)
	a, err := db.App(ctx, id)
	if err != nil {
		return fmt.Errorf("app %s: %w", c.App, err)
	}
	if a.Status == c.Status {
		fmt.Fprintf(c.out(), "app %s (%s) is %s already; nothing changed.\n", a.ID, a.Name, a.Status)
		return nil
	}
	if err := db.SetAppStatus(ctx, id, c.Status); err != nil {
		return err
	}
	fmt.Fprintf(c.out(), "app %s (%s): %s -> %s; every edge follows within seconds.\n", a.ID, a.Name, a.Status, c.Status)
	return nil
}

type keysCmd struct {
	Issue  keysIssueCmd  `cmd:"" help:"Issue an App Key; it is printed once and stored only as a hash."`
	List   keysListCmd   `cmd:"" help:"List an app's keys (ids and hints, never the keys)."`
	Revoke keysRevokeCmd `cmd:"" help:"Revoke a key by id (--id) or by the key itself (--key); edges refuse it within seconds."`
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
	key, id, err := dynamic.IssueKey(ctx, db, c.App)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out(), "key_id=%d\napp_key=%s\n", id, key)
	return nil
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

// keysRevokeCmd takes exactly one of --id and --key. Neither is marked
// required (kong's help would then show both as required); Validate says
// what is missing.
type keysRevokeCmd struct {
	dbFlag
	ID  int64  `help:"Key id (from keys list); or give --key." xor:"which"`
	Key string `help:"The App Key itself; or give --id." xor:"which"`
}

func (c *keysRevokeCmd) Validate() error {
	if c.ID == 0 && c.Key == "" {
		return errors.New("give the key's --id or the --key itself")
	}
	return nil
}

func (c *keysRevokeCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if c.Key != "" {
		return dynamic.RevokeKeyText(ctx, db, c.Key, time.Now())
	}
	return db.RevokeKey(ctx, c.ID, time.Now())
}

type licensesCmd struct {
	Agree licensesAgreeCmd `cmd:"" help:"Record an agreement to a licence (by an organization, a developer, or a developer for an organization)."`
	Owner licensesOwnerCmd `cmd:"" help:"Name the portal organization that owns a licence: its members see the usage of the licence's Bibles."`
}

type licensesAgreeCmd struct {
	dbFlag
	License      int       `help:"Licence id." required:""`
	Organization string    `help:"Organization (UUID): its apps may then read the licence's Bibles. Give it, --developer, or both."`
	Developer    string    `help:"Developer (UUID) who agreed. Give it, --organization, or both."`
	At           time.Time `help:"When the agreement was made (RFC 3339); default now."`
}

func (c *licensesAgreeCmd) agreement() dynamic.Agreement {
	at := c.At
	if at.IsZero() {
		at = time.Now()
	}
	return dynamic.Agreement{LicenseID: c.License, OrganizationID: strings.ToLower(c.Organization),
		DeveloperID: strings.ToLower(c.Developer), AgreedAt: at}
}

func (c *licensesAgreeCmd) Validate() error { return c.agreement().Validate() }

func (c *licensesAgreeCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Agree(ctx, c.agreement())
}

type usersCmd struct {
	Token  usersTokenCmd  `cmd:"" help:"Mint a development bearer token for a user with a local key."`
	Grant  usersGrantCmd  `cmd:"" help:"Grant a user's permission to an app without the consent flow (development)."`
	Create usersCreateCmd `cmd:"" help:"Create a platform account with a password."`
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

func (c *usersTokenCmd) Validate() error {
	if !bible.ValidUUID(c.User) {
		return fmt.Errorf("user %q is not a UUID", c.User)
	}
	return nil
}

func (c *usersTokenCmd) Run(ctx context.Context) error {
	key, err := jwt.LoadOrCreateKey(c.Key)
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
	return atomicfile.Write(path, append(out, '\n'), ".demo-json-", false)
}

type usersGrantCmd struct {
	dbFlag
	User       string `help:"User id (UUID)." required:""`
	App        string `help:"App id (UUID)." required:""`
	Permission string `help:"Permission to grant." default:"highlights" enum:"highlights"`
}

func (c *usersGrantCmd) Validate() error {
	if !bible.ValidUUID(c.User) || !bible.ValidUUID(c.App) {
		return errors.New("--user and --app must be UUIDs")
	}
	return nil
}

func (c *usersGrantCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Grant(ctx, strings.ToLower(c.User), strings.ToLower(c.App), []string{c.Permission}, time.Now())
}

// seedCmd makes PostgreSQL hold the demo apps of an access snapshot file
// (fixtures/access.json; the keys themselves are in
// fixtures/demo-keys.json). dynamic.Seed holds the rules.
type seedCmd struct {
	dbFlag
	output      `kong:"-"`
	Access      string `help:"Access snapshot with the demo apps." default:"fixtures/access.json" type:"existingfile"`
	Store       string `help:"Published store (directory or s3://): the licences and the Bibles they cover." required:"" env:"DYNAMIC_STORE"`
	CallbackURL string `help:"Consent callback registered for every demo app." default:"http://localhost:3000/callback" name:"callback-url"`
	// ReadsAll is make run's demo reader: served content other than the
	// fixtures (a Bible imported from a DBL bundle, say) must read with
	// the demo key, without editing the snapshot file.
	ReadsAll []string `help:"Apps that also list every Bible the store's licences cover, so that their seed agrees to every licence." name:"reads-all" placeholder:"APP_ID"`
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
	for i := range snap.Apps {
		a := &snap.Apps[i]
		if !slices.Contains(c.ReadsAll, a.ID) {
			continue
		}
		for _, l := range lics {
			for _, b := range l.BibleIDs {
				if !slices.Contains(a.Bibles, b) {
					a.Bibles = append(a.Bibles, b)
				}
			}
		}
	}
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	seeded, err := dynamic.Seed(ctx, db, snap, lics, filepath.Base(c.Access), c.CallbackURL, time.Now())
	for _, r := range seeded {
		fmt.Fprintf(c.out(), "seeded app %s (%s, %s)", r.App.ID, r.App.Name, r.App.Status)
		if len(r.Unreadable) > 0 {
			fmt.Fprintf(c.out(), "; not readable through licences: %v", r.Unreadable)
		}
		fmt.Fprintln(c.out())
	}
	if err != nil {
		return fmt.Errorf("seed from %s into the store %s's licences: %w", c.Access, c.Store, err)
	}
	return nil
}
