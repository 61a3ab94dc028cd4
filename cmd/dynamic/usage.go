package main

// The operator's side of usage (docs/portal.md, For licensors): which
// portal organization owns a licence.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bibleplatform/platform/bible"
)

type licensesOwnerCmd struct {
	dbFlag
	output       `kong:"-"`
	License      int    `help:"Licence id." required:""`
	Organization string `help:"The owning organization (UUID, as the portal shows it)."`
	None         bool   `help:"Remove the licence's owner: no organization sees its Bibles' usage any more."`
}

func (c *licensesOwnerCmd) Validate() error {
	switch {
	case c.License < 1:
		return fmt.Errorf("licence id %d is not a licence id", c.License)
	case c.None == (c.Organization != ""):
		return errors.New("give --organization, or --none to remove the owner")
	case c.Organization != "" && !bible.ValidUUID(c.Organization):
		return fmt.Errorf("organization %q is not a UUID", c.Organization)
	}
	return nil
}

func (c *licensesOwnerCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	org := strings.ToLower(c.Organization)
	if err := db.SetLicenseOwner(ctx, c.License, org, time.Now()); err != nil {
		return fmt.Errorf("licence %d: %w", c.License, err)
	}
	if org == "" {
		fmt.Fprintf(c.out(), "licence %d has no owner\n", c.License)
	} else {
		fmt.Fprintf(c.out(), "licence %d is owned by organization %s\n", c.License, org)
	}
	return nil
}
