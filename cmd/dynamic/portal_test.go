package main

import (
	"context"
	"regexp"
	"testing"

	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

func TestOrganizationsCreate(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	const org = "e5aaf952-2601-4eb8-af08-bc2e48aa31fc"
	out, err := run(t, "apps", "create", "--database-url", url, "--name", "Reader", "--organization", org)
	if err != nil {
		t.Fatal(err)
	}
	app := regexp.MustCompile(`app_id=(\S+)`).FindStringSubmatch(out)[1]
	out, err = run(t, "users", "create", "--database-url", url, "--email", "owner@example.test", "--name", "Owner",
		"--password", "a long enough phrase")
	if err != nil {
		t.Fatal(err)
	}
	owner := regexp.MustCompile(`account_id=(\S+)`).FindStringSubmatch(out)[1]
	for _, args := range [][]string{
		{"--name", "", "--owner", owner},
		{"--name", "Demo", "--owner", "not-a-uuid"},
		{"--name", "Demo", "--owner", owner, "--if-absent"},
	} {
		if _, err := run(t, append([]string{"organizations", "create", "--database-url", url}, args...)...); err == nil {
			t.Errorf("organizations create %q: no error", args)
		}
	}
	for range 2 {
		out, err = run(t, "organizations", "create", "--database-url", url, "--name", "Demo", "--owner", owner,
			"--of-app", app, "--if-absent")
		if err != nil || out != "organization_id="+org+"\n" {
			t.Fatalf("create: %q %v", out, err)
		}
	}
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	apps, err := db.OrganizationApps(ctx, org)
	if m, merr := db.Membership(ctx, org, owner); err != nil || merr != nil || len(apps) != 1 || m.Role != "owner" {
		t.Errorf("organization apps %+v %v, membership %+v %v", apps, err, m, merr)
	}
}
