package postgres_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/accounts"
	"github.com/bibleplatform/platform/dynamic/portal"
	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

func newAccount(t *testing.T, db *postgres.DB, email string) string {
	t.Helper()
	a := accounts.Account{ID: bible.NewUUID(), Email: email, DisplayName: email, CreatedAt: time.Now()}
	if err := db.CreateAccount(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// Two owners removing each other at once: the member rows are locked, so
// one removal sees the other and the organization keeps an owner.
func TestRemoveMemberKeepsAnOwner(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	for range 10 {
		a, b := newAccount(t, db, bible.NewUUID()+"@a.test"), newAccount(t, db, bible.NewUUID()+"@b.test")
		org := portal.Organization{ID: bible.NewUUID(), Name: "Org", CreatedAt: time.Now()}
		if err := db.CreateOrganization(ctx, org, a); err != nil {
			t.Fatal(err)
		}
		_, hash := accounts.NewSessionID()
		if err := db.CreateInvitation(ctx, portal.Invitation{Hash: hash, OrganizationID: org.ID, EmailKey: "b@b.test",
			Role: portal.Owner, InvitedBy: a, CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if err := db.AcceptInvitation(ctx, hash, b, time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := db.AcceptInvitation(ctx, hash, b, time.Now()); !errors.Is(err, dynamic.ErrNotFound) {
			t.Errorf("second acceptance: %v, want ErrNotFound", err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, who := range []string{a, b} {
			wg.Go(func() { errs[i] = db.RemoveMember(ctx, org.ID, who) })
		}
		wg.Wait()
		ms, err := db.Members(ctx, org.ID)
		if err != nil {
			t.Fatal(err)
		}
		refused := 0
		for _, err := range errs {
			if errors.Is(err, portal.ErrLastOwner) {
				refused++
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if len(ms) != 1 || ms[0].Role != portal.Owner || refused != 1 {
			t.Fatalf("after two concurrent removals: members %+v, errors %v", ms, errs)
		}
	}
}

// An expired invitation cannot be accepted.
func TestAcceptExpiredInvitation(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	a, b := newAccount(t, db, "a@a.test"), newAccount(t, db, "b@b.test")
	org := portal.Organization{ID: bible.NewUUID(), Name: "Org", CreatedAt: time.Now()}
	if err := db.CreateOrganization(ctx, org, a); err != nil {
		t.Fatal(err)
	}
	_, hash := accounts.NewSessionID()
	now := time.Now()
	if err := db.CreateInvitation(ctx, portal.Invitation{Hash: hash, OrganizationID: org.ID, EmailKey: "b@b.test",
		Role: portal.Developer, InvitedBy: a, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := db.AcceptInvitation(ctx, hash, b, now.Add(2*time.Hour)); !errors.Is(err, dynamic.ErrNotFound) {
		t.Errorf("expired: %v, want ErrNotFound", err)
	}
	if _, err := db.Membership(ctx, org.ID, b); !errors.Is(err, dynamic.ErrNotFound) {
		t.Errorf("membership after an expired invitation: %v", err)
	}
}
