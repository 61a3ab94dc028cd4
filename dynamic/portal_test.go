package dynamic_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/dynamic/portal"
)

var (
	shownKey   = regexp.MustCompile(`id="app-key">(bpk_[A-Za-z0-9_-]+)<`)
	inviteLink = regexp.MustCompile(`id="invite-link">[^<]*(/developers/join\?token=[A-Za-z0-9_-]+)<`)
)

// signUp makes an account in browser b and returns its id.
func (e *env) signUp(b *http.Client, name, email string) string {
	e.t.Helper()
	r := e.submit(b, "/auth/sign-up", "/auth/sign-up", url.Values{"name": {name}, "email": {email},
		"password": {"a fine long phrase"}})
	if r.status != http.StatusSeeOther {
		e.t.Fatalf("sign up %s: %d %s", email, r.status, r.body)
	}
	a, err := e.db.AccountByEmail(context.Background(), email)
	if err != nil {
		e.t.Fatal(err)
	}
	return a.ID
}

// post submits a portal form with the csrf value of the portal's home
// page (every portal form of one account carries the same).
func (e *env) post(b *http.Client, action string, fields url.Values) resp {
	e.t.Helper()
	return e.submit(b, "/developers", action, fields)
}

func (e *env) createOrg(b *http.Client, name string) string {
	e.t.Helper()
	r := e.post(b, "/developers/organizations", url.Values{"name": {name}})
	org, ok := strings.CutPrefix(r.header.Get("Location"), "/developers/organization?org=")
	if r.status != http.StatusSeeOther || !ok {
		e.t.Fatalf("create organization: %d %q %s", r.status, r.header.Get("Location"), r.body)
	}
	return org
}

// register registers an app and returns its id and first key.
func (e *env) register(b *http.Client, org, name string) (app, key string) {
	e.t.Helper()
	r := e.post(b, "/developers/apps", url.Values{"org": {org}, "name": {name}, "use_case": {"Reading plans"},
		"website": {"https://example.test"}, "callbacks": {"https://example.test/cb\ncom.example.app:/cb"}})
	m := shownKey.FindSubmatch(r.body)
	if r.status != 200 || m == nil {
		e.t.Fatalf("register: %d %s", r.status, r.body)
	}
	apps, err := e.db.OrganizationApps(context.Background(), org)
	// Apps registered within the same moment list in no set order: the
	// app is the one of this name.
	i := slices.IndexFunc(apps, func(a portal.App) bool { return a.Name == name })
	if err != nil || i < 0 {
		e.t.Fatalf("apps of %s: %v %v", org, apps, err)
	}
	return apps[i].ID, string(m[1])
}

// invite has owner browser b invite email into org and the browser
// joiner accept it.
func (e *env) invite(b, joiner *http.Client, org, email, role string) {
	e.t.Helper()
	r := e.post(b, "/developers/invitations", url.Values{"org": {org}, "email": {email}, "role": {role}})
	m := inviteLink.FindSubmatch(r.body)
	if r.status != 200 || m == nil {
		e.t.Fatalf("invite: %d %s", r.status, r.body)
	}
	link := string(m[1])
	token := strings.TrimPrefix(link, "/developers/join?token=")
	if r := e.submit(joiner, link, "/developers/join", url.Values{"token": {token}}); r.status != http.StatusSeeOther {
		e.t.Fatalf("join: %d %s", r.status, r.body)
	}
}

// edgeApp waits (up to 5 s) until the access snapshot the edges follow
// shows app as ok says, and returns it.
func (e *env) edgeApp(app string, ok func(access.App) bool) access.App {
	e.t.Helper()
	var last access.App
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		r := e.do(req{method: "GET", path: "/internal/access", app: "-"})
		var s access.Snapshot
		r.json(e.t, &s)
		for _, a := range s.Apps {
			if a.ID == app {
				last = a
				if ok(a) {
					return a
				}
			}
		}
	}
	e.t.Fatalf("the access snapshot never showed what was wanted; last %+v", last)
	return last
}

func hashOf(key string) string {
	h := access.HashKey([]byte(key))
	return hex.EncodeToString(h[:])
}

func problemOf(r resp) string {
	if m := problem.FindSubmatch(r.body); m != nil {
		return string(m[1])
	}
	return ""
}

// TestPortal walks the portal as its users do: an organization, an app
// and its keys, licences, members; and what reaches the edges.
func TestPortal(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	owner, dev := browser(), browser()
	ownerID := e.signUp(owner, "Olive", "olive@example.test")
	devID := e.signUp(dev, "Dev", "dev@example.test")

	home := e.doWith(owner, req{method: "GET", path: "/developers"})
	if home.status != 200 || !strings.Contains(string(home.body), "Create an organization") {
		t.Fatalf("home: %d %s", home.status, home.body)
	}
	checkPageHeaders(t, home)
	if r := e.post(owner, "/developers/organizations", url.Values{"name": {strings.Repeat("n", 10000)}}); r.status != 422 ||
		!strings.Contains(problemOf(r), "at most 100") || strings.Contains(string(r.body), strings.Repeat("n", 200)) {
		t.Errorf("10,000-character organization name: %d %q", r.status, problemOf(r))
	}
	if ms, _ := e.db.Memberships(ctx, ownerID); len(ms) != 0 {
		t.Errorf("a refused organization was stored: %+v", ms)
	}
	org := e.createOrg(owner, "Olive Apps")
	for i := 1; i < portal.MaxOrganizations; i++ {
		e.createOrg(owner, fmt.Sprintf("Org %d", i))
	}
	if r := e.post(owner, "/developers/organizations", url.Values{"name": {"One too many"}}); r.status != 409 ||
		!strings.Contains(problemOf(r), "20 organizations") {
		t.Errorf("organization past the limit: %d %q", r.status, problemOf(r))
	}
	page := e.doWith(owner, req{method: "GET", path: "/developers/organization?org=" + org})
	if page.status != 200 || !strings.Contains(string(page.body), "Olive Apps") {
		t.Fatalf("organization page: %d %s", page.status, page.body)
	}
	checkPageHeaders(t, page)

	// Registration refuses bad input, storing nothing.
	for _, tt := range []struct {
		field, value, want string
	}{
		{"callbacks", "https://example.test/cb#frag", "fragment"},
		{"callbacks", "javascript:alert(1)", "want an http(s) URL or an app"},
		{"name", strings.Repeat("x", 10000), "app name of at most 100"},
		{"name", "", "app name"},
		{"use_case", "", "use case"},
		{"website", "ftp://example.test", "website"},
		{"website", "https://example.test/#x", "website"},
	} {
		f := url.Values{"org": {org}, "name": {"Reader"}, "use_case": {"Plans"}}
		f.Set(tt.field, tt.value)
		r := e.post(owner, "/developers/apps", f)
		if r.status != 422 || !strings.Contains(problemOf(r), tt.want) {
			t.Errorf("%s=%.30q: %d %q, want 422 saying %q", tt.field, tt.value, r.status, problemOf(r), tt.want)
		}
	}
	if apps, _ := e.db.OrganizationApps(ctx, org); len(apps) != 0 {
		t.Fatalf("refused registrations stored apps: %+v", apps)
	}

	app, key1 := e.register(owner, org, "Olive Reader")
	a, err := e.db.PortalApp(ctx, app)
	if err != nil || a.Status != "development" || a.UseCase != "Reading plans" ||
		!slices.Equal(a.CallbackURLs, []string{"com.example.app:/cb", "https://example.test/cb"}) {
		t.Fatalf("registered app %+v %v", a, err)
	}
	if ka, _ := e.db.App(ctx, app); ka.CallbackURL != "https://example.test/cb" || ka.OrganizationID != org {
		t.Errorf("apps row %+v", ka)
	}
	e.edgeApp(app, func(a access.App) bool { return slices.Equal(a.KeyHashes, []string{hashOf(key1)}) })

	// Rotation: a second key, no third; revoking the first.
	r := e.post(owner, "/developers/keys", url.Values{"app": {app}})
	m := shownKey.FindSubmatch(r.body)
	if r.status != 200 || m == nil || !strings.Contains(string(r.body), "X-SVC-App-Key: "+string(m[1])) {
		t.Fatalf("second key: %d %s", r.status, r.body)
	}
	key2 := string(m[1])
	if r := e.post(owner, "/developers/keys", url.Values{"app": {app}}); r.status != 409 || !strings.Contains(problemOf(r), "two keys") {
		t.Errorf("third key: %d %q", r.status, problemOf(r))
	}
	keys, _ := e.db.Keys(ctx, app)
	if len(keys) != 2 {
		t.Fatalf("keys %+v", keys)
	}
	// Revoking is for good: without the box ticked it is refused.
	if r := e.post(owner, "/developers/keys/revoke", url.Values{"app": {app}, "key": {fmt.Sprint(keys[0].ID)}}); r.status != 422 || !strings.Contains(problemOf(r), "Tick the box") {
		t.Errorf("revoke unconfirmed: %d %q", r.status, problemOf(r))
	}
	if again, _ := e.db.Keys(ctx, app); again[0].RevokedAt != nil || again[1].RevokedAt != nil {
		t.Errorf("an unconfirmed revoke revoked: %+v", again)
	}
	if r := e.post(owner, "/developers/keys/revoke", url.Values{"confirm": {"yes"}, "app": {app}, "key": {fmt.Sprint(keys[0].ID)}}); r.status != 303 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	e.edgeApp(app, func(a access.App) bool { return slices.Equal(a.KeyHashes, []string{hashOf(key2)}) })

	// Licences: the restricted one opens its Bibles to the app, and
	// records who agreed, as the spec's licence resource shows.
	lp := e.doWith(owner, req{method: "GET", path: "/developers/licenses?org=" + org})
	if lp.status != 200 || !strings.Contains(string(lp.body), "Reader Licence") || !strings.Contains(string(lp.body), "Open text") {
		t.Fatalf("licences page: %d %s", lp.status, lp.body)
	}
	checkPageHeaders(t, lp)
	restricted := testLicenses[1]
	if r := e.post(owner, "/developers/licenses/agree", url.Values{"org": {org}, "license": {fmt.Sprint(restricted.ID)}}); r.status != 303 {
		t.Fatalf("agree: %d %s", r.status, r.body)
	}
	e.edgeApp(app, func(a access.App) bool { return slices.Equal(a.Bibles, restricted.BibleIDs) })
	var out struct {
		Data []struct {
			ID        int    `json:"id"`
			AgreedDT  string `json:"agreed_dt"`
			SvcUserID string `json:"svc_user_id"`
		} `json:"data"`
	}
	e.do(req{method: "GET", path: "/v1/licenses?developer_id=" + ownerID}).json(t, &out)
	if lics := out.Data; len(lics) != 1 || lics[0].ID != restricted.ID || lics[0].SvcUserID != ownerID || lics[0].AgreedDT == "" {
		t.Errorf("licences of the owner: %+v", out.Data)
	}
	if r := e.post(owner, "/developers/licenses/agree", url.Values{"org": {org}, "license": {"1"}}); r.status != 422 ||
		!strings.Contains(problemOf(r), "open") {
		t.Errorf("agree to an open licence: %d %q", r.status, problemOf(r))
	}
	if r := e.post(owner, "/developers/licenses/withdraw", url.Values{"org": {org}, "license": {fmt.Sprint(restricted.ID)}}); r.status != 303 {
		t.Fatalf("withdraw: %d %s", r.status, r.body)
	}
	e.edgeApp(app, func(a access.App) bool { return len(a.Bibles) == 0 })

	// Members: an invited developer joins; the last owner stays.
	e.invite(owner, dev, org, "DEV@example.test", "developer")
	if m, err := e.db.Membership(ctx, org, devID); err != nil || m.Role != "developer" {
		t.Fatalf("membership %+v %v", m, err)
	}
	r = e.post(owner, "/developers/members/remove", url.Values{"confirm": {"yes"}, "org": {org}, "account": {ownerID}})
	if r.status != 409 || !strings.Contains(problemOf(r), "needs an owner") {
		t.Errorf("removing the last owner: %d %q", r.status, problemOf(r))
	}
	if m, err := e.db.Membership(ctx, org, ownerID); err != nil || m.Role != "owner" {
		t.Errorf("the last owner was removed: %+v %v", m, err)
	}
	if r := e.post(dev, "/developers/members/remove", url.Values{"confirm": {"yes"}, "org": {org}, "account": {devID}}); r.status != 303 {
		t.Errorf("leaving: %d %s", r.status, r.body)
	}
	if _, err := e.db.Membership(ctx, org, devID); err == nil {
		t.Errorf("the developer is still a member after leaving")
	}

	// Archiving needs its box ticked, and reaches the edges.
	if r := e.post(owner, "/developers/apps/archive", url.Values{"app": {app}}); r.status != 422 {
		t.Errorf("archive unconfirmed: %d", r.status)
	}
	if r := e.post(owner, "/developers/apps/archive", url.Values{"app": {app}, "confirm": {"yes"}}); r.status != 303 {
		t.Fatalf("archive: %d %s", r.status, r.body)
	}
	e.edgeApp(app, func(a access.App) bool { return a.Status == access.StatusArchived })
	if r := e.post(owner, "/developers/keys", url.Values{"app": {app}}); r.status != 409 {
		t.Errorf("a key for an archived app: %d", r.status)
	}

	// An organization registers at most MaxApps apps, archived ones
	// included.
	for i := 1; i < portal.MaxApps; i++ {
		e.register(owner, org, fmt.Sprintf("App %d", i))
	}
	r = e.post(owner, "/developers/apps", url.Values{"org": {org}, "name": {"One too many"}, "use_case": {"Plans"}})
	if r.status != 422 || !strings.Contains(problemOf(r), "50 apps") {
		t.Errorf("app past the limit: %d %q", r.status, problemOf(r))
	}
}
