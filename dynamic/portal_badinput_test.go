package dynamic_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// portalTables are every table a portal form can change.
var portalTables = []string{"organizations", "organization_members", "organization_invitations",
	"app_registrations", "apps", "app_keys", "app_redirect_uris", "license_agreements", "staff_accounts"}

// portalRows is a digest of every row of the portal's tables: equal before
// and after a request, the request changed nothing.
func (e *env) portalRows() string {
	e.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.dbURL)
	if err != nil {
		e.t.Fatal(err)
	}
	defer conn.Close(ctx)
	var b strings.Builder
	for _, table := range portalTables {
		var digest string
		// The table names are the constants above.
		if err := conn.QueryRow(ctx, `SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '')
			FROM `+table+` t`).Scan(&digest); err != nil {
			e.t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s\n", table, digest)
	}
	return b.String()
}

// TestPortalBadInput sends each form what the issue calls bad input (a
// callback URL with a fragment, a name of 10,000 characters, a second
// owner leaving the organization without an owner, a forged form) and
// more of its kind: each gets a page that says what is wrong, does not
// show a 10,000-character name back, and changes nothing.
func TestPortalBadInput(t *testing.T) {
	e := newEnv(t)
	first, second := browser(), browser()
	firstID := e.signUp(first, "First Owner", "first@example.test")
	secondID := e.signUp(second, "Second Owner", "second@example.test")
	org := e.createOrg(first, "Two Owners")
	app, _ := e.register(first, org, "Reader")
	e.invite(first, second, org, "second@example.test", "owner")
	// The second owner removes the first: allowed, one owner is left.
	if r := e.post(second, "/developers/members/remove", url.Values{"confirm": {"yes"}, "org": {org}, "account": {firstID}}); r.status != 303 {
		t.Fatalf("the second owner removes the first: %d %s", r.status, r.body)
	}
	long := strings.Repeat("x", 10000)
	longURL := "https://example.test/" + strings.Repeat("p", 3000)
	var elevenURLs []string
	for i := range 11 {
		elevenURLs = append(elevenURLs, fmt.Sprintf("https://example.test/cb%d", i))
	}
	app1 := func(field, value string) url.Values {
		f := url.Values{"org": {org}, "name": {"Reader Two"}, "use_case": {"Plans"}}
		f.Set(field, value)
		return f
	}

	for _, tt := range []struct {
		name   string
		action string
		fields url.Values
		status int
		want   string // in the page's problem line
	}{
		{"organization name of 10,000 characters", "/developers/organizations", url.Values{"name": {long}},
			422, "organization name of at most 100"},
		{"app name of 10,000 characters", "/developers/apps", app1("name", long), 422, "app name of at most 100"},
		{"description of 10,000 characters", "/developers/apps", app1("description", long), 422, "at most 2000"},
		{"use case of 10,000 characters", "/developers/apps", app1("use_case", long), 422, "at most 2000"},
		{"website of 10,000 characters", "/developers/apps", app1("website", "https://example.test/"+long), 422, "website"},
		{"callback URL with a fragment", "/developers/apps", app1("callbacks", "https://example.test/cb#top"), 422, "fragment"},
		{"callback URL of 3,000 characters", "/developers/apps", app1("callbacks", longURL), 422, "longer than 2000"},
		{"eleven callback URLs", "/developers/apps", app1("callbacks", strings.Join(elevenURLs, "\n")), 422, "at most 10 callback"},
		{"invitation to an address of 10,000 characters", "/developers/invitations",
			url.Values{"org": {org}, "email": {long + "@example.test"}, "role": {"developer"}}, 422, "email address"},
		{"invitation with no such role", "/developers/invitations",
			url.Values{"org": {org}, "email": {"third@example.test"}, "role": {"admin"}}, 422, "owner or developer"},
		{"the last owner leaving", "/developers/members/remove",
			url.Values{"confirm": {"yes"}, "org": {org}, "account": {secondID}}, 409, "needs an owner"},
		{"removing an account that is not a member", "/developers/members/remove",
			url.Values{"confirm": {"yes"}, "org": {org}, "account": {firstID}}, 422, "not a member"},
		{"agreeing to a licence that is not a number", "/developers/licenses/agree",
			url.Values{"org": {org}, "license": {"abc"}}, 422, "no such licence"},
		{"agreeing to no such licence", "/developers/licenses/agree", url.Values{"org": {org}, "license": {"999"}},
			422, "no such licence"},
		{"revoking a key that is not one", "/developers/keys/revoke",
			url.Values{"confirm": {"yes"}, "app": {app}, "key": {"abc"}}, 422, "not an active key"},
		{"joining with a made-up invitation", "/developers/join", url.Values{"token": {"made-up"}}, 404, "not right"},
	} {
		before := e.portalRows()
		r := e.post(second, tt.action, tt.fields)
		if r.status != tt.status || !strings.Contains(problemOf(r), tt.want) {
			t.Errorf("%s: %d %q, want %d saying %q", tt.name, r.status, problemOf(r), tt.status, tt.want)
		}
		// A name no one could have meant is not shown back; a long
		// description or use case is, to be shortened.
		if tt.fields.Get("name") == long && strings.Contains(string(r.body), long[:1000]) {
			t.Errorf("%s: the page shows the 10,000-character name back", tt.name)
		}
		if after := e.portalRows(); after != before {
			t.Errorf("%s changed the portal's rows:\nbefore %s\nafter %s", tt.name, before, after)
		}
	}

	// A forged form (no csrf value; another account's; a made-up one),
	// for a form that would otherwise be taken.
	for _, csrf := range []string{"", e.formCSRF(first, "/developers"), "forged"} {
		before := e.portalRows()
		f := app1("name", "Forged App")
		f.Set("csrf", csrf)
		r := e.doWith(second, req{method: "POST", path: "/developers/apps", body: f.Encode()})
		if r.status != http.StatusForbidden || !strings.Contains(problemOf(r), "nothing was changed") {
			t.Errorf("forged form (csrf %.8q): %d %q", csrf, r.status, problemOf(r))
		}
		if after := e.portalRows(); after != before {
			t.Errorf("a forged form changed the portal's rows")
		}
	}
}
