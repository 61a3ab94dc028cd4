package dynamic_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// formCSRF opens a page in b and returns its form's csrf value.
func (e *env) formCSRF(b *http.Client, path string) string {
	e.t.Helper()
	r := e.doWith(b, req{method: "GET", path: path})
	m := csrfField.FindSubmatch(r.body)
	if r.status != 200 || m == nil {
		e.t.Fatalf("GET %s: %d %s", path, r.status, r.body)
	}
	return string(m[1])
}

// submit posts a form of the page at path, as the browser would after
// loading it.
func (e *env) submit(b *http.Client, page, action string, fields url.Values) resp {
	e.t.Helper()
	fields.Set("csrf", e.formCSRF(b, page))
	return e.doWith(b, req{method: "POST", path: action, body: fields.Encode()})
}

func sessionCookie(r resp) *http.Cookie {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == "platform_session" {
			return c
		}
	}
	return nil
}

var problem = regexp.MustCompile(`class="problem">([^<]*)<`)

func TestSignUpAndSignIn(t *testing.T) {
	e := newEnv(t)
	b := browser()
	signUp := func(name, email, pw string) resp {
		return e.submit(b, "/auth/sign-up", "/auth/sign-up", url.Values{"name": {name}, "email": {email}, "password": {pw}})
	}
	for _, tt := range []struct {
		name, email, pw string
		want            string
	}{
		{"Ann", "ann@example.test", "short", "at least 8 characters"},
		{"Ann", "ann@example.test", "password123", "most commonly used"},
		{"Ann", "ann@example.test", "PASSWORD123", "most commonly used"},
		{"Ann", "not an address", "a fine long phrase", "email address"},
		{"", "ann@example.test", "a fine long phrase", "display name"},
	} {
		r := signUp(tt.name, tt.email, tt.pw)
		m := problem.FindSubmatch(r.body)
		if r.status != http.StatusUnprocessableEntity || m == nil || !strings.Contains(string(m[1]), tt.want) {
			t.Errorf("sign up %q %q %q: %d %q, want 422 saying %q", tt.name, tt.email, tt.pw, r.status, m, tt.want)
		}
		if sessionCookie(r) != nil {
			t.Errorf("a refused sign-up set a session")
		}
	}
	// No composition rules: a long phrase of lower-case words is fine.
	r := signUp("Ann", "Ann@Example.test", "a fine long phrase")
	c := sessionCookie(r)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/auth/account" || c == nil {
		t.Fatalf("sign up: %d %q %v", r.status, r.header.Get("Location"), c)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Path != "/" {
		t.Errorf("session cookie %+v: want HttpOnly, SameSite=Lax, not Secure over HTTP", c)
	}
	if r := signUp("Ann again", "ann@example.TEST", "another long phrase"); r.status != http.StatusConflict {
		t.Errorf("same address, other case: %d, want 409", r.status)
	}
	page := e.doWith(b, req{method: "GET", path: "/auth/account"})
	if page.status != 200 || !strings.Contains(string(page.body), "Signed in as Ann") {
		t.Fatalf("account page: %d %s", page.status, page.body)
	}
	checkPageHeaders(t, page)

	// Sign in from another browser: a wrong password and an address with
	// no account read the same.
	b2 := browser()
	signIn := func(b *http.Client, email, pw string) resp {
		return e.submit(b, "/auth/sign-in", "/auth/sign-in", url.Values{"email": {email}, "password": {pw}})
	}
	wrong, nobody := signIn(b2, "ann@example.test", "not the password"), signIn(b2, "bob@example.test", "not the password")
	mw, mn := problem.FindSubmatch(wrong.body), problem.FindSubmatch(nobody.body)
	if wrong.status != 401 || nobody.status != 401 || mw == nil || mn == nil || string(mw[1]) != string(mn[1]) {
		t.Errorf("wrong password %d %q, unknown address %d %q: want the same 401", wrong.status, mw, nobody.status, mn)
	}
	ok := signIn(b2, "ANN@example.test", "a fine long phrase")
	if ok.status != http.StatusSeeOther || sessionCookie(ok) == nil {
		t.Fatalf("sign in: %d %s", ok.status, ok.body)
	}
	checkPageHeaders(t, e.doWith(b2, req{method: "GET", path: "/auth/sign-in"}))
}

// checkPageHeaders checks what every platform page carries: the approval
// page's CSP with a nonce, no framing, no caching.
func checkPageHeaders(t *testing.T, r resp) {
	t.Helper()
	csp := r.header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "style-src 'nonce-", "frame-ancestors 'none'", "form-action 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if r.header.Get("Cache-Control") != "no-store" || r.header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("headers %v", r.header)
	}
}

// Sign-in is throttled per account: after ten failures in 15 minutes even
// the right password is refused (for an address without an account
// too, so the answer says nothing about who has one), until the window
// has passed.
func TestSignInThrottled(t *testing.T) {
	e := newEnv(t)
	a := e.account(userID)
	b := browser()
	signIn := func(email, pw string) resp {
		return e.submit(b, "/auth/sign-in", "/auth/sign-in", url.Values{"email": {email}, "password": {pw}})
	}
	for i := 0; i < 10; i++ {
		if r := signIn(a.Email, "wrong guess "+string(rune('a'+i))); r.status != 401 {
			t.Fatalf("failure %d: %d", i, r.status)
		}
		signIn("nobody@example.test", "wrong guess")
	}
	for _, email := range []string{a.Email, "nobody@example.test"} {
		r := signIn(email, testPassword)
		if r.status != http.StatusTooManyRequests || sessionCookie(r) != nil || r.header.Get("Retry-After") == "" {
			t.Errorf("%s after 10 failures: %d", email, r.status)
		}
	}
	e.clock.Add(16 * time.Minute)
	if r := signIn(a.Email, testPassword); r.status != http.StatusSeeOther {
		t.Errorf("after the window: %d %s", r.status, r.body)
	}
}

// A session ends after a week without use or a month after sign-in, and
// signing in replaces the browser's session id.
func TestSessionLifetimes(t *testing.T) {
	e := newEnv(t)
	a := e.account(userID)
	signedIn := func(b *http.Client) bool {
		return e.doWith(b, req{method: "GET", path: "/auth/account"}).status == 200
	}
	b := e.signedIn(userID)
	e.clock.Add(6 * 24 * time.Hour)
	if !signedIn(b) {
		t.Fatal("signed out after six idle days")
	}
	e.clock.Add(7*24*time.Hour + time.Minute)
	if signedIn(b) {
		t.Error("still signed in after seven idle days")
	}
	b = e.signedIn(userID)
	for _, days := range []int{6, 6, 6, 6, 5} {
		e.clock.Add(time.Duration(days) * 24 * time.Hour)
		if !signedIn(b) {
			t.Fatal("signed out while in use")
		}
	}
	e.clock.Add(2 * 24 * time.Hour)
	if signedIn(b) {
		t.Error("still signed in 31 days after sign-in")
	}

	// Renewal: the id held before signing in is worthless after.
	b = e.signedIn(userID)
	u, _ := url.Parse(e.srv.URL())
	old := b.Jar.Cookies(u)
	r := e.submit(b, "/auth/sign-in", "/auth/sign-in", url.Values{"email": {a.Email}, "password": {testPassword}})
	if c := sessionCookie(r); c == nil || c.Value == old[0].Value {
		t.Fatalf("sign-in kept the session id: %v", c)
	}
	stale := browser()
	stale.Jar.SetCookies(u, old)
	if signedIn(stale) {
		t.Error("the session id from before sign-in still works")
	}
}

func TestSignOut(t *testing.T) {
	e := newEnv(t)
	b1, b2, b3 := e.signedIn(userID), e.signedIn(userID), e.signedIn(userID)
	signedIn := func(b *http.Client) bool {
		return e.doWith(b, req{method: "GET", path: "/auth/account"}).status == 200
	}
	// A form from another site carries no csrf value: nothing happens.
	if r := e.doWith(b1, req{method: "POST", path: "/auth/sign-out", body: "scope=everywhere"}); r.status != 400 || !signedIn(b1) {
		t.Fatalf("forged sign-out: %d", r.status)
	}
	e.submit(b1, "/auth/account", "/auth/sign-out", url.Values{"scope": {"here"}})
	if signedIn(b1) || !signedIn(b2) {
		t.Fatal("sign out here: want only this browser signed out")
	}
	e.submit(b2, "/auth/account", "/auth/sign-out", url.Values{"scope": {"everywhere"}})
	if signedIn(b2) || signedIn(b3) {
		t.Fatal("sign out everywhere left a session")
	}
}

// The return path of the forms stays on this origin.
func TestSignInReturnStaysHere(t *testing.T) {
	e := newEnv(t)
	a := e.account(userID)
	for _, ret := range []string{"//evil.example/x", "https://evil.example/", "/\\evil.example", "/data-exchange?token=x"} {
		b := browser()
		r := e.submit(b, "/auth/sign-in?return="+url.QueryEscape(ret), "/auth/sign-in",
			url.Values{"email": {a.Email}, "password": {testPassword}, "return": {ret}})
		want := "/auth/account"
		if ret == "/data-exchange?token=x" {
			want = ret
		}
		if got := r.header.Get("Location"); r.status != http.StatusSeeOther || got != want {
			t.Errorf("return %q: %d to %q, want %q", ret, r.status, got, want)
		}
	}
}
