package dynamic_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/access"
)

// markStaff marks the account as staff, as `dynamic staff add` does.
func (e *env) markStaff(account string) {
	e.t.Helper()
	if _, err := e.db.MarkStaff(context.Background(), account, true, time.Now()); err != nil {
		e.t.Fatal(err)
	}
}

// TestStaffPage: a staff account lists the apps waiting in development,
// moves one to live and back, and the edges' access snapshot follows;
// a stale form, an archived app and a move that is not one change nothing
// and say why.
func TestStaffPage(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	owner, staff := browser(), browser()
	e.signUp(owner, "Olive", "olive@example.test")
	staffID := e.signUp(staff, "Stella Staff", "stella@example.test")
	e.markStaff(staffID)
	org := e.createOrg(owner, "Olive Apps")
	app, _ := e.register(owner, org, "Olive Reader")
	archived, _ := e.register(owner, org, "Old Reader")
	if r := e.post(owner, "/developers/apps/archive", url.Values{"app": {archived}, "confirm": {"yes"}}); r.status != 303 {
		t.Fatalf("archive: %d", r.status)
	}

	page := e.doWith(staff, req{method: "GET", path: "/developers/staff"})
	body := string(page.body)
	if page.status != 200 || !strings.Contains(body, "Olive Reader") || !strings.Contains(body, "Olive Apps") ||
		!strings.Contains(body, "olive@example.test") || !strings.Contains(body, "Reading plans") {
		t.Fatalf("staff page: %d %s", page.status, body)
	}
	checkPageHeaders(t, page)
	// The default list is the apps in development: not the archived one,
	// not the live demo app.
	if strings.Contains(body, "Old Reader") || strings.Contains(body, "Demo Reader") {
		t.Errorf("development list shows other apps: %s", body)
	}
	all := string(e.doWith(staff, req{method: "GET", path: "/developers/staff?status=all"}).body)
	for _, want := range []string{"Old Reader", "Demo Reader", "Olive Reader"} {
		if !strings.Contains(all, want) {
			t.Errorf("the list of all apps lacks %s", want)
		}
	}
	if strings.Contains(all, `name="app" value="`+archived+`"`) {
		t.Errorf("an archived app has a form")
	}

	move := func(app, from, to string) resp {
		return e.submit(staff, "/developers/staff", "/developers/staff/apps/status",
			url.Values{"app": {app}, "from": {from}, "to": {to}, "status": {"development"}})
	}
	r := move(app, "development", "live")
	if r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), "/developers/staff?status=development&moved="+app) {
		t.Fatalf("move to live: %d %q %s", r.status, r.header.Get("Location"), r.body)
	}
	e.edgeApp(app, func(a access.App) bool { return a.Status == access.StatusLive })
	done := e.doWith(staff, req{method: "GET", path: r.header.Get("Location")})
	if !strings.Contains(string(done.body), "Olive Reader is now live") {
		t.Errorf("after the move: %s", done.body)
	}
	if a, _ := e.db.App(ctx, app); a.Status != access.StatusLive {
		t.Errorf("status after the move: %s", a.Status)
	}
	// A page older than the move (it still shows development) changes
	// nothing.
	if r := move(app, "development", "live"); r.status != 409 || !strings.Contains(problemOf(r), "no longer development") {
		t.Errorf("stale move: %d %q", r.status, problemOf(r))
	}
	if r := move(app, "live", "development"); r.status != 303 {
		t.Fatalf("back to development: %d %s", r.status, r.body)
	}
	e.edgeApp(app, func(a access.App) bool { return a.Status == access.StatusDevelopment })

	for _, tt := range []struct {
		app, from, to string
		status        int
		want          string
	}{
		{archived, "archived", "live", 422, "archived is final"},
		{archived, "development", "live", 409, "no longer development"},
		{app, "development", "archived", 422, "between development and live"},
		{app, "live", "live", 422, "between development and live"},
		{"f0000000-0000-4000-8000-000000000000", "development", "live", 404, "no such app"},
		{"not-a-uuid", "development", "live", 404, "no such app"},
	} {
		if r := move(tt.app, tt.from, tt.to); r.status != tt.status || !strings.Contains(problemOf(r), tt.want) {
			t.Errorf("move %s %s→%s: %d %q, want %d %q", tt.app, tt.from, tt.to, r.status, problemOf(r), tt.status, tt.want)
		}
	}
	for id, want := range map[string]string{app: access.StatusDevelopment, archived: access.StatusArchived} {
		if a, _ := e.db.App(ctx, id); a.Status != want {
			t.Errorf("app %s is %s after refused moves, want %s", id, a.Status, want)
		}
	}
}

// TestStaffAuthorisation tries every staff route as a signed-out visitor,
// as an account that is not staff (the app's own owner among them), as a
// staff account that was unmarked, and as staff with a forged form: each
// is refused and no app changes.
func TestStaffAuthorisation(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	owner, staff, other := browser(), browser(), browser()
	e.signUp(owner, "Olive", "olive@example.test")
	staffID := e.signUp(staff, "Stella", "stella@example.test")
	e.signUp(other, "Otto", "otto@example.test")
	e.markStaff(staffID)
	org := e.createOrg(owner, "Olive Apps")
	app, _ := e.register(owner, org, "Olive Reader")
	staffCSRF := e.formCSRF(staff, "/developers/staff")

	state := func() string {
		apps, _ := e.db.Apps(ctx)
		var b strings.Builder
		for _, a := range apps {
			fmt.Fprintf(&b, "%s %s\n", a.ID, a.Status)
		}
		return b.String()
	}
	before := state()
	pages := []string{"/developers/staff", "/developers/staff?status=all", "/developers/staff?moved=" + app}
	form := url.Values{"app": {app}, "from": {"development"}, "to": {"live"}}

	out := browser()
	for _, p := range pages {
		r := e.doWith(out, req{method: "GET", path: p})
		if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/auth/sign-in") {
			t.Errorf("signed out GET %s: %d %q", p, r.status, r.header.Get("Location"))
		}
	}
	for _, csrf := range []string{"", staffCSRF} {
		f := url.Values{"csrf": {csrf}}
		for k, v := range form {
			f[k] = v
		}
		r := e.doWith(out, req{method: "POST", path: "/developers/staff/apps/status", body: f.Encode()})
		if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/auth/sign-in") {
			t.Errorf("signed out POST (csrf %.8q): %d %q", csrf, r.status, r.header.Get("Location"))
		}
	}

	// Not staff: the app's owner and an account of no organization get
	// 403 on the page and the form, with their own valid csrf values.
	for name, b := range map[string]*http.Client{"owner": owner, "other": other} {
		for _, p := range pages {
			r := e.doWith(b, req{method: "GET", path: p})
			if r.status != http.StatusForbidden || strings.Contains(string(r.body), "Olive Reader") {
				t.Errorf("%s GET %s: %d", name, p, r.status)
			}
		}
		if r := e.post(b, "/developers/staff/apps/status", form); r.status != http.StatusForbidden ||
			!strings.Contains(string(r.body), "Nothing was changed") {
			t.Errorf("%s POST: %d %s", name, r.status, r.body)
		}
	}

	// Staff, forged: no csrf value, another account's, a made-up one.
	for _, csrf := range []string{"", e.formCSRF(owner, "/developers"), "forged"} {
		f := url.Values{"csrf": {csrf}}
		for k, v := range form {
			f[k] = v
		}
		r := e.doWith(staff, req{method: "POST", path: "/developers/staff/apps/status", body: f.Encode()})
		if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "nothing was changed") {
			t.Errorf("forged staff POST (csrf %.8q): %d", csrf, r.status)
		}
	}

	// Unmarked, the former staff account is refused at once, even with
	// the csrf value of the page it loaded while staff.
	if _, err := e.db.MarkStaff(ctx, staffID, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	if r := e.doWith(staff, req{method: "GET", path: "/developers/staff"}); r.status != http.StatusForbidden {
		t.Errorf("unmarked staff GET: %d", r.status)
	}
	f := url.Values{"csrf": {staffCSRF}}
	for k, v := range form {
		f[k] = v
	}
	if r := e.doWith(staff, req{method: "POST", path: "/developers/staff/apps/status", body: f.Encode()}); r.status != http.StatusForbidden {
		t.Errorf("unmarked staff POST: %d", r.status)
	}

	if after := state(); after != before {
		t.Errorf("refused requests changed apps:\nbefore %s\nafter %s", before, after)
	}
}
