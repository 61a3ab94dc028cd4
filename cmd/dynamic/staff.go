package main

// Admin commands of the operator's staff (docs/portal.md): which accounts
// may move apps between development and live on /developers/staff.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic/accounts"
	"github.com/bibleplatform/platform/dynamic/postgres"
)

type staffCmd struct {
	List   staffListCmd   `cmd:"" help:"List the accounts marked as staff."`
	Add    staffMarkCmd   `cmd:"" help:"Mark an account as staff: it may then move any organization's app between development and live on /developers/staff."`
	Remove staffUnmarkCmd `cmd:"" help:"Unmark a staff account: it loses the staff page at once (its apps and organizations stay as they are)."`
}

// staffAccountFlag names an account by id or email address.
type staffAccountFlag struct {
	Account string `help:"The account: its id (UUID) or its email address." required:"" placeholder:"ID|EMAIL"`
}

func (f staffAccountFlag) Validate() error {
	if a := strings.TrimSpace(f.Account); !bible.ValidUUID(a) && accounts.CheckProfile("-", a) != nil {
		return fmt.Errorf("--account %q is neither an account id (UUID) nor an email address", f.Account)
	}
	return nil
}

// find loads the account the flag names.
func (f staffAccountFlag) find(ctx context.Context, db *postgres.DB) (*accounts.Account, error) {
	a := strings.TrimSpace(f.Account)
	var acct *accounts.Account
	var err error
	if bible.ValidUUID(a) {
		acct, err = db.Account(ctx, strings.ToLower(a))
	} else {
		acct, err = db.AccountByEmail(ctx, accounts.EmailKey(a))
	}
	if err != nil {
		return nil, fmt.Errorf("account %s: %w", a, err)
	}
	return acct, nil
}

type staffListCmd struct {
	dbFlag
	output `kong:"-"`
}

func (c *staffListCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	staff, err := db.StaffAccounts(ctx)
	if err != nil {
		return err
	}
	for _, s := range staff {
		fmt.Fprintf(c.out(), "%s\t%s\t%s\tsince %s\n", s.ID, s.Email, s.DisplayName, s.MarkedAt.UTC().Format(time.RFC3339))
	}
	return nil
}

type staffMarkCmd struct {
	dbFlag
	output `kong:"-"`
	staffAccountFlag
}

func (c *staffMarkCmd) Run(ctx context.Context) error { return c.mark(ctx, true) }

// staffUnmarkCmd takes the same flags as staffMarkCmd.
type staffUnmarkCmd struct{ staffMarkCmd }

func (c *staffUnmarkCmd) Run(ctx context.Context) error { return c.mark(ctx, false) }

// mark marks or unmarks the account and says what changed: a change
// of privilege is never silent.
func (c *staffMarkCmd) mark(ctx context.Context, staff bool) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	acct, err := c.find(ctx, db)
	if err != nil {
		return err
	}
	changed, err := db.MarkStaff(ctx, acct.ID, staff, time.Now())
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%s (%s, %s)", acct.DisplayName, acct.Email, acct.ID)
	switch {
	case staff && changed:
		fmt.Fprintf(c.out(), "%s is now staff: it may move any organization's app between development and live on /developers/staff.\n", name)
	case staff:
		fmt.Fprintf(c.out(), "%s was staff already; nothing changed.\n", name)
	case changed:
		fmt.Fprintf(c.out(), "%s is no longer staff: the staff page refuses it from now on; its apps and organizations are unchanged.\n", name)
	default:
		fmt.Fprintf(c.out(), "%s was not staff; nothing changed.\n", name)
	}
	return nil
}
