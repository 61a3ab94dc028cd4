package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

// TestStaffCommands marks an account as staff by email, lists it, and
// unmarks it by id; each change says what it did, a repeat says nothing
// changed, and an account that does not exist is an error.
func TestStaffCommands(t *testing.T) {
	url := pgtest.URL(t)
	out, err := run(t, "users", "create", "--database-url", url, "--email", "Ops@example.test", "--name", "Ops",
		"--password", "a long enough phrase")
	if err != nil {
		t.Fatal(err)
	}
	id := regexp.MustCompile(`account_id=(\S+)`).FindStringSubmatch(out)[1]
	for _, tt := range []struct {
		args []string
		want string // in the output; "" for an error
	}{
		{[]string{"staff", "list"}, "\n"},
		{[]string{"staff", "add", "--account", "ops@EXAMPLE.test"}, "is now staff: it may move any organization's app"},
		{[]string{"staff", "add", "--account", id}, "was staff already; nothing changed"},
		{[]string{"staff", "list"}, id + "\tOps@example.test\tOps\tsince "},
		{[]string{"staff", "remove", "--account", strings.ToUpper(id)}, "is no longer staff"},
		{[]string{"staff", "remove", "--account", id}, "was not staff; nothing changed"},
		{[]string{"staff", "add", "--account", "nobody@example.test"}, ""},
		{[]string{"staff", "add", "--account", "not an account"}, ""},
		{[]string{"staff", "add"}, ""},
	} {
		out, err := run(t, append(tt.args, "--database-url", url)...)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%q: no error; printed %q", tt.args, out)
		case tt.want != "" && (err != nil || !strings.Contains(out+"\n", tt.want)):
			t.Errorf("%q: %q %v, want %q", tt.args, out, err, tt.want)
		}
	}
	if out, _ := run(t, "staff", "list", "--database-url", url); out != "" {
		t.Errorf("staff after removal: %q", out)
	}
}

// TestAppsStatusSays: the operator's other way to move an app to live says
// what it changed, or that nothing did.
func TestAppsStatusSays(t *testing.T) {
	url := pgtest.URL(t)
	out, err := run(t, "apps", "create", "--database-url", url, "--name", "Reader")
	if err != nil {
		t.Fatal(err)
	}
	app := regexp.MustCompile(`app_id=(\S+)`).FindStringSubmatch(out)[1]
	for _, tt := range []struct {
		args []string
		want string // "" for an error
	}{
		{[]string{"apps", "status", "--app", app, "--status", "live"}, "(Reader): development -> live; every edge follows"},
		{[]string{"apps", "status", "--app", app, "--status", "live"}, "is live already; nothing changed"},
		{[]string{"apps", "archive", "--app", app}, "live -> archived"},
		{[]string{"apps", "status", "--app", "f0000000-0000-4000-8000-000000000000", "--status", "live"}, ""},
	} {
		out, err := run(t, append(tt.args, "--database-url", url)...)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%q: no error; printed %q", tt.args, out)
		case tt.want != "" && (err != nil || !strings.Contains(out, tt.want)):
			t.Errorf("%q: %q %v, want %q", tt.args, out, err, tt.want)
		}
	}
}
