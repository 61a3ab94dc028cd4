// Command dynamic is the service that owns apps, keys, licence agreements,
// highlights and the consent flow, on PostgreSQL, and the admin commands
// that write that data (apps, keys, licenses, users, seed): flags and
// environment, signals, and wiring of the dynamic package.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/alecthomas/kong"

	"github.com/bibleplatform/platform/cmd/internal/command"
	"github.com/bibleplatform/platform/cmd/internal/storeurl"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/jwt"
	"github.com/bibleplatform/platform/trending"
)

type cli struct {
	command.Logging `embed:"" envprefix:"DYNAMIC_"`

	Serve   serveCmd   `cmd:"" default:"withargs" help:"Serve the dynamic API (the default); migrates first."`
	Migrate migrateCmd `cmd:"" help:"Apply the database migrations and exit."`

	adminCmds `embed:""`
}

type migrateCmd struct {
	dbFlag
}

type serveCmd struct {
	Listen string `help:"Address to listen on (behind the edge: keep it private)." default:"127.0.0.1:8081" env:"DYNAMIC_LISTEN"`
	dbFlag
	Store     string `help:"Published store (a directory, or s3://bucket[/prefix]): Bible indexes and licences." required:"" env:"DYNAMIC_STORE"`
	EdgeToken string `help:"Shared secret the edge sends as X-Edge-Token." required:"" env:"EDGE_TOKEN"`

	JWTKeys     string `help:"PEM file of public keys (or certificates, or a private key) that sign user tokens." type:"existingfile" env:"JWT_KEYS"`
	JWKSURL     string `help:"JWK Set URL of the user token issuer (instead of --jwt-keys)." name:"jwks-url" env:"JWKS_URL"`
	JWTIssuer   string `help:"Required iss of user tokens." default:"bible-platform-dev" env:"JWT_ISSUER"`
	JWTAudience string `help:"Required aud of user tokens." default:"bible-platform" env:"JWT_AUDIENCE"`
	CSRFKey     string `help:"Secret for the approval form's anti-forgery value; instances behind one edge share it (default: random)." env:"CSRF_KEY"`
	Issuer      string `help:"Public origin of the platform's sign-in (the iss of the tokens it issues), e.g. https://api.example.com; default: the origin the edge reports it was reached at (development)." env:"ISSUER"`

	TrendingWindow  time.Duration `help:"How far back trending search queries look." default:"${trending_window}" env:"TRENDING_WINDOW"`
	TrendingMinApps int           `help:"Distinct apps that must search a phrase on one day before it trends (at most ${trending_max_apps})." default:"${trending_min_apps}" env:"TRENDING_MIN_APPS"`
	AccessLog       bool          `help:"Log every request (one line each, as the edge does)." default:"true" negatable:"" env:"DYNAMIC_ACCESS_LOG"`
}

func main() {
	var c cli
	command.Main("dynamic", "Apps, keys, licence agreements, highlights and the consent flow, on PostgreSQL.", &c, vars)
}

// vars are the defaults dynamic.New applies, so that they are written once.
var vars = kong.Vars{
	"trending_window":   dynamic.DefaultTrendingWindow.String(),
	"trending_min_apps": strconv.Itoa(dynamic.DefaultTrendingMinApps),
	"trending_max_apps": strconv.Itoa(trending.MaxApps),
}

func (c *migrateCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	db.Close()
	return nil
}

func (c *serveCmd) Run(ctx context.Context, log *slog.Logger, logging *command.Logging) error {
	var keys jwt.KeySet
	switch {
	case c.JWTKeys != "" && c.JWKSURL != "":
		return errors.New("give --jwt-keys or --jwks-url, not both")
	case c.JWTKeys != "":
		b, err := os.ReadFile(c.JWTKeys)
		if err != nil {
			return err
		}
		if keys, err = jwt.ParsePEM(b); err != nil {
			return fmt.Errorf("--jwt-keys: %w", err)
		}
	case c.JWKSURL != "":
		keys = jwt.NewJWKS(c.JWKSURL)
	default:
		log.Info("no --jwt-keys or --jwks-url: user bearer tokens are the platform's own only")
	}
	store, err := storeurl.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	cfg := dynamic.Config{DB: db, Store: store, EdgeToken: c.EdgeToken, Log: log,
		TrendingWindow: c.TrendingWindow, TrendingMinApps: c.TrendingMinApps,
		Accounts: db, OAuth: db, Issuer: c.Issuer, Colors: db, Passkeys: db, Portal: db, Staff: db}
	if keys != nil {
		cfg.Users = &jwt.Verifier{Keys: keys, Issuer: c.JWTIssuer, Audience: c.JWTAudience}
	}
	if c.CSRFKey != "" {
		cfg.CSRFKey = []byte(c.CSRFKey)
	}
	if c.AccessLog {
		accessLog, closeLog := command.NewAccessLog(logging)
		defer closeLog()
		cfg.AccessLog = accessLog
	}
	srv := dynamic.New(cfg)
	if err := srv.Open(ctx, c.Listen); err != nil {
		return err
	}
	log.Info("dynamic: serving", "addr", srv.Addr())
	<-ctx.Done()
	log.Info("dynamic: shutting down")
	return srv.Close()
}
