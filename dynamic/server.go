package dynamic

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic/accounts"
	"github.com/bibleplatform/platform/dynamic/jwt"
	"github.com/bibleplatform/platform/dynamic/oauth"
	"github.com/bibleplatform/platform/dynamic/portal"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/trending"
)

// Config is what a Server needs.
type Config struct {
	DB    DB
	Store publish.Store
	// Users verifies user bearer tokens; nil refuses every token.
	Users *jwt.Verifier
	// EdgeToken is the secret the edge sends as X-Edge-Token. Empty
	// refuses every request: without it no app id can be trusted.
	EdgeToken string
	// CSRFKey signs the approval form's anti-forgery value; several
	// instances behind one edge need the same key. Nil means random.
	CSRFKey []byte
	// Now is the clock (tokens expire by it); nil means time.Now.
	Now func() time.Time
	// LongPoll is how long GET /internal/access?version=N waits for a
	// change before answering 304; zero means 20 s.
	LongPoll time.Duration
	// TrendingWindow is how far back trending search queries look;
	// TrendingMinApps how many distinct apps must have searched a phrase
	// on one day for it to trend (at most trending.MaxApps). Zero means
	// the defaults.
	TrendingWindow  time.Duration
	TrendingMinApps int
	Log             *slog.Logger

	// Accounts and OAuth are the platform's accounts and its OpenID
	// provider (docs/sign-in.md); both nil serves neither. Issuer is the
	// provider's public origin (oauth.Config).
	Accounts accounts.Store
	OAuth    oauth.Store
	Issuer   string
	// Portal is the developer portal's storage (docs/portal.md); it is
	// served at /developers when Accounts and OAuth are set too.
	Portal portal.Store
	// Colors answers GET /v1/highlights/recent-colors with the user's own
	// colours; nil gives the defaults only.
	Colors HighlightColors
}

// Server is the dynamic service. Open starts it; tests start it in process
// on port 0.
type Server struct {
	cfg     Config
	now     func() time.Time
	log     *slog.Logger
	content Published
	feed    *accessFeed
	metrics *metrics
	trends  trends

	byPath                          map[string]methods
	highlight, appInfo, permissions methods

	users    tokenCache
	provider *oauth.Provider
	// own verifies the tokens the provider issued; nil without one.
	own    *jwt.Verifier
	grants sync.Map // user|app|permission → struct{} (grants are never withdrawn)

	ln     net.Listener
	srv    *fasthttp.Server
	cancel context.CancelFunc
	done   sync.WaitGroup

	// ctx is what requests query the database and the store under: the
	// server's run context, ended by Close, as fasthttp's RequestCtx is
	// (its Done closes only at shutdown). The RequestCtx itself is not
	// handed on as a context: being of its own type, every context or
	// AfterFunc derived from it starts a goroutine to watch it (pgx does so
	// for each statement), and fasthttp's Shutdown writes what its Done
	// reads without synchronisation, which the race detector reports.
	ctx context.Context
}

// New builds a Server; it does nothing until Open.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg, now: cfg.Now, log: cfg.Log}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.cfg.CSRFKey == nil {
		s.cfg.CSRFKey = make([]byte, 32)
		rand.Read(s.cfg.CSRFKey)
	}
	s.content = NewContent(cfg.Store)
	s.feed = newAccessFeed(cfg.DB, s.content, s.log, s.now)
	s.feed.longPoll = cfg.LongPoll
	if s.feed.longPoll <= 0 {
		s.feed.longPoll = 20 * time.Second
	}
	s.metrics = newMetrics()
	s.trends.window, s.trends.minApps = cfg.TrendingWindow, cfg.TrendingMinApps
	if s.trends.window <= 0 {
		s.trends.window = DefaultTrendingWindow
	}
	if s.trends.minApps <= 0 {
		s.trends.minApps = DefaultTrendingMinApps
	}
	s.trends.minApps = min(s.trends.minApps, trending.MaxApps)
	if cfg.Accounts != nil && cfg.OAuth != nil {
		p, err := oauth.New(oauth.Config{Store: cfg.OAuth, Accounts: cfg.Accounts, Issuer: cfg.Issuer,
			Permissions: slices.Sorted(maps.Keys(permissionText)), Now: s.now})
		if err != nil {
			// Only a malformed static configuration gets here.
			panic(err)
		}
		s.provider, s.own = p, p.Verifier()
	}
	s.routes()
	return s
}

// routes maps each path to its handlers by method. Paths with a variable
// segment are matched in route.
func (s *Server) routes() {
	s.byPath = map[string]methods{
		"/internal/access":          {"GET": s.feed.serveAccess},
		"/internal/search-queries":  {"POST": s.postSearchQueries},
		"/internal/search-trending": {"GET": s.getSearchTrending},
		"/v1/highlights": {"GET": s.app(s.getHighlights), "POST": s.app(s.postHighlights),
			"PUT": s.app(s.putHighlights)},
		"/v1/highlights/recent-colors": {"GET": s.app(s.getRecentColors)},
		"/v1/licenses":                 {"GET": s.app(s.getLicenses)},
		"/data-exchange/token":         {"POST": s.app(s.postExchangeToken)},
		"/data-exchange":               {"GET": s.app(s.getExchange), "POST": s.app(s.postExchange)},
	}
	if s.provider != nil {
		for path, h := range s.provider.Routes() {
			fh := s.providerHandler(h)
			if path == oauth.AuthorizePath || path == oauth.CallbackPath {
				fh = s.browserErrors(fh)
			}
			s.byPath[path] = methods{"GET": fh, "POST": fh}
		}
		s.byPath[oauth.ContinuePath] = methods{"GET": s.getContinue, "POST": s.postContinue}
		s.byPath[signInPath] = methods{"GET": s.getSignIn, "POST": s.postSignIn}
		s.byPath[signUpPath] = methods{"GET": s.getSignUp, "POST": s.postSignUp}
		s.byPath[signOutPath] = methods{"POST": s.postSignOut}
		s.byPath[accountPath] = methods{"GET": s.getAccount}
		if s.cfg.Portal != nil {
			s.portalRoutes()
		}
	}
	s.highlight = methods{"DELETE": s.app(s.deleteHighlights)}
	s.appInfo = methods{"GET": s.app(s.getApp)}
	s.permissions = methods{"GET": s.app(s.getPermissions)}
}

// methods are one path's handlers by HTTP method.
type methods map[string]fasthttp.RequestHandler

// route finds path's handlers and records its variable segment, if any, as
// a user value (pathValue reads it).
// The pattern it returns names the route in metrics (a bounded set, unlike
// raw paths).
func (s *Server) route(ctx *fasthttp.RequestCtx, path string) (methods, string) {
	if m, ok := s.byPath[path]; ok {
		return m, path
	}
	if id, ok := strings.CutPrefix(path, "/v1/highlights/"); ok && segment(id) {
		ctx.SetUserValue("passage_id", id)
		return s.highlight, "/v1/highlights/{passage_id}"
	}
	if rest, ok := strings.CutPrefix(path, "/v1/apps/"); ok {
		if id, ok := strings.CutSuffix(rest, "/permissions"); ok && segment(id) {
			ctx.SetUserValue("app_id", id)
			return s.permissions, "/v1/apps/{app_id}/permissions"
		}
		if segment(rest) {
			ctx.SetUserValue("app_id", rest)
			return s.appInfo, "/v1/apps/{app_id}"
		}
	}
	return nil, "other"
}

func segment(s string) bool { return s != "" && !strings.Contains(s, "/") }

// pathValue is the variable segment route matched (decoded).
func pathValue(ctx *fasthttp.RequestCtx, name string) string {
	v, _ := ctx.UserValue(name).(string)
	return v
}

// Handler is the service's HTTP handler: the edge token is checked before
// anything else, then the route; an unknown path is 404 and a known one
// with another method 405 with Allow (RFC 9110 §15.5.6), as net/http's
// ServeMux answered. HEAD is served as GET; fasthttp drops the body.
//
// /metrics needs no edge token: it is for the operator's scraper, on the
// same private network as the rest of the service's port. Every other
// request is timed by route and status.
func (s *Server) Handler(ctx *fasthttp.RequestCtx) {
	if string(ctx.Path()) == "/metrics" && ctx.IsGet() {
		s.metrics.serve(ctx)
		return
	}
	start := time.Now()
	route := s.serve(ctx)
	s.metrics.observe(route, ctx.Response.StatusCode(), time.Since(start))
}

// serve answers one request and returns the route it matched.
func (s *Server) serve(ctx *fasthttp.RequestCtx) string {
	if !access.EdgeTokenOK(ctx.Request.Header.Peek(access.HeaderEdgeToken), s.cfg.EdgeToken) {
		fault(ctx, access.FaultInvalidEdgeToken)
		return "other"
	}
	m, route := s.route(ctx, string(ctx.Path()))
	if m == nil {
		// Every error in the spec's JSON shape, an unknown path too.
		message(ctx, fasthttp.StatusNotFound, "Not found: no such route.")
		return route
	}
	method := string(ctx.Method())
	if method == fasthttp.MethodHead {
		method = fasthttp.MethodGet
	}
	h, ok := m[method]
	if !ok {
		allow := make([]string, 0, len(m)+1)
		for k := range m {
			allow = append(allow, k)
			if k == fasthttp.MethodGet {
				allow = append(allow, fasthttp.MethodHead)
			}
		}
		slices.Sort(allow)
		ctx.Response.Header.Set("Allow", strings.Join(allow, ", "))
		message(ctx, fasthttp.StatusMethodNotAllowed, "Method not allowed.")
		return route
	}
	h(ctx)
	return route
}

// Open builds the first access snapshot, starts keeping it current, and
// serves on addr ("127.0.0.1:0" picks a port).
func (s *Server) Open(ctx context.Context, addr string) error {
	if err := s.feed.rebuild(ctx); err != nil {
		return fmt.Errorf("dynamic: first access snapshot: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("dynamic: listen: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.ln, s.cancel, s.ctx = ln, cancel, runCtx
	s.feed.stop = runCtx.Done()
	listening := make(chan struct{})
	s.done.Add(2)
	go func() { defer s.done.Done(); s.feed.run(runCtx, listening) }()
	go func() { defer s.done.Done(); s.housekeep(runCtx) }()
	select {
	case <-listening:
	case <-time.After(5 * time.Second):
		s.log.Warn("dynamic: LISTEN not established yet; polling meanwhile")
	}
	// Handlers take fasthttp's RequestCtx directly (see docs/dynamic.md:
	// net/http's server cost three times fasthttp's CPU per request here).
	s.srv = &fasthttp.Server{
		Handler:               s.Handler,
		ReadTimeout:           10 * time.Second,
		IdleTimeout:           2 * time.Minute,
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		MaxRequestBodySize:    access.MaxRequestBody,
		ErrorHandler:          requestError,
		Logger:                fasthttpLogger{s.log},
	}
	go s.srv.Serve(access.LingerListener{Listener: ln})
	return nil
}

// requestError answers a request the server could not read as
// access.UnreadRequest says.
func requestError(ctx *fasthttp.RequestCtx, err error) {
	status, msg, linger := access.UnreadRequest(err)
	message(ctx, status, msg)
	if linger {
		access.LingerOnClose(ctx.Conn())
	}
}

// fasthttpLogger sends the server's own messages (malformed requests) to
// the service's log.
type fasthttpLogger struct{ log *slog.Logger }

func (l fasthttpLogger) Printf(format string, args ...any) {
	l.log.Warn("dynamic: http server: " + fmt.Sprintf(format, args...))
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the server's base URL.
func (s *Server) URL() string { return "http://" + s.Addr() }

// Close stops serving, waiting a little for requests in flight.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	s.cancel() // ends long polls too
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.ShutdownWithContext(ctx)
	s.done.Wait()
	return err
}

// housekeep purges expired tokens and old idempotency records.
func (s *Server) housekeep(ctx context.Context) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		if err := s.cfg.DB.Purge(ctx, s.now().Add(-24*time.Hour)); err != nil && ctx.Err() == nil {
			s.log.Error("dynamic: purge", "err", err)
		}
		if err := s.purgeSearchQueries(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("dynamic: purge search queries", "err", err)
		}
		if s.provider != nil {
			now := s.now()
			if err := s.cfg.Accounts.PurgeAccounts(ctx, now.Add(-accounts.ThrottleWindow)); err != nil && ctx.Err() == nil {
				s.log.Error("dynamic: purge accounts", "err", err)
			}
			if err := s.cfg.OAuth.PurgeOAuth(ctx, now); err != nil && ctx.Err() == nil {
				s.log.Error("dynamic: purge oauth", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// caller is what a request may rely on once the edge vouched for it.
type caller struct {
	AppID string
}

// app requires the verified app id the edge injects on app routes.
func (s *Server) app(h func(*fasthttp.RequestCtx, caller)) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		id := string(ctx.Request.Header.Peek(access.HeaderVerifiedAppID))
		if !bible.ValidUUID(id) {
			fault(ctx, access.FaultMissingKey)
			return
		}
		h(ctx, caller{AppID: strings.ToLower(id)})
	}
}

// fault answers the gateway's 401 envelope (DESIGN.md), without
// Access-Control headers.
func fault(ctx *fasthttp.RequestCtx, f access.Fault) {
	writeBody(ctx, http.StatusUnauthorized, access.AppendFault(nil, f))
}

// user authenticates the bearer token and returns the user id (the token's
// subject, a UUID). It answers 401 itself when there is none.
//
// The token is copied out of fasthttp's buffers (string conversion): the
// verified-token cache keeps it, and the buffers are reused by the next
// request.
func (s *Server) user(ctx *fasthttp.RequestCtx) (string, bool) {
	auth := string(ctx.Request.Header.Peek("Authorization"))
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="platform"`)
		message(ctx, http.StatusUnauthorized, "A user bearer token is required (Authorization: Bearer …).")
		return "", false
	}
	id, err := s.verifyUser(s.ctx, strings.TrimSpace(tok))
	if err != nil {
		ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="platform", error="invalid_token"`)
		message(ctx, http.StatusUnauthorized, "The bearer token is not valid.")
		return "", false
	}
	return id, true
}

func (s *Server) verifyUser(ctx context.Context, tok string) (string, error) {
	now := s.now()
	if id, ok := s.users.get(tok, now); ok {
		return id, nil
	}
	c, err := s.verifyToken(ctx, tok)
	if err != nil {
		return "", err
	}
	if !bible.ValidUUID(c.Subject) {
		return "", fmt.Errorf("%w: subject is not a user id", jwt.ErrInvalid)
	}
	id := strings.ToLower(c.Subject)
	s.users.put(tok, id, c.ExpiresAt)
	return id, nil
}

// verifyToken checks a bearer token against the external issuers
// configured (Users) and the platform's own provider, in that order.
func (s *Server) verifyToken(ctx context.Context, tok string) (*jwt.Claims, error) {
	err := errors.New("no user token verifier configured")
	for _, v := range []*jwt.Verifier{s.cfg.Users, s.own} {
		if v == nil {
			continue
		}
		vv := *v
		vv.Now = s.now
		var c *jwt.Claims
		if c, err = vv.Verify(ctx, tok); err == nil {
			if v == s.own && c.ID == "" {
				// The provider's ID tokens are signed with the same keys;
				// only its access tokens carry a jti.
				return nil, fmt.Errorf("%w: not an access token", jwt.ErrInvalid)
			}
			return c, nil
		}
	}
	return nil, err
}

// tokenCache remembers verified bearer tokens until they expire, so a
// busy client costs one signature check per token rather than per request.
type tokenCache struct {
	mu sync.Mutex
	m  map[string]cachedUser
}

type cachedUser struct {
	id  string
	exp time.Time
}

const tokenCacheMax = 50000

func (c *tokenCache) get(tok string, now time.Time) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	u, ok := c.m[tok]
	if !ok || !now.Before(u.exp) {
		return "", false
	}
	return u.id, true
}

func (c *tokenCache) put(tok, id string, exp time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= tokenCacheMax {
		c.m = make(map[string]cachedUser) // crude bound: start over
	}
	c.m[tok] = cachedUser{id, exp}
}

// hasGrant checks a user's grant, remembering positive answers: a grant is
// never withdrawn, so a cached yes cannot go stale.
func (s *Server) hasGrant(ctx context.Context, user, app, perm string) (bool, error) {
	k := user + "|" + app + "|" + perm
	if _, ok := s.grants.Load(k); ok {
		return true, nil
	}
	ok, err := s.cfg.DB.HasGrant(ctx, user, app, perm)
	if ok {
		s.grants.Store(k, struct{}{})
	}
	return ok, err
}

// Responses.

func writeJSON(ctx *fasthttp.RequestCtx, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		message(ctx, http.StatusInternalServerError, "Internal error.")
		return
	}
	writeBody(ctx, status, b)
}

func writeBody(ctx *fasthttp.RequestCtx, status int, b []byte) {
	ctx.SetContentType("application/json; charset=utf-8")
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetStatusCode(status)
	ctx.SetBody(b)
}

// noContent answers 204 (or another bodiless status) that is not cached.
func noContent(ctx *fasthttp.RequestCtx, status int) {
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetStatusCode(status)
	ctx.Response.SkipBody = true
}

func message(ctx *fasthttp.RequestCtx, status int, msg string) {
	writeBody(ctx, status, access.AppendMessage(nil, msg))
}

// detail is one entry of a 422 body (DESIGN.md).
type detail = access.Detail

func validation(ctx *fasthttp.RequestCtx, d ...detail) {
	writeBody(ctx, http.StatusUnprocessableEntity, access.AppendValidation(nil, d...))
}
