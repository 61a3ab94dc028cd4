package main

// Admin commands of the developer portal (docs/portal.md): an organization
// made by the operator, such as make run's demo organization.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/portal"
)

type organizationsCmd struct {
	Create organizationsCreateCmd `cmd:"" help:"Create an organization with its first owner."`
}

type organizationsCreateCmd struct {
	dbFlag
	output   `kong:"-"`
	Name     string `help:"Its name." required:""`
	Owner    string `help:"Account id of its first owner." required:""`
	OfApp    string `help:"Take this app's organization id, so that the app and its organization's licence agreements belong to the new organization." name:"of-app" placeholder:"APP_ID"`
	IfAbsent bool   `help:"With --of-app: succeed without changes when the organization exists." name:"if-absent"`
}

func (c *organizationsCreateCmd) Validate() error {
	if err := portal.CheckOrganizationName(c.Name); err != nil {
		return err
	}
	if c.IfAbsent && c.OfApp == "" {
		return errors.New("--if-absent needs --of-app (a new organization gets a new id)")
	}
	for _, id := range []string{c.Owner, c.OfApp} {
		if id != "" && !bible.ValidUUID(id) {
			return fmt.Errorf("%q is not a UUID", id)
		}
	}
	return nil
}

func (c *organizationsCreateCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	o := portal.Organization{ID: bible.NewUUID(), Name: strings.TrimSpace(c.Name), CreatedAt: time.Now()}
	if c.OfApp != "" {
		a, err := db.App(ctx, strings.ToLower(c.OfApp))
		if err != nil {
			return fmt.Errorf("app %s: %w", c.OfApp, err)
		}
		if a.OrganizationID == "" {
			return fmt.Errorf("app %s has no organization", c.OfApp)
		}
		o.ID = a.OrganizationID
	}
	err = db.CreateOrganization(ctx, o, strings.ToLower(c.Owner))
	if errors.Is(err, dynamic.ErrConflict) && c.IfAbsent {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("create organization: %w", err)
	}
	fmt.Fprintf(c.out(), "organization_id=%s\n", o.ID)
	return nil
}
