package postgres_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/portal"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
	"github.com/bibleplatform/platform/wire"
)

func TestUsage(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	owner := newAccount(t, db, "licensee@example.test")
	org := portal.Organization{ID: bible.NewUUID(), Name: "Licensee Org", CreatedAt: time.Now()}
	if err := db.CreateOrganization(ctx, org, owner); err != nil {
		t.Fatal(err)
	}
	a := dynamic.App{ID: bible.NewUUID(), Name: "Reader", Status: "live", OrganizationID: org.ID}
	b := dynamic.App{ID: bible.NewUUID(), Name: "Other", Status: "live"}
	for _, app := range []dynamic.App{a, b} {
		if err := db.CreateApp(ctx, app); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	add := func(edge string, seq int64, counts ...wire.UsageCount) bool {
		t.Helper()
		added, err := db.AddUsage(ctx, edge, seq, at, counts)
		if err != nil {
			t.Fatal(err)
		}
		return added
	}
	c := func(app string, bible int32, day string, n int64) wire.UsageCount {
		return wire.UsageCount{App: app, Bible: bible, Day: day, Requests: n}
	}
	if !add("edge-1", 1, c(a.ID, 9001, "2026-11-26", 3), c(a.ID, 9001, "2026-11-26", 2), c(a.ID, 0, "2026-11-26", 1),
		c(b.ID, 9001, "2026-10-31", 4), c(bible.NewUUID(), 9001, "2026-11-26", 50)) {
		t.Fatal("first batch not added")
	}
	// The same batch again (its answer was lost) adds nothing; another
	// edge's batch with the same number does.
	if add("edge-1", 1, c(a.ID, 9001, "2026-11-26", 3)) {
		t.Error("a batch sent twice was added twice")
	}
	if !add("edge-2", 1, c(a.ID, 9001, "2026-11-26", 10), c(a.ID, 9002, "2026-11-25", 7)) {
		t.Error("another edge's batch 1 was not added")
	}

	days, err := db.AppUsage(ctx, a.ID, at.AddDate(0, 0, -30))
	if err != nil {
		t.Fatal(err)
	}
	d := func(day string, bible int32, n int64) dynamic.UsageDay {
		tm, _ := time.Parse(time.DateOnly, day)
		return dynamic.UsageDay{Day: tm, BibleID: bible, Requests: n}
	}
	wantDays := []dynamic.UsageDay{d("2026-11-25", 9002, 7), d("2026-11-26", 0, 1), d("2026-11-26", 9001, 15)}
	if !slices.EqualFunc(days, wantDays, func(x, y dynamic.UsageDay) bool {
		return x.Day.Equal(y.Day) && x.BibleID == y.BibleID && x.Requests == y.Requests
	}) {
		t.Errorf("AppUsage = %+v\nwant %+v", days, wantDays)
	}

	months, err := db.BibleUsage(ctx, []int32{9001}, at.AddDate(0, -2, 0))
	if err != nil {
		t.Fatal(err)
	}
	nov, oct := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	wantMonths := []dynamic.UsageMonth{
		{Month: nov, BibleID: 9001, AppID: a.ID, AppName: "Reader", Licensee: "Licensee Org", Requests: 15},
		{Month: oct, BibleID: 9001, AppID: b.ID, AppName: "Other", Requests: 4},
	}
	if !slices.EqualFunc(months, wantMonths, func(x, y dynamic.UsageMonth) bool {
		return x.Month.Equal(y.Month) && x.BibleID == y.BibleID && x.AppID == y.AppID && x.AppName == y.AppName &&
			x.Licensee == y.Licensee && x.Requests == y.Requests
	}) {
		t.Errorf("BibleUsage = %+v\nwant %+v", months, wantMonths)
	}

	if err := db.SetLicenseOwner(ctx, 2, org.ID, at); err != nil {
		t.Fatal(err)
	}
	if err := db.SetLicenseOwner(ctx, 3, bible.NewUUID(), at); !errors.Is(err, dynamic.ErrNotFound) {
		t.Errorf("owner that does not exist: %v, want ErrNotFound", err)
	}
	if got, err := db.OwnedLicenses(ctx, org.ID); err != nil || !slices.Equal(got, []int{2}) {
		t.Errorf("OwnedLicenses = %v, %v; want [2]", got, err)
	}
	if err := db.SetLicenseOwner(ctx, 2, "", at); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.OwnedLicenses(ctx, org.ID); len(got) != 0 {
		t.Errorf("OwnedLicenses after removal = %v", got)
	}
}
