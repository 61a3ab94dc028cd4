package dynamic

import (
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/dynamic/accounts"
	"github.com/bibleplatform/platform/dynamic/oauth"
	"github.com/bibleplatform/platform/templates"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// signInRoutes serves the platform's accounts and its OpenID provider
// (docs/sign-in.md) with the storage roles they use: accounts and their
// sessions, passkeys, the provider's state, and apps and grants for the
// consent step. provider is nil when sign-in is not configured; then only
// exchangeRoutes consults it, to refuse the approval page.
type signInRoutes struct {
	*pages
	accounts accounts.Store
	oauth    oauth.Store
	passkeys accounts.Passkeys
	apps     AppStore
	grants   *grantCheck
	provider *oauth.Provider
	// issuer is the provider's public origin (Config.Issuer).
	issuer string
}

// The platform's own pages (docs/sign-in.md).
const (
	signInPath  = "/auth/sign-in"
	signUpPath  = "/auth/sign-up"
	signOutPath = "/auth/sign-out"
	accountPath = "/auth/account"
)

// sessionCookie holds a browser session's id. SameSite=Lax: the session
// must be seen when an app sends the browser to /auth/authorize or to the
// approval page (top-level navigations from another site), and never on
// another site's subrequests or form posts.
const sessionCookie = "platform_session"

// Bindings of the account forms' csrf values (formCSRF).
var (
	bindSignIn  = []byte("sign-in")
	bindSignUp  = []byte("sign-up")
	bindSignOut = []byte("sign-out")
)

func bindContinue(id string) []byte { return []byte("continue\x00" + id) }

// session is the browser's live session and its account, or nil.
func (s *signInRoutes) session(ctx *fasthttp.RequestCtx) (*accounts.Session, *accounts.Account, error) {
	id := string(ctx.Request.Header.Cookie(sessionCookie))
	if id == "" || s.accounts == nil {
		return nil, nil, nil
	}
	now := s.now()
	sess, err := s.accounts.TouchSession(s.ctx, accounts.HashSessionID(id), now, now.Add(-accounts.IdleLifetime))
	if errors.Is(err, ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	a, err := s.accounts.Account(s.ctx, sess.AccountID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil, nil
	}
	return sess, a, err
}

// setSessionCookie sets (or, with "", deletes) the session cookie.
func setSessionCookie(ctx *fasthttp.RequestCtx, id string, maxAge time.Duration) {
	setCookie(ctx, sessionCookie, id, fasthttp.CookieSameSiteLaxMode, maxAge)
}

// signedIn is the signed-in account; without one the browser is sent to
// sign in and come back to here (a path on this origin), and ok is false,
// as it is when the page answered a failure.
func (s *signInRoutes) signedIn(ctx *fasthttp.RequestCtx, here string) (*accounts.Account, bool) {
	_, acct, err := s.session(ctx)
	if err != nil {
		s.pageFail(ctx, err)
		return nil, false
	}
	if acct == nil {
		seeOther(ctx, withReturn(signInPath, here))
		return nil, false
	}
	return acct, true
}

// localReturn is where a form may send the browser afterwards: a path on
// this origin, never another site ("//evil", "/\evil" and absolute URLs
// are refused), else the account page.
func localReturn(raw string) string {
	if raw == "" || raw[0] != '/' || strings.HasPrefix(raw, "//") || strings.HasPrefix(raw, "/\\") ||
		strings.ContainsAny(raw, "\r\n\t") {
		return accountPath
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return accountPath
	}
	return raw
}

// pageFor is the request a return path continues, when it continues a
// sign-in for an app: its app name and redirect target, which the page
// names and whose origin its form may end at (CSP form-action applies to
// the redirects after a post).
func (s *signInRoutes) pageFor(ret string) (appName, target string) {
	if s.provider == nil {
		return "", ""
	}
	u, err := url.Parse(ret)
	if err != nil || u.Path != oauth.ContinuePath {
		return "", ""
	}
	r, err := s.provider.Request(s.ctx, u.Query().Get("id"))
	if err != nil {
		return "", ""
	}
	a, err := s.apps.App(s.ctx, r.AppID)
	if err != nil {
		return "", ""
	}
	return a.Name, formTarget(r.RedirectURI)
}

// formTarget is a redirect URI as a CSP source: its origin, or for an
// app's own scheme (com.example.app:/callback) the scheme.
func formTarget(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return ""
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		return origin(raw)
	}
	return u.Scheme + ":"
}

func withReturn(path, ret string) string {
	if ret == accountPath || ret == "" {
		return path
	}
	return path + "?" + url.Values{"return": {ret}}.Encode()
}

// getSignIn renders the sign-in form.
func (s *signInRoutes) getSignIn(ctx *fasthttp.RequestCtx) {
	ret := localReturn(string(ctx.QueryArgs().Peek("return")))
	s.signInPage(ctx, http.StatusOK, ret, "", "", "")
}

func (s *signInRoutes) signInPage(ctx *fasthttp.RequestCtx, status int, ret, email, problem, notice string) {
	app, target := s.pageFor(ret)
	csrf := s.formCSRF(ctx, bindSignIn)
	passkey := ""
	if s.passkeys != nil {
		passkey = s.formCSRF(ctx, bindPasskey)
	}
	s.page(ctx, status, "signin.html", target, func(nonce string) any {
		return templates.SignInPage{Nonce: nonce, Action: signInPath, CSRF: csrf, Return: ret, AppName: app,
			Email: email, Problem: problem, Notice: notice, SignUpURL: withReturn(signUpPath, ret), PasskeyCSRF: passkey}
	})
}

// msgSignInFailed is the one answer to a wrong address or password: it
// never says which, so the form does not tell who has an account.
const msgSignInFailed = "The email address or the password is not right."

// postSignIn checks the password and starts a session.
func (s *signInRoutes) postSignIn(ctx *fasthttp.RequestCtx) {
	form := ctx.PostArgs()
	ret := localReturn(string(form.Peek("return")))
	email := strings.TrimSpace(string(form.Peek("email")))
	pw := string(form.Peek("password"))
	if !s.csrfOK(ctx, bindSignIn, string(form.Peek("csrf"))) {
		s.signInPage(ctx, http.StatusBadRequest, ret, email, string(problem.FormExpired), "")
		return
	}
	key := accounts.EmailKey(email)
	now := s.now()
	acctKey, addrKey := accounts.ThrottleKeys(key, s.clientAddr(ctx))
	for _, t := range []struct {
		key string
		max int
	}{{acctKey, accounts.MaxAccountFailures}, {addrKey, accounts.MaxAddressFailures}} {
		n, err := s.accounts.Failures(s.ctx, t.key, now.Add(-accounts.ThrottleWindow))
		if err != nil {
			s.pageFail(ctx, err)
			return
		}
		if n >= t.max {
			ctx.Response.Header.Set("Retry-After", "900")
			s.signInPage(ctx, http.StatusTooManyRequests, ret, email,
				"Too many failed attempts. Wait 15 minutes, then try again.", "")
			return
		}
	}
	a, err := s.accounts.AccountByEmail(s.ctx, key)
	ok := false
	switch {
	case errors.Is(err, ErrNotFound) || err == nil && a.PasswordHash == "":
		accounts.VerifyNoAccount(pw)
	case err != nil:
		s.pageFail(ctx, err)
		return
	default:
		if ok, err = accounts.VerifyPassword(a.PasswordHash, pw); err != nil {
			s.log.Error("dynamic: sign in: stored hash", "account", a.ID, "err", err)
		}
	}
	if !ok {
		if err := s.accounts.RecordFailure(s.ctx, now, acctKey, addrKey); err != nil {
			s.pageFail(ctx, err)
			return
		}
		s.signInPage(ctx, http.StatusUnauthorized, ret, email, msgSignInFailed, "")
		return
	}
	if !s.startSession(ctx, a.ID) {
		return
	}
	seeOther(ctx, ret)
}

// startSession replaces the browser's session (if any) with a new one for
// account: a session id is never carried across a sign-in (fixation).
func (s *signInRoutes) startSession(ctx *fasthttp.RequestCtx, account string) bool {
	now := s.now()
	if old := ctx.Request.Header.Cookie(sessionCookie); len(old) > 0 {
		if err := s.accounts.RevokeSession(s.ctx, accounts.HashSessionID(string(old)), now); err != nil {
			s.pageFail(ctx, err)
			return false
		}
	}
	id, hash := accounts.NewSessionID()
	err := s.accounts.CreateSession(s.ctx, accounts.Session{Hash: hash, AccountID: account, CreatedAt: now,
		LastSeen: now, ExpiresAt: now.Add(accounts.AbsoluteLifetime)})
	if err != nil {
		s.pageFail(ctx, err)
		return false
	}
	setSessionCookie(ctx, id, accounts.AbsoluteLifetime)
	return true
}

// getSignUp renders the account creation form.
func (s *signInRoutes) getSignUp(ctx *fasthttp.RequestCtx) {
	ret := localReturn(string(ctx.QueryArgs().Peek("return")))
	s.signUpPage(ctx, http.StatusOK, ret, "", "", "")
}

func (s *signInRoutes) signUpPage(ctx *fasthttp.RequestCtx, status int, ret, name, email, problem string) {
	app, target := s.pageFor(ret)
	csrf := s.formCSRF(ctx, bindSignUp)
	s.page(ctx, status, "signup.html", target, func(nonce string) any {
		return templates.SignUpPage{Nonce: nonce, Action: signUpPath, CSRF: csrf, Return: ret, AppName: app,
			DisplayName: name, Email: email, Problem: problem, MinPassword: accounts.MinPassword,
			SignInURL: withReturn(signInPath, ret)}
	})
}

// postSignUp creates an account and signs it in. An address that has an
// account already is said so: sign-up cannot hide it without sending
// email (docs/sign-in.md).
func (s *signInRoutes) postSignUp(ctx *fasthttp.RequestCtx) {
	form := ctx.PostArgs()
	ret := localReturn(string(form.Peek("return")))
	name := strings.TrimSpace(string(form.Peek("name")))
	email := strings.TrimSpace(string(form.Peek("email")))
	pw := string(form.Peek("password"))
	if !s.csrfOK(ctx, bindSignUp, string(form.Peek("csrf"))) {
		s.signUpPage(ctx, http.StatusBadRequest, ret, name, email, string(problem.FormExpired))
		return
	}
	if err := accounts.CheckProfile(name, email); err != nil {
		s.signUpPage(ctx, http.StatusUnprocessableEntity, ret, name, email, err.Error())
		return
	}
	if err := accounts.CheckPassword(pw); err != nil {
		s.signUpPage(ctx, http.StatusUnprocessableEntity, ret, name, email, err.Error())
		return
	}
	a := accounts.Account{ID: uuid.NewString(), Email: email, DisplayName: name,
		PasswordHash: accounts.HashPassword(pw), CreatedAt: s.now()}
	err := s.accounts.CreateAccount(s.ctx, a)
	if errors.Is(err, ErrConflict) {
		s.signUpPage(ctx, http.StatusConflict, ret, name, email,
			"An account with this email address exists already. Sign in instead.")
		return
	}
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	if !s.startSession(ctx, a.ID) {
		return
	}
	seeOther(ctx, ret)
}

// getAccount shows who is signed in.
func (s *signInRoutes) getAccount(ctx *fasthttp.RequestCtx) {
	a, ok := s.signedIn(ctx, accountPath)
	if !ok {
		return
	}
	csrf := s.formCSRF(ctx, bindSignOut)
	passkey := ""
	if s.passkeys != nil {
		passkey = s.formCSRF(ctx, bindPasskey)
	}
	s.page(ctx, http.StatusOK, "account.html", "", func(nonce string) any {
		return templates.AccountPage{Nonce: nonce, CSRF: csrf, Name: a.DisplayName, Email: a.Email, PasskeyCSRF: passkey}
	})
}

// postSignOut ends this browser's session, or every session of the
// account (scope=everywhere).
func (s *signInRoutes) postSignOut(ctx *fasthttp.RequestCtx) {
	form := ctx.PostArgs()
	ret := localReturn(string(form.Peek("return")))
	if !s.csrfOK(ctx, bindSignOut, string(form.Peek("csrf"))) {
		s.errorPage(ctx, http.StatusBadRequest, "The form had expired",
			"You are still signed in. Go back, reload the page and try again.")
		return
	}
	sess, _, err := s.session(ctx)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	if sess != nil {
		if string(form.Peek("scope")) == "everywhere" {
			err = s.accounts.RevokeSessions(s.ctx, sess.AccountID, s.now())
		} else {
			err = s.accounts.RevokeSession(s.ctx, sess.Hash, s.now())
		}
		if err != nil {
			s.pageFail(ctx, err)
			return
		}
	}
	setSessionCookie(ctx, "", 0)
	if ret != accountPath {
		seeOther(ctx, withReturn(signInPath, ret))
		return
	}
	s.signInPage(ctx, http.StatusOK, accountPath, "", "", "You are signed out.")
}

// pageFail shows a storage failure as a page: 503 when the database is
// unreachable, 500 otherwise (logged).
func (s *pages) pageFail(ctx *fasthttp.RequestCtx, err error) {
	if errors.Is(err, ErrUnavailable) {
		ctx.Response.Header.Set("Retry-After", "5")
		s.errorPage(ctx, http.StatusServiceUnavailable, "Temporarily unavailable",
			"The platform cannot reach its data right now. Please try again in a few seconds.")
		return
	}
	s.log.Error("dynamic: account pages", "err", err)
	s.errorPage(ctx, http.StatusInternalServerError, string(problem.PageFailedTitle), string(problem.PageFailed))
}

// seeOther sends the browser on to a path of this origin (303: a GET).
func seeOther(ctx *fasthttp.RequestCtx, path string) {
	ctx.Response.Header.Set("Location", path)
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetStatusCode(http.StatusSeeOther)
}

// clientAddr is the browser's address as the edge reports it.
func (s *signInRoutes) clientAddr(ctx *fasthttp.RequestCtx) netip.Addr {
	if ip, err := netip.ParseAddr(string(ctx.Request.Header.Peek(wire.HeaderForwardedFor))); err == nil {
		return ip
	}
	ip, _ := netip.AddrFromSlice(ctx.RemoteIP())
	return ip
}
