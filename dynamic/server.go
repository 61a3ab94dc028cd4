package dynamic

import (
	"context"
	"crypto/rand"
	"encoding/json"
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

	"github.com/bibleplatform/platform/dynamic/accounts"
	"github.com/bibleplatform/platform/dynamic/jwt"
	"github.com/bibleplatform/platform/dynamic/oauth"
	"github.com/bibleplatform/platform/dynamic/portal"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/trending"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// Config is what a Server needs.
type Config struct {
	// DB is every storage role; New hands each part of the service only
	// the roles it uses.
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
	// AccessLog, when set, gets one line per request (logRequest). Give
	// it a buffered writer (internal/logbuf), as the edge's is.
	AccessLog *slog.Logger

	// Accounts and OAuth are the platform's accounts and its OpenID
	// provider (docs/sign-in.md); both nil serves neither. Issuer is the
	// provider's public origin (oauth.Config).
	Accounts accounts.Store
	OAuth    oauth.Store
	Issuer   string
	// Passkeys stores accounts' passkeys; nil offers none.
	Passkeys accounts.Passkeys
	// Portal is the developer portal's storage (docs/portal.md); it is
	// served at /developers when Accounts and OAuth are set too.
	Portal portal.Store
	// Staff marks the operator's staff, who move apps to live at
	// /developers/staff; nil (or no Portal) serves no staff page.
	Staff StaffStore
	// Colors answers GET /v1/highlights/recent-colors with the user's own
	// colours; nil gives the defaults only.
	Colors HighlightColors
}

// Server is the dynamic service. Open starts it; tests start it in process
// on port 0. It wires the routes of each role to the storage roles they
// use; what every route shares is requests.
type Server struct {
	*requests
	cfg     Config
	content Published
	feed    *accessFeed
	metrics *metrics

	highlights *highlightRoutes
	apps       *appRoutes
	exchange   *exchangeRoutes
	trends     *trends
	signIn     *signInRoutes
	portal     *portalRoutes // nil without Config.Portal
	staff      *staffRoutes  // nil without Config.Portal and Config.Staff

	byPath                          map[string]methods
	highlight, appInfo, permissions methods

	ln     net.Listener
	srv    *fasthttp.Server
	cancel context.CancelFunc
	done   sync.WaitGroup
}

// requests is what the routes of every role share: the context they query
// under, the clock, the log failures go to, and the user bearer tokens.
type requests struct {
	// ctx is the server's run context, ended by Close, as fasthttp's
	// RequestCtx is (its Done closes only at shutdown). The RequestCtx
	// itself is not handed on as a context: being of its own type, every
	// context or AfterFunc derived from it starts a goroutine to watch it
	// (pgx does so for each statement), and fasthttp's Shutdown writes what
	// its Done reads without synchronisation, which the race detector
	// reports. Open sets it.
	ctx context.Context
	now func() time.Time
	log *slog.Logger
	// verifier verifies user bearer tokens from external issuers, own
	// those the platform's provider issued; both nil refuses every token.
	verifier, own *jwt.Verifier
	users         tokenCache
}

// New builds a Server; it does nothing until Open.
func New(cfg Config) *Server {
	r := &requests{now: cfg.Now, log: cfg.Log, verifier: cfg.Users}
	if r.now == nil {
		r.now = time.Now
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if cfg.CSRFKey == nil {
		cfg.CSRFKey = make([]byte, 32)
		rand.Read(cfg.CSRFKey)
	}
	s := &Server{requests: r, cfg: cfg}
	s.content = NewContent(cfg.Store)
	s.feed = newAccessFeed(cfg.DB, s.content, s.log, s.now)
	s.feed.longPoll = cfg.LongPoll
	if s.feed.longPoll <= 0 {
		s.feed.longPoll = 20 * time.Second
	}
	s.metrics = newMetrics(s.feed.followedBuild)
	grants := &grantCheck{store: cfg.DB}
	s.highlights = &highlightRoutes{requests: r, store: cfg.DB, grants: grants, content: s.content, colors: cfg.Colors}
	s.apps = &appRoutes{requests: r, apps: cfg.DB, grants: cfg.DB, agreements: cfg.DB, content: s.content}
	pg := &pages{requests: r, csrfKey: cfg.CSRFKey}
	s.signIn = &signInRoutes{pages: pg, accounts: cfg.Accounts, oauth: cfg.OAuth, passkeys: cfg.Passkeys,
		apps: cfg.DB, grants: grants, issuer: cfg.Issuer}
	s.exchange = &exchangeRoutes{pages: pg, apps: cfg.DB, store: cfg.DB, grants: cfg.DB, signIn: s.signIn}
	if cfg.Portal != nil {
		s.portal = &portalRoutes{pages: pg, signIn: s.signIn, store: cfg.Portal, accounts: cfg.Accounts,
			apps: cfg.DB, keys: cfg.DB, agreements: cfg.DB, content: s.content, issuer: cfg.Issuer, usage: cfg.DB}
		if cfg.Staff != nil {
			s.staff = &staffRoutes{portalRoutes: s.portal, staff: cfg.Staff}
		}
	}
	s.trends = &trends{requests: r, store: cfg.DB, window: cfg.TrendingWindow, minApps: cfg.TrendingMinApps}
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
		s.signIn.provider, r.own = p, p.Verifier()
	}
	s.routes()
	return s
}

// routes maps each path to its handlers by method. Paths with a variable
// segment are matched in route.
func (s *Server) routes() {
	h, a, x, t := s.highlights, s.apps, s.exchange, s.trends
	s.byPath = map[string]methods{
		"/internal/access":          {"GET": s.feed.serveAccess},
		"/internal/search-queries":  {"POST": t.postSearchQueries},
		"/internal/search-trending": {"GET": t.getSearchTrending},
		wire.UsagePath:              {"POST": (&usageReports{requests: s.requests, store: s.cfg.DB}).postUsage},
		"/v1/highlights": {"GET": s.app(h.getHighlights), "POST": s.app(h.postHighlights),
			"PUT": s.app(h.putHighlights)},
		"/v1/highlights/recent-colors": {"GET": s.app(h.getRecentColors)},
		"/v1/licenses":                 {"GET": s.app(a.getLicenses)},
		"/data-exchange/token":         {"POST": s.app(x.postExchangeToken)},
		"/data-exchange":               {"GET": s.app(x.getExchange), "POST": s.app(x.postExchange)},
	}
	if si := s.signIn; si.provider != nil {
		for path, ph := range si.provider.Routes() {
			fh := si.providerHandler(ph)
			if path == oauth.AuthorizePath || path == oauth.CallbackPath {
				fh = si.browserErrors(fh)
			}
			s.byPath[path] = methods{"GET": fh, "POST": fh}
		}
		s.byPath[oauth.ContinuePath] = methods{"GET": si.getContinue, "POST": si.postContinue}
		s.byPath[signInPath] = methods{"GET": si.getSignIn, "POST": si.postSignIn}
		s.byPath[signUpPath] = methods{"GET": si.getSignUp, "POST": si.postSignUp}
		s.byPath[signOutPath] = methods{"POST": si.postSignOut}
		s.byPath[accountPath] = methods{"GET": si.getAccount}
		s.byPath[passkeyRegisterBegin] = methods{"POST": si.postPasskeyRegisterBegin}
		s.byPath[passkeyRegisterFinish] = methods{"POST": si.postPasskeyRegisterFinish}
		s.byPath[passkeySignInBegin] = methods{"POST": si.postPasskeySignInBegin}
		s.byPath[passkeySignInFinish] = methods{"POST": si.postPasskeySignInFinish}
		if s.portal != nil {
			s.portal.routes(s.byPath)
		}
		if s.staff != nil {
			s.staff.routes(s.byPath)
		}
	}
	s.highlight = methods{"DELETE": s.app(h.deleteHighlights)}
	s.appInfo = methods{"GET": s.app(a.getApp)}
	s.permissions = methods{"GET": s.app(a.getPermissions)}
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
// ServeMux answers. HEAD is served as GET; fasthttp drops the body.
//
// /metrics and /readyz need no edge token: they are for the operator's
// scraper and probes, on the same private network as the rest of the
// service's port (the edge answers its own /readyz and forwards neither).
// Every other request is timed by route and status.
func (s *Server) Handler(ctx *fasthttp.RequestCtx) {
	start := time.Now()
	switch string(ctx.Path()) {
	case "/metrics":
		if ctx.IsGet() {
			s.metrics.serve(ctx)
			s.logRequest(ctx, "/metrics", start)
			return
		}
	case "/readyz":
		if ctx.IsGet() || ctx.IsHead() {
			s.readyz(ctx)
			s.logRequest(ctx, "/readyz", start)
			return
		}
	}
	route := s.serve(ctx)
	s.metrics.observe(route, ctx.Response.StatusCode(), time.Since(start))
	s.logRequest(ctx, route, start)
}

// logRequest writes the access-log line of a request answered: the
// fields of the edge's line, with the route pattern (a bounded set), and
// the app and the request id (the id of the edge's line) the edge vouched
// for. The path is logged without its query, which may carry a
// data-exchange token. id is this process's number for the request.
func (s *Server) logRequest(ctx *fasthttp.RequestCtx, route string, start time.Time) {
	if s.cfg.AccessLog == nil {
		return
	}
	app, requestID := "", ""
	if wire.EdgeTokenOK(ctx.Request.Header.Peek(wire.HeaderEdgeToken), s.cfg.EdgeToken) {
		app = string(ctx.Request.Header.Peek(wire.HeaderVerifiedAppID))
		requestID = string(ctx.Request.Header.Peek(wire.HeaderRequestID))
	}
	s.cfg.AccessLog.LogAttrs(context.Background(), slog.LevelInfo, "request",
		slog.Uint64("id", ctx.ID()),
		slog.String("method", string(ctx.Method())),
		slog.String("path", string(ctx.Path())),
		slog.String("route", route),
		slog.Int("status", ctx.Response.StatusCode()),
		slog.Int("bytes", len(ctx.Response.Body())),
		slog.Int64("duration_us", time.Since(start).Microseconds()),
		slog.String("remote", ctx.RemoteIP().String()),
		slog.String("app", app),
		slog.String("request_id", requestID))
}

// readyTimeout bounds each check of /readyz: a probe must be answered
// before the prober gives up on it.
const readyTimeout = 2 * time.Second

// readyz answers 200 when this instance can serve: PostgreSQL answers a
// round trip and the content store's current build can be read now. Else
// 503 with the reason, so a balancer stops sending it requests that would
// fail and the operator sees which dependency is down.
func (s *Server) readyz(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.Response.Header.Set("Cache-Control", "no-store")
	c, cancel := context.WithTimeout(s.runContext(), readyTimeout)
	defer cancel()
	if err := s.cfg.DB.Ping(c); err != nil {
		ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
		ctx.SetBodyString("PostgreSQL unreachable: " + err.Error() + "\n")
		return
	}
	build, err := s.content.Ready(c)
	if err != nil {
		ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
		ctx.SetBodyString(err.Error() + "\n")
		return
	}
	ctx.SetBodyString("ready: build " + build + "\n")
}

// runContext is the server's run context, or Background before Open (a
// Handler used directly in tests).
func (s *Server) runContext() context.Context {
	if s.ctx != nil {
		return s.ctx
	}
	return context.Background()
}

// serve answers one request and returns the route it matched.
func (s *Server) serve(ctx *fasthttp.RequestCtx) string {
	if wire.RefuseAmbiguousFraming(ctx) {
		return "other"
	}
	if !wire.EdgeTokenOK(ctx.Request.Header.Peek(wire.HeaderEdgeToken), s.cfg.EdgeToken) {
		fault(ctx, wire.FaultInvalidEdgeToken)
		return "other"
	}
	m, route := s.route(ctx, string(ctx.Path()))
	if m == nil {
		// Every error in the spec's JSON shape, an unknown path too.
		refuse(ctx, problem.NotFound, problem.NoRoute)
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
		refuse(ctx, problem.NotAllowed, problem.NotAllowed.Text())
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
		MaxRequestBodySize:    wire.MaxRequestBody,
		ReadBufferSize:        maxRequestHeader,
		ErrorHandler:          requestError,
		Logger:                fasthttpLogger{s.log},
		// A request that fails to parse is logged without its bytes:
		// they carry the edge token and users' bearer tokens.
		SecureErrorLogMessage: true,
	}
	go s.srv.Serve(wire.LingerListener{Listener: ln})
	return nil
}

// maxRequestHeader is the most request-header bytes read: the edge's
// bound, so that whatever the edge forwards fits.
const maxRequestHeader = wire.MaxRequestHeader

// requestError answers a request the server could not read as
// wire.UnreadRequest says.
func requestError(ctx *fasthttp.RequestCtx, err error) {
	status, msg, linger := wire.UnreadRequest(err)
	message(ctx, status, msg)
	if linger {
		wire.LingerOnClose(ctx.Conn())
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

// housekeep purges expired tokens, highlight outcomes older than a day
// (a retry later than that is a new request) and old search counts.
func (s *Server) housekeep(ctx context.Context) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		dayAgo := s.now().Add(-24 * time.Hour)
		if err := s.exchange.store.PurgeExchangeTokens(ctx, dayAgo); err != nil && ctx.Err() == nil {
			s.log.Error("dynamic: purge data exchange tokens", "err", err)
		}
		if err := s.highlights.store.PurgeHighlightRequests(ctx, dayAgo); err != nil && ctx.Err() == nil {
			s.log.Error("dynamic: purge highlight requests", "err", err)
		}
		if err := s.trends.purgeSearchQueries(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("dynamic: purge search queries", "err", err)
		}
		if si := s.signIn; si.provider != nil {
			now := s.now()
			if err := si.accounts.PurgeAccounts(ctx, now.Add(-accounts.ThrottleWindow)); err != nil && ctx.Err() == nil {
				s.log.Error("dynamic: purge accounts", "err", err)
			}
			if err := si.oauth.PurgeOAuth(ctx, now); err != nil && ctx.Err() == nil {
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

func writeJSON(ctx *fasthttp.RequestCtx, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		refuse(ctx, problem.Internal, problem.Internal.Text())
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

func message(ctx *fasthttp.RequestCtx, status int, msg problem.Text) {
	writeBody(ctx, status, wire.AppendMessage(nil, msg))
}

// detail is one entry of a 422 body (DESIGN.md), made by one of
// wire/problem's rules.
type detail = problem.Detail

func validation(ctx *fasthttp.RequestCtx, d ...detail) {
	writeBody(ctx, http.StatusUnprocessableEntity, wire.AppendValidation(nil, d...))
}
