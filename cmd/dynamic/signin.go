package main

// Admin commands of the platform's sign-in: an app's registered redirect
// URIs, first-party apps, and accounts (make run's demo account).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/accounts"
)

type appsRedirectURIsCmd struct {
	dbFlag
	output `kong:"-"`
	App    string   `help:"App id." required:""`
	Set    []string `help:"Replace the app's sign-in redirect URIs with these (repeat the flag); without it, list them." name:"set" placeholder:"URI"`
	Clear  bool     `help:"Remove every redirect URI (the app can no longer sign users in)."`
}

func (c *appsRedirectURIsCmd) Validate() error {
	if !bible.ValidUUID(c.App) {
		return fmt.Errorf("--app %q is not a UUID", c.App)
	}
	if c.Clear && len(c.Set) > 0 {
		return errors.New("give --set or --clear, not both")
	}
	for _, u := range c.Set {
		if err := dynamic.CheckRedirectURI(u); err != nil {
			return err
		}
	}
	return nil
}

func (c *appsRedirectURIsCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	app := strings.ToLower(c.App)
	if _, err := db.App(ctx, app); err != nil {
		return fmt.Errorf("app %s: %w", app, err)
	}
	if len(c.Set) > 0 || c.Clear {
		if err := db.SetRedirectURIs(ctx, app, c.Set); err != nil {
			return err
		}
	}
	uris, err := db.RedirectURIs(ctx, app)
	if err != nil {
		return err
	}
	for _, u := range uris {
		fmt.Fprintln(c.out(), u)
	}
	return nil
}

type appsFirstPartyCmd struct {
	dbFlag
	App string `help:"App id." required:""`
	Off bool   `help:"Unmark the app."`
}

func (c *appsFirstPartyCmd) Validate() error {
	if !bible.ValidUUID(c.App) {
		return fmt.Errorf("--app %q is not a UUID", c.App)
	}
	return nil
}

func (c *appsFirstPartyCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.SetFirstParty(ctx, strings.ToLower(c.App), !c.Off, time.Now())
}

type usersCreateCmd struct {
	dbFlag
	output   `kong:"-"`
	ID       string `help:"Account id (UUID, the sub of its tokens); default: a new random one."`
	Email    string `help:"Email address (the sign-in name)." required:""`
	Name     string `help:"Display name." required:""`
	Password string `help:"Password (at least 8 characters, not a common one)." required:"" env:"ACCOUNT_PASSWORD"`
	IfAbsent bool   `help:"Succeed without changes when an account with this id and email exists." name:"if-absent"`
}

func (c *usersCreateCmd) Validate() error {
	if c.ID != "" && !bible.ValidUUID(c.ID) {
		return fmt.Errorf("--id %q is not a UUID", c.ID)
	}
	if err := accounts.CheckProfile(c.Name, c.Email); err != nil {
		return err
	}
	return accounts.CheckPassword(c.Password)
}

func (c *usersCreateCmd) Run(ctx context.Context) error {
	a := accounts.Account{ID: strings.ToLower(c.ID), Email: strings.TrimSpace(c.Email), DisplayName: strings.TrimSpace(c.Name),
		PasswordHash: accounts.HashPassword(c.Password), CreatedAt: time.Now()}
	if a.ID == "" {
		a.ID = bible.NewUUID()
	}
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	err = db.CreateAccount(ctx, a)
	if errors.Is(err, dynamic.ErrConflict) && c.IfAbsent {
		got, gerr := db.AccountByEmail(ctx, accounts.EmailKey(a.Email))
		if gerr == nil && got.ID == a.ID {
			fmt.Fprintf(c.out(), "account_id=%s\n", a.ID)
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("create account %s: %w", a.Email, err)
	}
	fmt.Fprintf(c.out(), "account_id=%s\n", a.ID)
	return nil
}
