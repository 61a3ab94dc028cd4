package dynamic_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/dynamic"
)

// newToken asks for a data-exchange token as the app, for user.
func (e *env) newToken(user string) string {
	e.t.Helper()
	r := e.do(req{method: "POST", path: "/data-exchange/token", user: user, body: `{"requested_permissions":["highlights"]}`})
	if r.status != 201 {
		e.t.Fatalf("token: %d %s", r.status, r.body)
	}
	var v struct {
		Token     string `json:"token"`
		TokenType string `json:"token_type"`
		ExpiresIn int    `json:"expires_in"`
	}
	r.json(e.t, &v)
	if v.Token == "" || v.TokenType != "data_exchange" || v.ExpiresIn != 300 {
		e.t.Fatalf("token answer %s", r.body)
	}
	return v.Token
}

var (
	csrfField   = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	formAction  = regexp.MustCompile(`<form method="post" action="([^"]+)"`)
	returnField = regexp.MustCompile(`name="return" value="([^"]*)"`)
)

// openPage loads the approval page in a browser and returns the form's
// target and fields.
func (e *env) openPage(b *http.Client, tok string) (string, string) {
	e.t.Helper()
	r := e.doWith(b, req{method: "GET", path: "/data-exchange?token=" + url.QueryEscape(tok) + "&x-svc-app-id=" + appID})
	if r.status != 200 {
		e.t.Fatalf("page: %d %s", r.status, r.body)
	}
	m, a := csrfField.FindSubmatch(r.body), formAction.FindSubmatch(r.body)
	if m == nil || a == nil {
		e.t.Fatalf("page without form: %s", r.body)
	}
	action := strings.ReplaceAll(string(a[1]), "&amp;", "&")
	return "/data-exchange" + action, string(m[1])
}

func callbackParams(t *testing.T, r resp) url.Values {
	t.Helper()
	if r.status != http.StatusSeeOther {
		t.Fatalf("decision: %d %s, want 303", r.status, r.body)
	}
	u, err := url.Parse(r.header.Get("Location"))
	if err != nil || u.Scheme+"://"+u.Host+u.Path != "https://reader.example/callback" {
		t.Fatalf("redirect to %q, want the registered callback", r.header.Get("Location"))
	}
	if u.Query().Get("from") != "dx" {
		t.Errorf("the callback's own query was lost: %s", u)
	}
	return u.Query()
}

func TestConsentFlowGrants(t *testing.T) {
	e := newEnv(t)
	hl := req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.16", "ffcc00", rid(1))}
	if r := e.do(hl); r.status != 403 {
		t.Fatalf("before consent: %d, want 403", r.status)
	}
	perms := e.do(req{method: "GET", path: "/v1/apps/" + appID + "/permissions", user: userID})
	if perms.status != 200 || strings.TrimSpace(string(perms.body)) != `{"permissions":[]}` {
		t.Errorf("permissions before: %d %s", perms.status, perms.body)
	}

	tok := e.newToken(userID)
	b := e.signedIn(userID)
	action, csrf := e.openPage(b, tok)
	if !strings.Contains(action, "x-svc-app-id="+appID) {
		t.Errorf("form action %q drops the app's identification", action)
	}
	q := callbackParams(t, e.doWith(b, req{method: "POST", path: action,
		body: url.Values{"csrf": {csrf}, "decision": {"approve"}}.Encode()}))
	if q.Get("data_exchange_status") != "granted" || q.Get("granted_permissions") != "highlights" {
		t.Errorf("callback params %v", q)
	}
	if r := e.do(hl); r.status != 201 {
		t.Errorf("after consent: %d %s, want 201", r.status, r.body)
	}
	perms = e.do(req{method: "GET", path: "/v1/apps/" + appID + "/permissions", user: userID})
	if strings.TrimSpace(string(perms.body)) != `{"permissions":["highlights"]}` {
		t.Errorf("permissions after: %s", perms.body)
	}
	// The grant is the user's to this app only.
	if r := e.do(req{method: "GET", app: otherApp, path: "/v1/highlights?bible_id=9001&passage_id=JHN.3", user: userID}); r.status != 403 {
		t.Errorf("other app after consent: %d, want 403", r.status)
	}
	// A consumed token gets an error page, not a redirect.
	for _, m := range []string{"GET", "POST"} {
		r := e.doWith(b, req{method: m, path: action, body: url.Values{"csrf": {csrf}, "decision": {"approve"}}.Encode()})
		if r.status != http.StatusGone || r.header.Get("Location") != "" || !strings.Contains(string(r.body), "already been used") {
			t.Errorf("%s with a used token: %d %q", m, r.status, r.header.Get("Location"))
		}
	}
}

// Two approval tabs in one browser are independent: opening the second
// does not spend the first one's form, and the first submit does not spend
// the second's.
func TestConsentFlowTwoTabs(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(userID)
	action1, csrf1 := e.openPage(b, e.newToken(userID))
	action2, csrf2 := e.openPage(b, e.newToken(userID))
	q := callbackParams(t, e.doWith(b, req{method: "POST", path: action1,
		body: url.Values{"csrf": {csrf1}, "decision": {"cancel"}}.Encode()}))
	if q.Get("data_exchange_status") != "cancelled" {
		t.Errorf("first tab: callback params %v, want cancelled", q)
	}
	q = callbackParams(t, e.doWith(b, req{method: "POST", path: action2,
		body: url.Values{"csrf": {csrf2}, "decision": {"approve"}}.Encode()}))
	if q.Get("data_exchange_status") != "granted" {
		t.Errorf("second tab: callback params %v, want granted", q)
	}
	// A form is still bound to its own token: the first tab's value does
	// not approve a third request.
	action3, _ := e.openPage(b, e.newToken(userID))
	q = callbackParams(t, e.doWith(b, req{method: "POST", path: action3,
		body: url.Values{"csrf": {csrf1}, "decision": {"approve"}}.Encode()}))
	if q.Get("data_exchange_status") != "error" || q.Get("error") != "invalid_request" {
		t.Errorf("another tab's csrf value: callback params %v, want invalid_request", q)
	}
}

// Completing the flow with the user's bearer token and no exchange token
// would let an app grant itself permissions: refused with the spec's JSON
// error shape, and nothing is granted.
func TestConsentWithoutTokenRefused(t *testing.T) {
	e := newEnv(t)
	r := e.do(req{method: "POST", path: "/data-exchange?x-svc-app-id=" + appID, user: userID,
		body: url.Values{"decision": {"approve"}}.Encode()})
	var v struct{ Message string }
	r.json(t, &v)
	if r.status != http.StatusForbidden || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") ||
		!strings.Contains(v.Message, "approval page") {
		t.Errorf("bearer-only POST: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	perms := e.do(req{method: "GET", path: "/v1/apps/" + appID + "/permissions", user: userID})
	if strings.TrimSpace(string(perms.body)) != `{"permissions":[]}` {
		t.Errorf("permissions after: %s", perms.body)
	}
}

func TestConsentFlowCancel(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(userID)
	action, csrf := e.openPage(b, e.newToken(userID))
	q := callbackParams(t, e.doWith(b, req{method: "POST", path: action,
		body: url.Values{"csrf": {csrf}, "decision": {"cancel"}}.Encode()}))
	want := url.Values{"data_exchange_status": {"cancelled"}, "denied_permissions": {"highlights"},
		"error": {"access_denied"}, "from": {"dx"}}
	if q.Encode() != want.Encode() {
		t.Errorf("callback params %v, want %v", q, want)
	}
	if r := e.do(req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3", user: userID}); r.status != 403 {
		t.Errorf("after cancel: %d, want 403", r.status)
	}
}

func TestConsentTokenExpires(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(userID)
	tok := e.newToken(userID)
	action, csrf := e.openPage(b, tok)
	e.clock.Add(299 * time.Second)
	if r := e.doWith(b, req{method: "GET", path: "/data-exchange?token=" + tok}); r.status != 200 {
		t.Errorf("at 299 s: %d, want the page", r.status)
	}
	e.clock.Add(2 * time.Second)
	for _, m := range []string{"GET", "POST"} {
		r := e.doWith(b, req{method: m, path: action, body: url.Values{"csrf": {csrf}, "decision": {"approve"}}.Encode()})
		if r.status != http.StatusGone || r.header.Get("Location") != "" || !strings.Contains(string(r.body), "expired") {
			t.Errorf("%s at 301 s: %d %q %s", m, r.status, r.header.Get("Location"), r.body)
		}
	}
}

func TestConsentForgedForm(t *testing.T) {
	e := newEnv(t)
	tok := e.newToken(userID)
	b := e.signedIn(userID)
	action, _ := e.openPage(b, tok)
	// A form without the page's anti-forgery value, from a browser that
	// never saw the page (signed in as the user all the same): the token
	// is spent and the app told why, and nothing is granted.
	q := callbackParams(t, e.doWith(e.signedIn(userID), req{method: "POST", path: action,
		body: url.Values{"csrf": {"forged"}, "decision": {"approve"}}.Encode()}))
	if q.Get("data_exchange_status") != "error" || q.Get("error") == "" || q.Get("error_description") == "" {
		t.Errorf("callback params %v", q)
	}
	if r := e.do(req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3", user: userID}); r.status != 403 {
		t.Errorf("after a forged approval: %d, want 403", r.status)
	}
}

func TestConsentPageAndErrors(t *testing.T) {
	e := newEnv(t)
	tok := e.newToken(userID)
	r := e.doWith(e.signedIn(userID), req{method: "GET", path: "/data-exchange?token=" + tok})
	csp := r.header.Get("Content-Security-Policy")
	for _, want := range []string{"frame-ancestors 'none'", "default-src 'none'", "form-action 'self' https://reader.example"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	for h, want := range map[string]string{"X-Frame-Options": "DENY", "Content-Type": "text/html; charset=utf-8",
		"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"} {
		if got := r.header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	for _, want := range []string{"Demo Reader", `href="https://reader.example"`, "highlights", ">Approve</button>", ">Cancel</button>", `<html lang="en">`} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(string(r.body), "<script") {
		t.Error("the page has a script: it must work without JavaScript")
	}

	tests := []struct {
		name   string
		r      req
		status int
	}{
		{"no bearer", req{method: "POST", path: "/data-exchange/token", body: `{"requested_permissions":["highlights"]}`}, 401},
		{"no permissions", req{method: "POST", path: "/data-exchange/token", user: userID, body: `{"requested_permissions":[]}`}, 422},
		{"missing permissions", req{method: "POST", path: "/data-exchange/token", user: userID, body: `{}`}, 422},
		{"unknown permission", req{method: "POST", path: "/data-exchange/token", user: userID, body: `{"requested_permissions":["bibles"]}`}, 422},
		{"archived app", req{method: "POST", path: "/data-exchange/token", app: "5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a99", user: userID,
			body: `{"requested_permissions":["highlights"]}`}, 412},
		{"page without token", req{method: "GET", path: "/data-exchange"}, 400},
		{"page with unknown token", req{method: "GET", path: "/data-exchange?token=nope"}, 404},
		{"page for another app", req{method: "GET", path: "/data-exchange?token=" + tok, app: otherApp}, 403},
		{"post without token", req{method: "POST", path: "/data-exchange", body: "decision=approve"}, 400},
	}
	for _, tt := range tests {
		if got := e.do(tt.r); got.status != tt.status || got.header.Get("Location") != "" {
			t.Errorf("%s: %d %q, want %d and no redirect", tt.name, got.status, got.header.Get("Location"), tt.status)
		}
	}

	// approvalPage stores app a as given (not through App.Validate) and
	// opens the approval page of a token it asks for.
	approvalPage := func(a dynamic.App) resp {
		t.Helper()
		a.Status = "live"
		if err := e.db.CreateApp(context.Background(), a); err != nil {
			t.Fatal(err)
		}
		r := e.do(req{method: "POST", path: "/data-exchange/token", app: a.ID, user: userID, body: `{"requested_permissions":["highlights"]}`})
		var v struct {
			Token string `json:"token"`
		}
		r.json(t, &v)
		return e.doWith(browser(), req{method: "GET", path: "/data-exchange?token=" + url.QueryEscape(v.Token), app: a.ID})
	}
	// An app stored without a usable callback cannot run the flow: the
	// browser is never sent to its address.
	for i, cb := range []string{"", "javascript:alert(1)", "/relative/callback", "https://reader.example/#frag", "http://a.com;frame-ancestors/cb"} {
		id := fmt.Sprintf("5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9b%02d", i)
		page := approvalPage(dynamic.App{ID: id, Name: "Unset", CallbackURL: cb})
		if page.status != http.StatusConflict || page.header.Get("Location") != "" {
			t.Errorf("callback %q: page %d %q, want 409 and no redirect", cb, page.status, page.header.Get("Location"))
		}
	}
	// Nor can an app whose stored name registration would refuse: the
	// page would show users the overridden text.
	for i, name := range []string{"Reader\u202egnp.exe", "Approved\nby your church"} {
		id := fmt.Sprintf("5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9c%02d", i)
		page := approvalPage(dynamic.App{ID: id, Name: name, CallbackURL: "https://reader.example/cb"})
		if page.status != http.StatusConflict || strings.Contains(string(page.body), name) {
			t.Errorf("name %q: page %d, want 409 without the name", name, page.status)
		}
	}
}

func TestAppsAndPermissions(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		r      req
		status int
		body   string
	}{
		{"summary", req{method: "GET", path: "/v1/apps/" + appID}, 200,
			`{"app_id":"` + appID + `","description":"Reads","name":"Demo Reader","status":"live","website_url":"https://reader.example"}`},
		{"another app's summary", req{method: "GET", path: "/v1/apps/" + otherApp}, 200,
			`{"app_id":"` + otherApp + `","description":"","name":"Other","status":"development","website_url":""}`},
		{"unknown app", req{method: "GET", path: "/v1/apps/00000000-0000-4000-8000-000000000000"}, 404, ""},
		{"not a uuid", req{method: "GET", path: "/v1/apps/xyz"}, 422, ""},
		{"own permissions", req{method: "GET", path: "/v1/apps/" + appID + "/permissions", user: userID}, 200, `{"permissions":[]}`},
		{"another app's permissions", req{method: "GET", path: "/v1/apps/" + otherApp + "/permissions", user: userID}, 403, ""},
		{"permissions without user", req{method: "GET", path: "/v1/apps/" + appID + "/permissions"}, 401, ""},
	}
	for _, tt := range tests {
		got := e.do(tt.r)
		if got.status != tt.status || tt.body != "" && strings.TrimSpace(string(got.body)) != tt.body {
			t.Errorf("%s: %d %s, want %d %s", tt.name, got.status, got.body, tt.status, tt.body)
		}
	}
}

// The attack of docs/dynamic.md, "an app approving for its user": the app
// holds the user's bearer token, creates an exchange token, fetches the
// approval page with its own HTTP client and posts approve. The page now
// needs the user's own platform session: without one the app is sent to
// sign in, signed in as anyone else it is told the request is not theirs,
// and nothing is granted either way. The user can still approve.
func TestAppCannotApproveForItsUser(t *testing.T) {
	e := newEnv(t)
	tok := e.newToken(userID)
	path := "/data-exchange?token=" + url.QueryEscape(tok) + "&x-svc-app-id=" + appID
	granted := func() bool {
		r := e.do(req{method: "GET", path: "/v1/apps/" + appID + "/permissions", user: userID})
		return strings.Contains(string(r.body), "highlights")
	}

	app := browser() // the app's own client, with a cookie jar
	page := e.doWith(app, req{method: "GET", path: path})
	if page.status != http.StatusSeeOther || !strings.HasPrefix(page.header.Get("Location"), "/auth/sign-in?return=") ||
		csrfField.Match(page.body) {
		t.Fatalf("page without a session: %d %q, want 303 to sign in", page.status, page.header.Get("Location"))
	}
	r := e.doWith(app, req{method: "POST", path: path, body: url.Values{"csrf": {"x"}, "decision": {"approve"}}.Encode()})
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/auth/sign-in") || granted() {
		t.Fatalf("approve without a session: %d %q, granted %v", r.status, r.header.Get("Location"), granted())
	}

	// Signed in as the app's own account: not the token's user.
	app = e.signedIn(otherUser)
	page = e.doWith(app, req{method: "GET", path: path})
	if page.status != http.StatusForbidden || !strings.Contains(string(page.body), "This request is for another account") {
		t.Fatalf("page for another account: %d %s", page.status, page.body)
	}
	r = e.doWith(app, req{method: "POST", path: path, body: url.Values{"csrf": {string(csrfField.FindSubmatch(page.body)[1])},
		"decision": {"approve"}}.Encode()})
	if r.status != http.StatusForbidden || granted() {
		t.Fatalf("approve as another account: %d, granted %v", r.status, granted())
	}

	// The user, in their own browser, still can.
	b := e.signedIn(userID)
	action, csrf := e.openPage(b, tok)
	q := callbackParams(t, e.doWith(b, req{method: "POST", path: action, body: url.Values{"csrf": {csrf}, "decision": {"approve"}}.Encode()}))
	if q.Get("data_exchange_status") != "granted" || !granted() {
		t.Errorf("the user's approval: %v", q)
	}
}

// The bearer-only POST works for first-party apps only.
func TestBearerOnlyConsentFirstPartyOnly(t *testing.T) {
	e := newEnv(t)
	post := req{method: "POST", path: "/data-exchange?x-svc-app-id=" + appID, user: userID, body: "decision=approve"}
	r := e.do(post)
	var v struct{ Message string }
	r.json(t, &v)
	if r.status != http.StatusForbidden || !strings.Contains(v.Message, "first-party") {
		t.Errorf("not first-party: %d %s", r.status, r.body)
	}
	if err := e.db.SetFirstParty(context.Background(), appID, true, time.Now()); err != nil {
		t.Fatal(err)
	}
	q := callbackParams(t, e.doWith(browser(), post))
	if q.Get("data_exchange_status") != "granted" || q.Get("granted_permissions") != "highlights" {
		t.Errorf("first-party: %v", q)
	}
	if r := e.do(req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3", user: userID}); r.status != 204 {
		t.Errorf("after the first-party grant: %d", r.status)
	}
}
