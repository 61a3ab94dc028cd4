package main

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

func TestLicensesOwner(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	out, err := run(t, "users", "create", "--database-url", url, "--email", "licensor@example.test", "--name", "Licensor",
		"--password", "a long enough phrase")
	if err != nil {
		t.Fatal(err)
	}
	owner := regexp.MustCompile(`account_id=(\S+)`).FindStringSubmatch(out)[1]
	out, err = run(t, "organizations", "create", "--database-url", url, "--name", "Society", "--owner", owner)
	if err != nil {
		t.Fatal(err)
	}
	org := regexp.MustCompile(`organization_id=(\S+)`).FindStringSubmatch(out)[1]
	for _, args := range [][]string{
		{"--license", "2"},
		{"--license", "2", "--organization", org, "--none"},
		{"--license", "0", "--organization", org},
		{"--license", "2", "--organization", "not-a-uuid"},
		{"--license", "2", "--organization", "9f0c8a55-3a55-4d8e-9d61-6f1f3b0c2a11"}, // no such organization
	} {
		if _, err := run(t, append([]string{"licenses", "owner", "--database-url", url}, args...)...); err == nil {
			t.Errorf("licenses owner %q: no error", args)
		}
	}
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, _ := db.OwnedLicenses(ctx, org); len(got) != 0 {
		t.Fatalf("refused commands set owners: %v", got)
	}
	if _, err := run(t, "licenses", "owner", "--database-url", url, "--license", "2", "--organization", org); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.OwnedLicenses(ctx, org); !slices.Equal(got, []int{2}) {
		t.Errorf("owned licences %v, want [2]", got)
	}
	if _, err := run(t, "licenses", "owner", "--database-url", url, "--license", "2", "--none"); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.OwnedLicenses(ctx, org); len(got) != 0 {
		t.Errorf("owned licences after --none: %v", got)
	}
}
