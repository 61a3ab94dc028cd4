package dynamic

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/templates"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// exchangeTokenLifetime is the spec's data-exchange token lifetime.
const exchangeTokenLifetime = 300 * time.Second

// exchangeRoutes serves the data-exchange (consent) flow with the storage
// roles it uses: tokens (which grant when consumed) and apps.
type exchangeRoutes struct {
	*pages
	apps  AppStore
	store ExchangeStore
	// grants records what a first-party app grants with the user's bearer
	// token alone (postExchangeBearer).
	grants GrantStore
	// signIn has the approval page's user sign in (exchangeUser).
	signIn *signInRoutes
}

// pages is what every server-rendered page shares: rendering with the
// platform's headers, and forms bound to the browser against forgery.
type pages struct {
	*requests
	// csrfKey signs the forms' anti-forgery values.
	csrfKey []byte
}

// permissionText describes each permission on the approval page.
var permissionText = map[string]string{
	PermissionHighlights: "see, add, change and remove your verse highlights",
}

func hashToken(tok string) []byte {
	h := sha256.Sum256([]byte(tok))
	return h[:]
}

// postExchangeToken answers POST /data-exchange/token: the user (bearer
// token) lets the calling app start a consent flow for the permissions it
// asks. The token is shown once and stored as its hash.
func (x *exchangeRoutes) postExchangeToken(ctx *fasthttp.RequestCtx, c caller) {
	user, ok := x.user(ctx)
	if !ok {
		return
	}
	var body struct {
		Permissions *[]string `json:"requested_permissions"`
	}
	if err := json.NewDecoder(io.LimitReader(bytes.NewReader(ctx.PostBody()), 16<<10)).Decode(&body); err != nil {
		validation(ctx, problem.JSONBody(err))
		return
	}
	loc := []string{"body", "requested_permissions"}
	if body.Permissions == nil {
		validation(ctx, problem.Missing(loc...))
		return
	}
	if len(*body.Permissions) == 0 {
		validation(ctx, problem.NoItems(loc...))
		return
	}
	var perms []string
	for i, p := range *body.Permissions {
		if _, ok := permissionText[p]; !ok {
			validation(ctx, problem.OneOf([]string{PermissionHighlights}, append(loc, strconv.Itoa(i))...))
			return
		}
		if !slices.Contains(perms, p) {
			perms = append(perms, p)
		}
	}
	if _, ok := x.liveApp(ctx, c.AppID); !ok {
		return
	}
	var b [32]byte
	rand.Read(b[:])
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	now := x.now()
	err := x.store.CreateExchangeToken(x.ctx, ExchangeToken{Hash: hashToken(tok), AppID: c.AppID,
		UserID: user, Permissions: perms, CreatedAt: now, ExpiresAt: now.Add(exchangeTokenLifetime)})
	if err != nil {
		x.fail(ctx, err)
		return
	}
	writeJSON(ctx, http.StatusCreated, map[string]any{"token": tok, "token_type": "data_exchange",
		"expires_in": int(exchangeTokenLifetime / time.Second)})
}

// liveApp loads the calling app; an unknown or archived app is 412 (spec,
// App status).
func (x *exchangeRoutes) liveApp(ctx *fasthttp.RequestCtx, id string) (*App, bool) {
	a, err := x.apps.App(x.ctx, id)
	switch {
	case errors.Is(err, ErrNotFound):
		err = problem.New(problem.NotPermitted, problem.AppUnknown)
	case err == nil && a.Status == access.StatusArchived:
		err = problem.New(problem.NotPermitted, problem.AppArchived)
	}
	if err != nil {
		x.fail(ctx, err)
		return nil, false
	}
	return a, true
}

// page renders an HTML page with the headers every page of the flow
// carries: a CSP that allows only the page's own inline stylesheet (by
// nonce) and form posts to ourselves and the app's callback (browsers
// apply form-action to the redirect too), no framing (clickjacking), no
// caching, no referrer (the token is in the URL).
func (p *pages) page(ctx *fasthttp.RequestCtx, status int, name string, callbackOrigin string, data func(nonce string) any) {
	var nb [16]byte
	rand.Read(nb[:])
	nonce := base64.RawStdEncoding.EncodeToString(nb[:])
	var buf bytes.Buffer
	if err := templates.Pages.ExecuteTemplate(&buf, name, data(nonce)); err != nil {
		p.log.Error("dynamic: render page", "page", name, "err", err)
		ctx.Error(string(problem.Internal.Text()), http.StatusInternalServerError)
		return
	}
	formAction := "'self'"
	if callbackOrigin != "" {
		formAction += " " + callbackOrigin
	}
	h := &ctx.Response.Header
	h.Set("Content-Type", "text/html; charset=utf-8")
	// script-src: the passkey buttons' script, the only one, by nonce;
	// connect-src: its requests to this origin.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'nonce-"+nonce+"'; script-src 'nonce-"+nonce+"'; "+
		"connect-src 'self'; img-src 'self'; "+
		"form-action "+formAction+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	ctx.SetStatusCode(status)
	ctx.SetBody(buf.Bytes())
}

func (p *pages) errorPage(ctx *fasthttp.RequestCtx, status int, title, msg string) {
	p.page(ctx, status, "error.html", "", func(nonce string) any {
		return templates.ErrorPage{Nonce: nonce, Title: title, Message: msg}
	})
}

// tokenProblem shows why a token cannot be used. It never redirects: the
// state table sends only a valid token's outcome back to the app.
func (x *exchangeRoutes) tokenProblem(ctx *fasthttp.RequestCtx, err error) {
	switch {
	case errors.Is(err, ErrTokenUsed):
		x.errorPage(ctx, http.StatusGone, "This link has already been used",
			"This permission request was already answered. Each request can be answered only once.")
	case errors.Is(err, ErrTokenExpired):
		x.errorPage(ctx, http.StatusGone, "This link has expired",
			"Permission requests are valid for five minutes, and this one has expired.")
	case errors.Is(err, ErrNotFound):
		x.errorPage(ctx, http.StatusNotFound, "Unknown permission request",
			"This link does not belong to any permission request.")
	default:
		x.log.Error("dynamic: data exchange", "err", err)
		x.errorPage(ctx, http.StatusInternalServerError, string(problem.PageFailedTitle), string(problem.PageFailed))
	}
}

// exchangeContext loads the token named in the query and its app, and
// checks the app is the one the edge verified. It answers with an error
// page itself when it cannot go on (false).
func (x *exchangeRoutes) exchangeContext(ctx *fasthttp.RequestCtx, c caller) (string, *ExchangeToken, *App, bool) {
	tok := string(ctx.QueryArgs().Peek("token"))
	if tok == "" {
		x.errorPage(ctx, http.StatusBadRequest, "Missing permission request",
			"The link is incomplete: it has no token.")
		return "", nil, nil, false
	}
	t, err := x.store.ExchangeToken(x.ctx, hashToken(tok))
	if err == nil {
		switch {
		case t.ConsumedAt != nil:
			err = ErrTokenUsed
		case !x.now().Before(t.ExpiresAt):
			err = ErrTokenExpired
		}
	}
	if err != nil {
		x.tokenProblem(ctx, err)
		return "", nil, nil, false
	}
	if t.AppID != c.AppID {
		x.errorPage(ctx, http.StatusForbidden, "Wrong app",
			"This permission request was made by another app.")
		return "", nil, nil, false
	}
	a, err := x.apps.App(x.ctx, t.AppID)
	if err != nil || a.Status == access.StatusArchived {
		x.errorPage(ctx, http.StatusPreconditionFailed, "App unavailable",
			"The app that made this request is no longer available.")
		return "", nil, nil, false
	}
	// Checked as when the app is registered (App.Validate): an app stored
	// by other means does not send the browser to anything else, nor show
	// users a name that controls or overrides could disguise.
	if !httpURL(a.CallbackURL) {
		x.errorPage(ctx, http.StatusConflict, "App not set up",
			"The app has no registered address to return to, so it cannot ask for permissions yet.")
		return "", nil, nil, false
	}
	if checkAppName(a.Name) != nil {
		x.errorPage(ctx, http.StatusConflict, "App not set up",
			"The app's registered name cannot be shown safely, so it cannot ask for permissions yet.")
		return "", nil, nil, false
	}
	return tok, t, a, true
}

const csrfCookie = "dx_csrf"

// csrfValue binds the form to this browser (the cookie) and this token: a
// page on another site can neither read the value nor send the cookie
// (SameSite=Strict), so it cannot forge an approval.
func (p *pages) csrfValue(tokenHash []byte, cookie string) string {
	m := hmac.New(sha256.New, p.csrfKey)
	m.Write(tokenHash)
	m.Write([]byte{0})
	m.Write([]byte(cookie))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// browserCookie is the value that binds approval forms to this browser:
// the one the browser already holds, so that a second approval tab does not
// replace the cookie the first tab's form was bound to (each form is still
// bound to its own token by csrfValue), or a new random one.
func browserCookie(ctx *fasthttp.RequestCtx) string {
	if c := ctx.Request.Header.Cookie(csrfCookie); len(c) == csrfCookieLen {
		if _, err := base64.RawURLEncoding.DecodeString(string(c)); err == nil {
			return string(c)
		}
	}
	var cb [24]byte
	rand.Read(cb[:])
	return base64.RawURLEncoding.EncodeToString(cb[:])
}

// csrfCookieLen is the length of a csrf cookie's value: 24 random bytes in
// base64.
const csrfCookieLen = 32

// formCSRF binds a form to this browser and to binding (what the form acts
// on): it sets the browser's csrf cookie and returns the form's value.
func (p *pages) formCSRF(ctx *fasthttp.RequestCtx, binding []byte) string {
	// A page with two forms sets one cookie for both.
	cookie, ok := ctx.UserValue(csrfCookie).(string)
	if !ok {
		cookie = browserCookie(ctx)
		setCSRFCookie(ctx, cookie)
		ctx.SetUserValue(csrfCookie, cookie)
	}
	return p.csrfValue(binding, cookie)
}

// csrfOK checks a posted form's csrf field against the browser's cookie
// and binding.
func (p *pages) csrfOK(ctx *fasthttp.RequestCtx, binding []byte, field string) bool {
	cookie := string(ctx.Request.Header.Cookie(csrfCookie))
	return cookie != "" && hmac.Equal([]byte(field), []byte(p.csrfValue(binding, cookie)))
}

// csrfCookieLifetime is how long the csrf cookie lasts after the last page
// set it: long enough to fill in a sign-in form.
const csrfCookieLifetime = 30 * time.Minute

// getExchange renders the approval page.
func (x *exchangeRoutes) getExchange(ctx *fasthttp.RequestCtx, c caller) {
	tok, t, a, ok := x.exchangeContext(ctx, c)
	if !ok || !x.exchangeUser(ctx, t, a) {
		return
	}
	// The form posts back to the same URL: the token, and the app's
	// identification for the edge (spec, Authentication 4).
	q := url.Values{"token": {tok}}
	for _, k := range []string{"x-svc-app-key", "x-svc-app-id"} {
		if v := string(ctx.QueryArgs().Peek(k)); v != "" {
			q.Set(k, v)
		}
	}
	perms := make([]templates.Permission, 0, len(t.Permissions))
	for _, p := range t.Permissions {
		perms = append(perms, templates.Permission{Name: p, Description: permissionText[p]})
	}
	website := a.WebsiteURL
	if !httpURL(website) {
		website = "" // never render a javascript: or other odd link
	}
	csrf := x.formCSRF(ctx, t.Hash)
	x.page(ctx, http.StatusOK, "approval.html", origin(a.CallbackURL), func(nonce string) any {
		return templates.ApprovalPage{Nonce: nonce, AppName: a.Name, AppWebsite: website, Permissions: perms,
			Action: "?" + q.Encode(), CSRF: csrf}
	})
}

// setCSRFCookie sets the forms' cookie for csrfCookieLifetime.
// SameSite=Strict keeps other sites' pages from sending it.
func setCSRFCookie(ctx *fasthttp.RequestCtx, value string) {
	setCookie(ctx, csrfCookie, value, fasthttp.CookieSameSiteStrictMode, csrfCookieLifetime)
}

// setCookie sets one of the platform's cookies: HttpOnly, for the whole
// origin, Secure when the browser reached the edge over HTTPS. An empty
// value deletes it.
func setCookie(ctx *fasthttp.RequestCtx, name, value string, sameSite fasthttp.CookieSameSite, maxAge time.Duration) {
	c := fasthttp.AcquireCookie()
	defer fasthttp.ReleaseCookie(c)
	c.SetKey(name)
	c.SetValue(value)
	c.SetPath("/")
	c.SetHTTPOnly(true)
	c.SetSameSite(sameSite)
	c.SetSecure(isHTTPS(ctx))
	if value == "" {
		c.SetMaxAge(-1)
	} else {
		c.SetMaxAge(int(maxAge / time.Second))
	}
	ctx.Response.Header.SetCookie(c)
}

func isHTTPS(ctx *fasthttp.RequestCtx) bool {
	return ctx.IsTLS() || strings.EqualFold(string(ctx.Request.Header.Peek(wire.HeaderForwardedProto)), "https")
}

func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// postExchange takes the user's decision: the token is consumed and the
// browser is sent (303) to the app's registered callback with the outcome.
// The callback is never taken from the request.
//
// The spec also names a bearer token on this route "for clients that
// complete the flow without a token". That flow is refused: with the user's
// bearer token alone an app would grant itself the permissions, which is
// the consent-without-the-user threat of docs/dynamic.md in its plainest
// form. Such a request gets 403 with the spec's {message} body, saying
// how to ask instead.
func (x *exchangeRoutes) postExchange(ctx *fasthttp.RequestCtx, c caller) {
	if !ctx.QueryArgs().Has("token") && len(ctx.Request.Header.Peek("Authorization")) > 0 {
		x.postExchangeBearer(ctx, c)
		return
	}
	_, t, a, ok := x.exchangeContext(ctx, c)
	if !ok || !x.exchangeUser(ctx, t, a) {
		return
	}
	var decision, csrf string
	// A form is small; a larger body is no form at all (as net/http's
	// MaxBytesReader made it), so it fails the CSRF check.
	if len(ctx.PostBody()) <= 16<<10 {
		form := ctx.PostArgs()
		decision, csrf = string(form.Peek("decision")), string(form.Peek("csrf"))
	}
	csrfOK := x.csrfOK(ctx, t.Hash, csrf)

	result := url.Values{}
	grant := false
	switch {
	case !csrfOK:
		result.Set("data_exchange_status", "error")
		result.Set("error", "invalid_request")
		result.Set("error_description", "The approval form could not be verified (it was not sent from the approval page in this browser).")
	case decision == "approve":
		grant = true
		result.Set("data_exchange_status", "granted")
		result.Set("granted_permissions", strings.Join(t.Permissions, ","))
	case decision == "cancel":
		result.Set("data_exchange_status", "cancelled")
		result.Set("denied_permissions", strings.Join(t.Permissions, ","))
		result.Set("error", "access_denied")
	default:
		result.Set("data_exchange_status", "error")
		result.Set("error", "invalid_request")
		result.Set("error_description", "The form carried no decision.")
	}
	if _, err := x.store.ConsumeExchangeToken(x.ctx, t.Hash, x.now(), grant); err != nil {
		// Lost a race with another submission, or expired meanwhile.
		x.tokenProblem(ctx, err)
		return
	}
	// The csrf cookie stays: forms in other tabs are bound to it, and this
	// form's value is worthless now that its token is consumed. It expires
	// with the last token it could serve.
	ctx.Response.Header.Set("Location", withQuery(a.CallbackURL, result))
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.Response.Header.Set("Referrer-Policy", "no-referrer")
	ctx.SetStatusCode(http.StatusSeeOther)
}

// exchangeUser requires the approval page's browser to be signed in as the
// exchange token's user: the page and its form are the user's to answer,
// not the app's that holds the user's bearer token (docs/dynamic.md,
// "Threat: an app approving for its user"). Without a session the browser
// signs in and comes back to the same URL; with another account's, the
// page says so and offers to switch. It answers itself when it returns
// false.
func (x *exchangeRoutes) exchangeUser(ctx *fasthttp.RequestCtx, t *ExchangeToken, a *App) bool {
	if x.signIn.provider == nil {
		x.errorPage(ctx, http.StatusServiceUnavailable, "Sign-in is not available",
			"Permissions can be granted only by a signed-in user, and this platform has no sign-in configured.")
		return false
	}
	here := string(ctx.URI().PathOriginal())
	if q := ctx.URI().QueryString(); len(q) > 0 {
		here += "?" + string(q)
	}
	acct, ok := x.signIn.signedIn(ctx, here)
	if !ok {
		return false
	}
	if acct.ID != t.UserID {
		csrf := x.formCSRF(ctx, bindSignOut)
		x.page(ctx, http.StatusForbidden, "switch.html", "", func(nonce string) any {
			return templates.SwitchPage{Nonce: nonce, CSRF: csrf, AppName: a.Name, AccountName: acct.DisplayName,
				AccountEmail: acct.Email, Return: here}
		})
		return false
	}
	return true
}

// postExchangeBearer is the spec's token-less POST /data-exchange: the
// user's bearer token alone grants the permissions asked for
// (requested_permissions, comma-joined; highlights by default). Only an app
// the operator marked first-party may do it: for any other app it would
// be consent without the user (see exchangeUser).
func (x *exchangeRoutes) postExchangeBearer(ctx *fasthttp.RequestCtx, c caller) {
	first := false
	if x.signIn.oauth != nil {
		var err error
		if first, err = x.signIn.oauth.FirstParty(x.ctx, c.AppID); err != nil {
			x.fail(ctx, err)
			return
		}
	}
	if !first {
		refuse(ctx, problem.Forbidden, problem.FirstPartyOnly)
		return
	}
	user, ok := x.user(ctx)
	if !ok {
		return
	}
	a, ok := x.liveApp(ctx, c.AppID)
	if !ok {
		return
	}
	if !httpURL(a.CallbackURL) {
		refuse(ctx, problem.Conflict, problem.NoCallbackURL)
		return
	}
	perms := []string{PermissionHighlights}
	if v := string(ctx.QueryArgs().Peek("requested_permissions")); v != "" {
		perms = strings.Split(v, ",")
	}
	for _, p := range perms {
		if _, ok := permissionText[p]; !ok {
			validation(ctx, problem.OneOf([]string{PermissionHighlights}, "query", "requested_permissions"))
			return
		}
	}
	if err := x.grants.Grant(x.ctx, user, c.AppID, perms, x.now()); err != nil {
		x.fail(ctx, err)
		return
	}
	ctx.Response.Header.Set("Location", withQuery(a.CallbackURL, url.Values{"data_exchange_status": {"granted"},
		"granted_permissions": {strings.Join(perms, ",")}}))
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetStatusCode(http.StatusSeeOther)
}

// withQuery adds params to a URL, keeping the query it already has.
func withQuery(raw string, params url.Values) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	u.RawQuery = q.Encode()
	return u.String()
}
