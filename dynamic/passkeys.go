package dynamic

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/dynamic/accounts"
	"github.com/bibleplatform/platform/dynamic/oauth"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// Passkeys (WebAuthn, through github.com/go-webauthn/webauthn): a signed-in
// account adds one on its account page; the sign-in page signs in with one
// (a discoverable credential: no email needed). Each ceremony is two JSON
// requests from the page's script; what the first one promised is kept in
// PostgreSQL under a cookie's hashed id until the second takes it.
const (
	passkeyRegisterBegin  = "/auth/passkeys/register/begin"
	passkeyRegisterFinish = "/auth/passkeys/register/finish"
	passkeySignInBegin    = "/auth/passkeys/sign-in/begin"
	passkeySignInFinish   = "/auth/passkeys/sign-in/finish"

	ceremonyCookie   = "passkey_ceremony"
	ceremonyLifetime = 5 * time.Minute
)

var bindPasskey = []byte("passkey")

// passkeyUser is an account as the WebAuthn library reads a user: its
// handle is the account id.
type passkeyUser struct {
	a     *accounts.Account
	creds []webauthn.Credential
}

func (u *passkeyUser) WebAuthnID() []byte                         { return []byte(u.a.ID) }
func (u *passkeyUser) WebAuthnName() string                       { return u.a.Email }
func (u *passkeyUser) WebAuthnDisplayName() string                { return u.a.DisplayName }
func (u *passkeyUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// publicOrigin is the platform's origin as the browser sees it: the
// configured issuer, or the one the edge reports it was reached at.
func publicOrigin(ctx *fasthttp.RequestCtx, issuer string) string {
	proto := "http"
	if isHTTPS(ctx) {
		proto = "https"
	}
	host := string(ctx.Request.Header.Peek(wire.HeaderForwardedHost))
	if host == "" {
		host = string(ctx.Host())
	}
	return oauth.Origin(issuer, proto, host)
}

// relyingParty is the WebAuthn configuration for the origin the browser is
// on: the provider's issuer, or the origin the edge reports.
func (s *signInRoutes) relyingParty(ctx *fasthttp.RequestCtx) (*webauthn.WebAuthn, error) {
	origin := publicOrigin(ctx, s.issuer)
	u, err := url.Parse(origin)
	if err != nil {
		return nil, err
	}
	return webauthn.New(&webauthn.Config{RPID: u.Hostname(), RPDisplayName: "Bible Platform", RPOrigins: []string{origin}})
}

// passkeyUserOf loads an account with its passkeys.
func (s *signInRoutes) passkeyUserOf(a *accounts.Account) (*passkeyUser, error) {
	raw, err := s.passkeys.Passkeys(s.ctx, a.ID)
	if err != nil {
		return nil, err
	}
	u := &passkeyUser{a: a}
	for _, r := range raw {
		var c webauthn.Credential
		if err := json.Unmarshal(r, &c); err != nil {
			return nil, err
		}
		u.creds = append(u.creds, c)
	}
	return u, nil
}

// passkeyRequest checks what every passkey request needs: the feature, the
// page's csrf value (X-CSRF, bound to the browser's cookie).
func (s *signInRoutes) passkeyRequest(ctx *fasthttp.RequestCtx) (*webauthn.WebAuthn, bool) {
	if s.passkeys == nil {
		refuse(ctx, problem.NotFound, problem.PasskeysOff)
		return nil, false
	}
	if !s.csrfOK(ctx, bindPasskey, string(ctx.Request.Header.Peek("X-CSRF"))) {
		refuse(ctx, problem.Forbidden, problem.PageExpired)
		return nil, false
	}
	rp, err := s.relyingParty(ctx)
	if err != nil {
		s.fail(ctx, err)
		return nil, false
	}
	return rp, true
}

// saveCeremony keeps a ceremony's session data under a new cookie.
func (s *signInRoutes) saveCeremony(ctx *fasthttp.RequestCtx, sd *webauthn.SessionData) bool {
	data, err := json.Marshal(sd)
	if err == nil {
		id, hash := accounts.NewSessionID()
		if err = s.passkeys.SaveCeremony(s.ctx, hash, data, s.now().Add(ceremonyLifetime)); err == nil {
			setCookie(ctx, ceremonyCookie, id, fasthttp.CookieSameSiteStrictMode, ceremonyLifetime)
			return true
		}
	}
	s.fail(ctx, err)
	return false
}

// takeCeremony returns the ceremony the browser's cookie names, once.
func (s *signInRoutes) takeCeremony(ctx *fasthttp.RequestCtx) (*webauthn.SessionData, bool) {
	id := string(ctx.Request.Header.Cookie(ceremonyCookie))
	setCookie(ctx, ceremonyCookie, "", fasthttp.CookieSameSiteStrictMode, 0)
	data, err := s.passkeys.TakeCeremony(s.ctx, accounts.HashSessionID(id), s.now())
	if errors.Is(err, ErrNotFound) {
		refuse(ctx, problem.Unacceptable, problem.PasskeyExpired)
		return nil, false
	}
	var sd webauthn.SessionData
	if err == nil {
		err = json.Unmarshal(data, &sd)
	}
	if err != nil {
		s.fail(ctx, err)
		return nil, false
	}
	return &sd, true
}

// postPasskeyRegisterBegin starts adding a passkey to the signed-in
// account: a discoverable credential, not one the account has already.
func (s *signInRoutes) postPasskeyRegisterBegin(ctx *fasthttp.RequestCtx) {
	rp, ok := s.passkeyRequest(ctx)
	if !ok {
		return
	}
	u, ok := s.passkeyAccount(ctx)
	if !ok {
		return
	}
	exclude := make([]protocol.CredentialDescriptor, 0, len(u.creds))
	for _, c := range u.creds {
		exclude = append(exclude, c.Descriptor())
	}
	creation, sd, err := rp.BeginRegistration(u, webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		webauthn.WithExclusions(exclude))
	if err != nil {
		s.fail(ctx, err)
		return
	}
	if s.saveCeremony(ctx, sd) {
		writeJSON(ctx, http.StatusOK, creation)
	}
}

// passkeyAccount is the signed-in account with its passkeys; 401 without
// a session.
func (s *signInRoutes) passkeyAccount(ctx *fasthttp.RequestCtx) (*passkeyUser, bool) {
	_, a, err := s.session(ctx)
	if err == nil && a == nil {
		refuse(ctx, problem.Unauthenticated, problem.SignInFirst)
		return nil, false
	}
	var u *passkeyUser
	if err == nil {
		u, err = s.passkeyUserOf(a)
	}
	if err != nil {
		s.fail(ctx, err)
		return nil, false
	}
	return u, true
}

// postPasskeyRegisterFinish verifies the new credential and stores it.
func (s *signInRoutes) postPasskeyRegisterFinish(ctx *fasthttp.RequestCtx) {
	rp, ok := s.passkeyRequest(ctx)
	if !ok {
		return
	}
	u, ok := s.passkeyAccount(ctx)
	if !ok {
		return
	}
	sd, ok := s.takeCeremony(ctx)
	if !ok {
		return
	}
	parsed, err := protocol.ParseCredentialCreationResponseBody(bytes.NewReader(ctx.PostBody()))
	var cred *webauthn.Credential
	if err == nil {
		cred, err = rp.CreateCredential(u, *sd, parsed)
	}
	if err != nil {
		refuse(ctx, problem.Unacceptable, problem.PasskeyUnverified)
		return
	}
	b, _ := json.Marshal(cred)
	if err := s.passkeys.AddPasskey(s.ctx, u.a.ID, cred.ID, b, s.now()); err != nil {
		s.fail(ctx, err)
		return
	}
	writeJSON(ctx, http.StatusCreated, map[string]string{"message": "Passkey added."})
}

// postPasskeySignInBegin starts a sign-in with any passkey of this site.
func (s *signInRoutes) postPasskeySignInBegin(ctx *fasthttp.RequestCtx) {
	rp, ok := s.passkeyRequest(ctx)
	if !ok {
		return
	}
	assertion, sd, err := rp.BeginDiscoverableLogin()
	if err != nil {
		s.fail(ctx, err)
		return
	}
	if s.saveCeremony(ctx, sd) {
		writeJSON(ctx, http.StatusOK, assertion)
	}
}

// postPasskeySignInFinish verifies the assertion, starts a session for its
// account and says where the page goes on to.
func (s *signInRoutes) postPasskeySignInFinish(ctx *fasthttp.RequestCtx) {
	rp, ok := s.passkeyRequest(ctx)
	if !ok {
		return
	}
	sd, ok := s.takeCeremony(ctx)
	if !ok {
		return
	}
	parsed, err := protocol.ParseCredentialRequestResponseBody(bytes.NewReader(ctx.PostBody()))
	var user webauthn.User
	var cred *webauthn.Credential
	if err == nil {
		user, cred, err = rp.ValidatePasskeyLogin(func(_, handle []byte) (webauthn.User, error) {
			a, err := s.accounts.Account(s.ctx, string(handle))
			if err != nil {
				return nil, err
			}
			return s.passkeyUserOf(a)
		}, *sd, parsed)
	}
	if err != nil {
		refuse(ctx, problem.Unauthenticated, problem.PasskeyRefused)
		return
	}
	u := user.(*passkeyUser)
	b, _ := json.Marshal(cred)
	if err := s.passkeys.UpdatePasskey(s.ctx, cred.ID, b); err != nil {
		s.fail(ctx, err)
		return
	}
	if !s.startSession(ctx, u.a.ID) {
		return
	}
	writeJSON(ctx, http.StatusOK, map[string]string{"location": localReturn(string(ctx.QueryArgs().Peek("return")))})
}
