package dynamic_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/dynamic/accounts"
	"github.com/bibleplatform/platform/wire"
)

// TestPortalAuthorisation tries every portal page and form as a signed-out
// visitor, as another organization's owner, as a developer (not owner) of
// the organization, and as its owner with a forged form: each is refused
// and nothing changes.
func TestPortalAuthorisation(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	owner, dev, outsider, invitee := browser(), browser(), browser(), browser()
	ownerID := e.signUp(owner, "Owner", "owner@example.test")
	devID := e.signUp(dev, "Dev", "dev@example.test")
	outsiderID := e.signUp(outsider, "Outsider", "outsider@example.test")
	e.signUp(invitee, "Invitee", "invitee@example.test")
	org := e.createOrg(owner, "Owned Org")
	e.createOrg(outsider, "Other Org")
	app, _ := e.register(owner, org, "Owned App")
	e.invite(owner, dev, org, "dev@example.test", "developer")
	if r := e.post(owner, "/developers/licenses/agree", url.Values{"org": {org}, "license": {"2"}}); r.status != 303 {
		t.Fatalf("agree: %d", r.status)
	}
	r := e.post(owner, "/developers/invitations", url.Values{"org": {org}, "email": {"invitee@example.test"}, "role": {"owner"}})
	link := string(inviteLink.FindSubmatch(r.body)[1])
	token := strings.TrimPrefix(link, "/developers/join?token=")
	keys, _ := e.db.Keys(ctx, app)
	// The organization is a licensor too: its usage pages show something.
	if err := e.db.SetLicenseOwner(ctx, 2, org, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.AddUsage(ctx, "edge-a", 1, e.clock.Now(), []wire.UsageCount{{App: app, Bible: 9002,
		Day: e.clock.Now().UTC().Format(time.DateOnly), Requests: 4}}); err != nil {
		t.Fatal(err)
	}

	// state is everything the forms could change.
	state := func() string {
		var b strings.Builder
		members, _ := e.db.Members(ctx, org)
		apps, _ := e.db.OrganizationApps(ctx, org)
		agreed, _ := e.db.OrganizationAgreements(ctx, org)
		inv, _ := e.db.Invitation(ctx, accounts.HashSessionID(token))
		fmt.Fprintf(&b, "members %+v\napps %+v\nagreed %+v\ninvitation accepted %v\n", members, apps, agreed, inv.AcceptedAt)
		for _, a := range apps {
			ks, _ := e.db.Keys(ctx, a.ID)
			fmt.Fprintf(&b, "keys %+v\n", ks)
		}
		for _, id := range []string{ownerID, devID, outsiderID} {
			ms, _ := e.db.Memberships(ctx, id)
			fmt.Fprintf(&b, "%s: %+v\n", id, ms)
		}
		return b.String()
	}
	before := state()

	pages := []string{
		"/developers/organization?org=" + org,
		"/developers/apps/new?org=" + org,
		"/developers/app?app=" + app,
		"/developers/licenses?org=" + org,
		"/developers/join?token=" + token,
		"/developers/usage?app=" + app,
		"/developers/licensor?org=" + org,
		"/developers/licensor.csv?org=" + org,
	}
	forms := []struct {
		action string
		fields url.Values
	}{
		{"/developers/members/remove", url.Values{"confirm": {"yes"}, "org": {org}, "account": {ownerID}}},
		{"/developers/invitations", url.Values{"org": {org}, "email": {"x@example.test"}, "role": {"owner"}}},
		{"/developers/join", url.Values{"token": {token}}},
		{"/developers/apps", url.Values{"org": {org}, "name": {"Intruder"}, "use_case": {"Taking over"}}},
		{"/developers/apps/archive", url.Values{"app": {app}, "confirm": {"yes"}}},
		{"/developers/keys", url.Values{"app": {app}}},
		{"/developers/keys/revoke", url.Values{"confirm": {"yes"}, "app": {app}, "key": {fmt.Sprint(keys[0].ID)}}},
		{"/developers/licenses/agree", url.Values{"org": {org}, "license": {"3"}}},
		{"/developers/licenses/withdraw", url.Values{"org": {org}, "license": {"2"}}},
	}

	// Signed out: every page and form sends the browser to sign in.
	out := browser()
	for _, p := range append([]string{"/developers"}, pages...) {
		r := e.doWith(out, req{method: "GET", path: p})
		if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/auth/sign-in") {
			t.Errorf("signed out GET %s: %d %q", p, r.status, r.header.Get("Location"))
		}
	}
	for _, f := range append(forms, struct {
		action string
		fields url.Values
	}{"/developers/organizations", url.Values{"name": {"Anon"}}}) {
		r := e.doWith(out, req{method: "POST", path: f.action, body: f.fields.Encode()})
		if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/auth/sign-in") {
			t.Errorf("signed out POST %s: %d %q", f.action, r.status, r.header.Get("Location"))
		}
	}

	// Another organization's owner sees nothing of this one: the same 404
	// as for what does not exist (the invitation is for another address).
	home := e.doWith(outsider, req{method: "GET", path: "/developers"})
	if strings.Contains(string(home.body), "Owned Org") || !strings.Contains(string(home.body), "Other Org") {
		t.Errorf("outsider's home lists %s", home.body)
	}
	for _, p := range pages {
		want := http.StatusNotFound
		if strings.HasPrefix(p, "/developers/join") {
			want = http.StatusForbidden
		}
		if r := e.doWith(outsider, req{method: "GET", path: p}); r.status != want || strings.Contains(string(r.body), "Owned App") {
			t.Errorf("outsider GET %s: %d, want %d", p, r.status, want)
		}
	}
	for _, f := range forms {
		want := http.StatusNotFound
		if f.action == "/developers/join" {
			want = http.StatusForbidden
		}
		if r := e.post(outsider, f.action, f.fields); r.status != want {
			t.Errorf("outsider POST %s: %d, want %d", f.action, r.status, want)
		}
	}

	// A developer sees the organization but changes nothing.
	for _, p := range pages {
		r := e.doWith(dev, req{method: "GET", path: p})
		want := http.StatusOK
		switch {
		case strings.HasPrefix(p, "/developers/apps/new"), strings.HasPrefix(p, "/developers/join"):
			want = http.StatusForbidden
		}
		if r.status != want {
			t.Errorf("developer GET %s: %d, want %d", p, r.status, want)
		}
		for _, action := range []string{"/developers/keys", "/developers/apps/archive", "/developers/invitations",
			"/developers/licenses/withdraw", "/developers/apps/new"} {
			if strings.Contains(string(r.body), `"`+action+`"`) || strings.Contains(string(r.body), action+"?") {
				t.Errorf("developer's page %s offers %s", p, action)
			}
		}
	}
	for _, f := range forms {
		if r := e.post(dev, f.action, f.fields); r.status != http.StatusForbidden {
			t.Errorf("developer POST %s: %d, want 403", f.action, r.status)
		}
	}

	// The owner's own forms, forged (no csrf value, or another account's).
	devCSRF := e.formCSRF(dev, "/developers")
	for _, f := range forms {
		for _, csrf := range []string{"", devCSRF, "forged"} {
			v := url.Values{}
			for k, vs := range f.fields {
				v[k] = vs
			}
			v.Set("csrf", csrf)
			r := e.doWith(owner, req{method: "POST", path: f.action, body: v.Encode()})
			if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "nothing was changed") {
				t.Errorf("forged POST %s (csrf %.10q): %d", f.action, csrf, r.status)
			}
		}
	}

	if after := state(); after != before {
		t.Errorf("refused requests changed the state:\nbefore %s\nafter %s", before, after)
	}
}
