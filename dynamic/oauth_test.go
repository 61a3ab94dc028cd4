package dynamic_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/edge"
)

const (
	signInKey   = "bpk_sign_in_test"
	redirectURI = "https://reader.example/signed-in"
)

// signInEnv is a dynamic service behind a real edge, with the demo app's
// App Key and its registered redirect URI.
type signInEnv struct {
	*env
	base string
	edge *testEdge
}

func newSignInEnv(t *testing.T) *signInEnv {
	e := newEnv(t)
	ctx := context.Background()
	h := access.HashKey([]byte(signInKey))
	if _, err := e.db.AddKey(ctx, appID, h[:], "bpk_sign"); err != nil {
		t.Fatal(err)
	}
	if err := e.db.SetRedirectURIs(ctx, appID, []string{redirectURI, "com.example.reader:/signed-in"}); err != nil {
		t.Fatal(err)
	}
	a, err := e.db.App(ctx, appID)
	if err != nil {
		t.Fatal(err)
	}
	a.RatePerSecond, a.RateBurst = 1000, 1000
	if err := e.db.UpsertApp(ctx, *a); err != nil {
		t.Fatal(err)
	}
	ed := startEdge(t, e.store, e.srv.URL(), func(cfg *edge.Config) {
		cfg.DynamicTimeout = 30 * time.Second
		cfg.IDOnlyRate = access.Rate{PerSecond: 1000, Burst: 1000}
	})
	go ed.access.Run(t.Context())
	base := ed.url
	// The edge may start on the snapshot from before the upsert (the app's
	// first allowance, 5/s): wait until it enforces the one set here, which
	// its X-RateLimit-Limit (the burst) shows.
	waitFor(t, func() bool {
		r := throughEdge(t, http.DefaultClient, "GET", base+"/v1/apps/"+appID, signInKey, "", "")
		return r.status == 200 && r.header.Get("X-RateLimit-Limit") == "1000"
	})
	return &signInEnv{env: e, base: base, edge: ed}
}

// pkce is a code verifier and its S256 challenge (RFC 7636 §4.2).
func pkce() (verifier, challenge string) {
	var b [32]byte
	rand.Read(b[:])
	verifier = base64.RawURLEncoding.EncodeToString(b[:])
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func authorizeParams(challenge string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {signInKey}, "redirect_uri": {redirectURI},
		"scope": {"openid profile email"}, "state": {"st-123"}, "nonce": {"n-456"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}}
}

// follow follows redirects on this origin (the edge's) in browser b and
// returns the first answer that is not one, or the redirect that leaves.
func (s *signInEnv) follow(b *http.Client, method, path, body string) resp {
	s.t.Helper()
	r := throughEdge(s.t, b, method, s.base+path, "", "", body)
	for i := 0; i < 10 && (r.status == 302 || r.status == 303); i++ {
		loc := r.header.Get("Location")
		if !strings.HasPrefix(loc, "/") {
			return r
		}
		r = throughEdge(s.t, b, "GET", s.base+loc, "", "", "")
	}
	return r
}

// code runs /auth/authorize in b (signed in) and returns the callback's
// query.
func (s *signInEnv) code(b *http.Client, q url.Values) url.Values {
	s.t.Helper()
	r := s.follow(b, "GET", "/auth/authorize?"+q.Encode(), "")
	loc, _ := url.Parse(r.header.Get("Location"))
	if r.status != http.StatusFound || loc == nil || loc.Scheme+"://"+loc.Host+loc.Path != q.Get("redirect_uri") {
		s.t.Fatalf("authorize: %d %q %s", r.status, r.header.Get("Location"), r.body)
	}
	return loc.Query()
}

type tokens struct {
	AccessToken  string `json:"access_token"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int    `json:"expires_in"`
	TokenType    string `json:"token_type"`
	Scope        string `json:"scope"`
	Error        string `json:"error"`
}

func (s *signInEnv) token(form url.Values) (int, tokens) {
	s.t.Helper()
	r := throughEdge(s.t, http.DefaultClient, "POST", s.base+"/auth/token", "", "", form.Encode())
	var v tokens
	if err := json.Unmarshal(r.body, &v); err != nil {
		s.t.Fatalf("token endpoint: %d %s", r.status, r.body)
	}
	if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		s.t.Errorf("token endpoint Content-Type %q", r.header.Get("Content-Type"))
	}
	return r.status, v
}

func (s *signInEnv) exchange(code, verifier string) (int, tokens) {
	return s.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI},
		"client_id": {signInKey}, "code_verifier": {verifier}})
}

func (s *signInEnv) refresh(tok string) (int, tokens) {
	return s.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok}, "client_id": {signInKey}})
}

func claims(t *testing.T, jws string) (map[string]any, map[string]any) {
	t.Helper()
	parts := strings.Split(jws, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWS: %q", jws)
	}
	var h, c map[string]any
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(hb, &h) != nil || json.Unmarshal(cb, &c) != nil {
		t.Fatalf("JWS %q", jws)
	}
	return h, c
}

func TestSignInCodeFlow(t *testing.T) {
	s := newSignInEnv(t)
	b := s.signedIn(userID)
	verifier, challenge := pkce()
	q := s.code(b, authorizeParams(challenge))
	if q.Get("state") != "st-123" || q.Get("code") == "" || q.Has("granted_permissions") {
		t.Fatalf("callback %v", q)
	}
	status, tok := s.exchange(q.Get("code"), verifier)
	if status != 200 || tok.AccessToken == "" || tok.IDToken == "" || tok.RefreshToken == "" ||
		tok.ExpiresIn < 3590 || tok.ExpiresIn > 3600 || tok.TokenType != "Bearer" {
		t.Fatalf("exchange: %d %+v", status, tok)
	}
	h, c := claims(t, tok.AccessToken)
	if h["alg"] != "RS256" || h["kid"] == "" {
		t.Errorf("access token header %v", h)
	}
	if c["sub"] != userID || c["client_id"] != signInKey || c["jti"] == "" || c["iss"] != s.base ||
		// exp is by the service's (test) clock, iat by the real one.
		c["exp"].(float64)-c["iat"].(float64) > 3600 || c["exp"].(float64)-c["iat"].(float64) < 3590 || !strings.Contains(c["scope"].(string), "openid") {
		t.Errorf("access token claims %v", c)
	}
	for _, k := range []string{"name", "email"} {
		if _, ok := c[k]; ok {
			t.Errorf("access token carries %s", k)
		}
	}
	_, id := claims(t, tok.IDToken)
	if id["nonce"] != "n-456" || id["sub"] != userID || id["name"] != "User c2d3" || id["email"] != userID+"@example.test" {
		t.Errorf("ID token claims %v", id)
	}

	// The JWKS publishes the key, and discovery says where it is.
	jwks := throughEdge(t, http.DefaultClient, "GET", s.base+"/.well-known/jwks.json", "", "", "")
	if jwks.status != 200 || !strings.Contains(string(jwks.body), h["kid"].(string)) {
		t.Errorf("JWKS: %d %s", jwks.status, jwks.body)
	}
	disc := throughEdge(t, http.DefaultClient, "GET", s.base+"/.well-known/openid-configuration", "", "", "")
	var d map[string]any
	json.Unmarshal(disc.body, &d)
	if d["issuer"] != s.base || d["jwks_uri"] != s.base+"/.well-known/jwks.json" ||
		d["authorization_endpoint"] != s.base+"/auth/authorize" || d["token_endpoint"] != s.base+"/auth/token" {
		t.Errorf("discovery %s", disc.body)
	}
	if _, ok := d["userinfo_endpoint"]; ok {
		t.Errorf("discovery names a userinfo endpoint: %s", disc.body)
	}
	if m, _ := json.Marshal(d["code_challenge_methods_supported"]); string(m) != `["S256"]` {
		t.Errorf("code_challenge_methods_supported %s", m)
	}

	// dynamic takes its own access token (not its ID token) on the user
	// routes.
	if r := throughEdge(t, http.DefaultClient, "GET", s.base+"/v1/apps/"+appID+"/permissions", signInKey, tok.AccessToken, ""); r.status != 200 {
		t.Errorf("user route with the platform's access token: %d %s", r.status, r.body)
	}
	if r := throughEdge(t, http.DefaultClient, "GET", s.base+"/v1/apps/"+appID+"/permissions", signInKey, tok.IDToken, ""); r.status != 401 {
		t.Errorf("user route with an ID token: %d, want 401", r.status)
	}

	// Refresh tokens rotate; presenting a spent one revokes the family.
	status, next := s.refresh(tok.RefreshToken)
	if status != 200 || next.RefreshToken == "" || next.RefreshToken == tok.RefreshToken || next.AccessToken == "" {
		t.Fatalf("refresh: %d %+v", status, next)
	}
	if status, v := s.refresh(tok.RefreshToken); status != 400 || v.Error != "invalid_grant" {
		t.Errorf("spent refresh token: %d %+v, want 400 invalid_grant", status, v)
	}
	if status, v := s.refresh(next.RefreshToken); status != 400 || v.Error != "invalid_grant" {
		t.Errorf("the family's newest token after a reuse: %d %+v, want 400 invalid_grant", status, v)
	}
}

// Each protocol mistake is refused as OAuth 2.0 says: before the redirect
// URI is known good, a page and no redirect (RFC 6749 §4.1.2.1); after, a
// redirect to the registered URI with error; at the token endpoint, a JSON
// error (§5.2).
func TestSignInRefusals(t *testing.T) {
	s := newSignInEnv(t)
	b := s.signedIn(userID)
	verifier, challenge := pkce()

	noRedirect := func(name string, q url.Values) {
		t.Helper()
		r := s.follow(b, "GET", "/auth/authorize?"+q.Encode(), "")
		if r.status != 400 || r.header.Get("Location") != "" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %q %s, want a 400 page without a redirect", name, r.status, r.header.Get("Location"), r.header.Get("Content-Type"))
		}
	}
	q := authorizeParams(challenge)
	q.Set("redirect_uri", redirectURI+"x")
	noRedirect("redirect_uri one character longer", q)
	q.Set("redirect_uri", strings.TrimSuffix(redirectURI, "n"))
	noRedirect("redirect_uri one character shorter", q)
	q = authorizeParams(challenge)
	q.Set("client_id", "bpk_unknown")
	noRedirect("unknown client_id", q)

	errorRedirect := func(name string, q url.Values, want string) {
		t.Helper()
		r := s.follow(b, "GET", "/auth/authorize?"+q.Encode(), "")
		loc, _ := url.Parse(r.header.Get("Location"))
		if r.status != http.StatusFound || loc == nil || loc.Scheme+"://"+loc.Host+loc.Path != redirectURI ||
			loc.Query().Get("error") != want || loc.Query().Has("code") {
			t.Errorf("%s: %d %q, want a redirect with error=%s", name, r.status, r.header.Get("Location"), want)
		}
	}
	q = authorizeParams(challenge)
	q.Del("state")
	errorRedirect("missing state", q, "invalid_request")
	q = authorizeParams(challenge)
	q.Set("code_challenge_method", "plain")
	q.Set("code_challenge", verifier)
	errorRedirect("plain PKCE", q, "invalid_request")
	q = authorizeParams(challenge)
	q.Del("code_challenge")
	q.Del("code_challenge_method")
	errorRedirect("no PKCE", q, "invalid_request")
	q = authorizeParams(challenge)
	q.Set("requested_permissions", "everything")
	errorRedirect("unknown permission", q, "invalid_request")

	// At the token endpoint.
	code := s.code(b, authorizeParams(challenge)).Get("code")
	if status, v := s.exchange(code, verifier+"x"); status != 400 || v.Error != "invalid_grant" {
		t.Errorf("wrong code_verifier: %d %+v", status, v)
	}
	code = s.code(b, authorizeParams(challenge)).Get("code")
	if status, v := s.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI + "x"},
		"client_id": {signInKey}, "code_verifier": {verifier}}); status != 400 || v.Error != "invalid_grant" {
		t.Errorf("token request with another redirect_uri: %d %+v", status, v)
	}
	code = s.code(b, authorizeParams(challenge)).Get("code")
	s.clock.Add(61 * time.Second)
	if status, v := s.exchange(code, verifier); status != 400 || v.Error != "invalid_grant" {
		t.Errorf("expired code: %d %+v", status, v)
	}

	// A code used twice: the second use fails and revokes what the first
	// was given (RFC 6749 §4.1.2).
	code = s.code(b, authorizeParams(challenge)).Get("code")
	status, first := s.exchange(code, verifier)
	if status != 200 {
		t.Fatalf("exchange: %d", status)
	}
	if status, v := s.exchange(code, verifier); status != 400 || v.Error != "invalid_grant" {
		t.Errorf("reused code: %d %+v", status, v)
	}
	if status, v := s.refresh(first.RefreshToken); status != 400 || v.Error != "invalid_grant" {
		t.Errorf("refresh token of a reused code: %d %+v", status, v)
	}

	// Revocation (RFC 7009): the refresh token's family ends.
	code = s.code(b, authorizeParams(challenge)).Get("code")
	_, tok := s.exchange(code, verifier)
	r := throughEdge(t, http.DefaultClient, "POST", s.base+"/auth/revoke", "", "",
		url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {signInKey}}.Encode())
	if r.status != 200 {
		t.Errorf("revoke: %d %s", r.status, r.body)
	}
	if status, v := s.refresh(tok.RefreshToken); status != 400 || v.Error != "invalid_grant" {
		t.Errorf("revoked refresh token: %d %+v", status, v)
	}

	// An archived app can no longer sign anyone in, nor refresh.
	code = s.code(b, authorizeParams(challenge)).Get("code")
	_, tok = s.exchange(code, verifier)
	if err := s.db.SetAppStatus(context.Background(), appID, "archived"); err != nil {
		t.Fatal(err)
	}
	noRedirect("archived app", authorizeParams(challenge))
	if status, v := s.refresh(tok.RefreshToken); status < 400 || v.Error == "" {
		t.Errorf("refresh for an archived app: %d %+v", status, v)
	}
}

// requested_permissions=highlights adds a consent step; approving records
// the grant and the callback says so; the token then writes highlights.
// require_user_interaction=true shows a step even with nothing to ask.
func TestSignInPermissions(t *testing.T) {
	s := newSignInEnv(t)
	b := s.signedIn(userID)
	verifier, challenge := pkce()
	q := authorizeParams(challenge)
	q.Set("requested_permissions", "highlights")
	page := s.follow(b, "GET", "/auth/authorize?"+q.Encode(), "")
	if page.status != 200 || !strings.Contains(string(page.body), "Allow Demo Reader to access your data?") ||
		!strings.Contains(string(page.body), "highlights") {
		t.Fatalf("consent page: %d %s", page.status, page.body)
	}
	checkPageHeaders(t, page)
	if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "https://reader.example") {
		t.Errorf("CSP %q: form-action must allow the redirect to the app", csp)
	}
	action := strings.ReplaceAll(string(formAction.FindSubmatch(page.body)[1]), "&amp;", "&")
	csrf := string(csrfField.FindSubmatch(page.body)[1])
	r := s.follow(b, "POST", action, url.Values{"csrf": {csrf}, "decision": {"approve"}}.Encode())
	loc, _ := url.Parse(r.header.Get("Location"))
	if r.status != http.StatusFound || loc == nil || loc.Query().Get("granted_permissions") != "highlights" || loc.Query().Get("code") == "" {
		t.Fatalf("after approval: %d %q", r.status, r.header.Get("Location"))
	}
	_, tok := s.exchange(loc.Query().Get("code"), verifier)
	hl := post(9001, "JHN.3.16", "ffcc00", rid(11))
	if r := throughEdge(t, http.DefaultClient, "POST", s.base+"/v1/highlights", signInKey, tok.AccessToken, hl); r.status != 201 {
		t.Errorf("highlight with the token: %d %s", r.status, r.body)
	}

	// Granted already: no step, and the callback still says what is granted.
	if q := s.code(b, q); q.Get("granted_permissions") != "highlights" {
		t.Errorf("second sign-in callback %v", q)
	}
	// Cancel: access_denied to the registered URI.
	q2 := authorizeParams(challenge)
	q2.Set("require_user_interaction", "true")
	page = s.follow(b, "GET", "/auth/authorize?"+q2.Encode(), "")
	if page.status != 200 || !strings.Contains(string(page.body), "Continue to Demo Reader?") {
		t.Fatalf("require_user_interaction: %d %s", page.status, page.body)
	}
	action = strings.ReplaceAll(string(formAction.FindSubmatch(page.body)[1]), "&amp;", "&")
	csrf = string(csrfField.FindSubmatch(page.body)[1])
	r = s.follow(b, "POST", action, url.Values{"csrf": {csrf}, "decision": {"cancel"}}.Encode())
	loc, _ = url.Parse(r.header.Get("Location"))
	if r.status != http.StatusFound || loc == nil || loc.Query().Get("error") != "access_denied" || loc.Query().Get("state") != "st-123" {
		t.Errorf("cancel: %d %q", r.status, r.header.Get("Location"))
	}
}

// Not signed in: /auth/authorize leads to the sign-in page, and signing in
// there comes back to the request.
func TestSignInFromAuthorize(t *testing.T) {
	s := newSignInEnv(t)
	a := s.account(userID)
	b := browser()
	_, challenge := pkce()
	page := s.follow(b, "GET", "/auth/authorize?"+authorizeParams(challenge).Encode(), "")
	if page.status != 200 || !strings.Contains(string(page.body), "to continue to <strong>Demo Reader</strong>") {
		t.Fatalf("sign-in page: %d %s", page.status, page.body)
	}
	ret := strings.ReplaceAll(string(returnField.FindSubmatch(page.body)[1]), "&amp;", "&")
	csrf := string(csrfField.FindSubmatch(page.body)[1])
	r := s.follow(b, "POST", "/auth/sign-in", url.Values{"csrf": {csrf}, "return": {ret}, "email": {a.Email},
		"password": {testPassword}}.Encode())
	loc, _ := url.Parse(r.header.Get("Location"))
	if r.status != http.StatusFound || loc == nil || loc.Query().Get("code") == "" {
		t.Fatalf("after signing in: %d %q %s", r.status, r.header.Get("Location"), r.body)
	}
}
