package oauth

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/bibleplatform/platform/dynamic/accounts"
	"github.com/bibleplatform/platform/dynamic/jwt"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// The routes the provider answers (sign-in.md), and the page op sends the
// browser to between /auth/authorize and /auth/callback (dynamic's).
const (
	DiscoveryPath = "/.well-known/openid-configuration"
	JWKSPath      = "/.well-known/jwks.json"
	AuthorizePath = "/auth/authorize"
	CallbackPath  = "/auth/callback"
	TokenPath     = "/auth/token"
	RevokePath    = "/auth/revoke"
	ContinuePath  = "/auth/continue"
)

// Config is what a Provider needs.
type Config struct {
	Store    Store
	Accounts accounts.Store
	// Issuer is the provider's public origin, e.g. https://api.example.com
	// (the tokens' iss). Empty: the origin the edge reports it was
	// reached at (X-Forwarded-Proto and -Host), for development.
	Issuer string
	// Permissions are the names requested_permissions may hold.
	Permissions []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Provider is the OpenID provider: op's handlers on the platform's routes.
type Provider struct {
	cfg     Config
	storage *storage
	op      *op.Provider
	routes  map[string]http.Handler
}

// New builds a Provider.
func New(cfg Config) (*Provider, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	st := &storage{store: cfg.Store, accounts: cfg.Accounts, now: cfg.Now, permissions: cfg.Permissions,
		keys: &keyring{store: cfg.Store, now: cfg.Now}}
	p := &Provider{cfg: cfg, storage: st}
	opc := &op.Config{
		CodeMethodS256:        true,
		GrantTypeRefreshToken: true,
		SupportedScopes:       []string{oidc.ScopeOpenID, oidc.ScopeProfile, oidc.ScopeEmail, oidc.ScopeOfflineAccess},
		SupportedClaims:       []string{"sub", "aud", "exp", "iat", "iss", "auth_time", "nonce", "jti", "client_id", "scope", "name", "email", "email_verified"},
	}
	// op makes codes by encrypting the request id. Codes are looked up by
	// their hash (SaveAuthCode), never decrypted, so the key only has to
	// be secret, not shared between instances.
	rand.Read(opc.CryptoKey[:])
	prov, err := op.NewProvider(opc, st, func(bool) (op.IssuerFromRequest, error) { return p.issuer, nil },
		op.WithAllowInsecure(),
		op.WithCustomAuthEndpoint(op.NewEndpoint(AuthorizePath)),
		op.WithCustomTokenEndpoint(op.NewEndpoint(TokenPath)),
		op.WithCustomRevocationEndpoint(op.NewEndpoint(RevokePath)),
		op.WithCustomKeysEndpoint(op.NewEndpoint(JWKSPath)))
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	p.op = prov
	p.routes = map[string]http.Handler{
		DiscoveryPath: p.get(p.discovery),
		JWKSPath:      p.get(func(w http.ResponseWriter, r *http.Request) { op.Keys(w, r, st) }),
		AuthorizePath: p.get(p.authorize),
		CallbackPath:  p.get(p.callback),
		TokenPath:     p.post(func(w http.ResponseWriter, r *http.Request) { op.Exchange(w, r, prov) }),
		RevokePath:    p.post(func(w http.ResponseWriter, r *http.Request) { op.Revoke(w, r, prov) }),
	}
	return p, nil
}

// Routes are the provider's handlers by path.
func (p *Provider) Routes() map[string]http.Handler { return p.routes }

// issuer is the tokens' iss for a request.
func (p *Provider) issuer(r *http.Request) string {
	host := r.Header.Get(wire.HeaderForwardedHost)
	if host == "" {
		host = r.Host
	}
	return Origin(p.cfg.Issuer, r.Header.Get(wire.HeaderForwardedProto), host)
}

// Origin is the platform's public origin: the configured issuer, or the
// one the edge reports the browser reached it at (proto and host, from
// X-Forwarded-Proto and -Host), for development.
func Origin(configured, proto, host string) string {
	if configured != "" {
		return configured
	}
	if proto != "https" {
		proto = "http"
	}
	return proto + "://" + host
}

func (p *Provider) with(h http.HandlerFunc, methods ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !slices.Contains(methods, r.Method) {
			w.Header().Set("Allow", strings.Join(methods, ", "))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusMethodNotAllowed)
			w.Write(wire.AppendMessage(nil, problem.NotAllowed.Text()))
			return
		}
		h(w, r.WithContext(op.ContextWithIssuer(r.Context(), p.issuer(r))))
	})
}

func (p *Provider) get(h http.HandlerFunc) http.Handler {
	return p.with(h, http.MethodGet, http.MethodHead)
}
func (p *Provider) post(h http.HandlerFunc) http.Handler { return p.with(h, http.MethodPost) }

// discovery is op's document without the endpoints not served here.
func (p *Provider) discovery(w http.ResponseWriter, r *http.Request) {
	c := op.CreateDiscoveryConfig(r.Context(), p.op, p.storage)
	c.UserinfoEndpoint, c.IntrospectionEndpoint, c.EndSessionEndpoint = "", "", ""
	c.DeviceAuthorizationEndpoint, c.CheckSessionIframe = "", ""
	c.IntrospectionEndpointAuthMethodsSupported = nil
	c.CodeChallengeMethodsSupported = []oidc.CodeChallengeMethod{oidc.CodeChallengeMethodS256}
	c.TokenEndpointAuthMethodsSupported = []oidc.AuthMethod{oidc.AuthMethodNone}
	c.GrantTypesSupported = []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken}
	c.ResponseTypesSupported = []string{string(oidc.ResponseTypeCode)}
	op.Discover(w, c)
}

// authorize is op's authorization endpoint, with the platform's
// parameters handed to CreateAuthRequest.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var e Extra
	if v := q.Get("requested_permissions"); v != "" {
		e.Permissions = strings.Split(v, ",")
	}
	e.RequireInteraction = q.Get("require_user_interaction") == "true"
	op.Authorize(w, r.WithContext(WithExtra(r.Context(), e)), p.op)
}

// callback is op's callback, which redirects with the code; the redirect
// also carries granted_permissions when permissions were requested
// (sign-in.md).
func (p *Provider) callback(w http.ResponseWriter, r *http.Request) {
	req, _ := p.storage.store.AuthRequest(r.Context(), r.URL.Query().Get("id"))
	if req == nil || len(req.RequestedPermissions) == 0 || req.AccountID == "" {
		op.AuthorizeCallback(w, r, p.op)
		return
	}
	op.AuthorizeCallback(&addGranted{ResponseWriter: w, granted: strings.Join(req.GrantedPermissions, ",")}, r, p.op)
}

// addGranted adds granted_permissions to a redirect's Location.
type addGranted struct {
	http.ResponseWriter
	granted string
}

func (a *addGranted) WriteHeader(status int) {
	if loc := a.Header().Get("Location"); status == http.StatusFound && loc != "" {
		if u, err := url.Parse(loc); err == nil && u.Query().Has("code") {
			q := u.Query()
			q.Set("granted_permissions", a.granted)
			u.RawQuery = q.Encode()
			a.Header().Set("Location", u.String())
		}
	}
	a.ResponseWriter.WriteHeader(status)
}

// Request is the authorization request id names, while the user may still
// complete it; an unknown, expired or answered one is an error.
func (p *Provider) Request(ctx context.Context, id string) (*AuthRequest, error) {
	return p.storage.Request(ctx, id)
}

// Complete records the user's sign-in and grants on a request; the
// browser then goes to CallbackURL.
func (p *Provider) Complete(ctx context.Context, id, accountID string, granted []string) error {
	now := p.cfg.Now()
	return p.cfg.Store.CompleteAuthRequest(ctx, id, accountID, granted, now)
}

// CallbackURL is where the browser goes once a request is complete.
func CallbackURL(id string) string { return CallbackPath + "?id=" + url.QueryEscape(id) }

// Deny sends the browser back to the app with access_denied (RFC 6749
// §4.1.2.1), to the request's registered redirect URI.
func (p *Provider) Deny(w http.ResponseWriter, r *http.Request, req *AuthRequest) {
	op.AuthRequestError(w, r, &authRequest{*req}, oidc.ErrAccessDenied().WithDescription("the user declined"), p.op)
}

// Verifier checks bearer tokens this provider issued, for dynamic's user
// routes: its own keys, RS256, and (when configured) its issuer.
func (p *Provider) Verifier() *jwt.Verifier {
	// The leeway covers clocks of instances behind one edge that differ a
	// little (op stamps iat and nbf from the clock of the one that issued).
	return &jwt.Verifier{Keys: p.storage.keys, Issuer: p.cfg.Issuer, Now: p.cfg.Now, Leeway: time.Minute}
}
