package dynamic

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic/jwt"
	"github.com/bibleplatform/platform/publish"
)

// Headers the edge sets on every request it forwards. Dynamic believes the
// app id only when the edge token matches: anyone else could set it.
const (
	HeaderVerifiedAppID = "X-Verified-App-Id"
	HeaderEdgeToken     = "X-Edge-Token"
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
	Log      *slog.Logger
}

// Server is the dynamic service. Open starts it; tests start it in process
// on port 0.
type Server struct {
	cfg     Config
	now     func() time.Time
	log     *slog.Logger
	content *Content
	feed    *accessFeed
	handler http.Handler

	users  tokenCache
	grants sync.Map // user|app|permission → struct{} (grants are never withdrawn)

	ln     net.Listener
	srv    *fasthttp.Server
	cancel context.CancelFunc
	done   sync.WaitGroup
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
	s.handler = s.routes()
	return s
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /internal/access", s.feed.serveAccess)
	mux.HandleFunc("GET /v1/highlights", s.app(s.getHighlights))
	mux.HandleFunc("POST /v1/highlights", s.app(s.postHighlights))
	mux.HandleFunc("DELETE /v1/highlights/{passage_id}", s.app(s.deleteHighlights))
	mux.HandleFunc("GET /v1/licenses", s.app(s.getLicenses))
	mux.HandleFunc("GET /v1/apps/{app_id}", s.app(s.getApp))
	mux.HandleFunc("GET /v1/apps/{app_id}/permissions", s.app(s.getPermissions))
	mux.HandleFunc("POST /data-exchange/token", s.app(s.postExchangeToken))
	mux.HandleFunc("GET /data-exchange", s.app(s.getExchange))
	mux.HandleFunc("POST /data-exchange", s.app(s.postExchange))
	return s.edgeOnly(jsonErrors(mux))
}

// jsonErrors answers what mux has no route for in the spec's JSON shape,
// like every other error: 404 for an unknown path, 405 (with mux's Allow)
// for a known path and another method, instead of ServeMux's text/plain.
func jsonErrors(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		rec := &headerOnly{header: http.Header{}}
		h.ServeHTTP(rec, r)
		if rec.status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", rec.header.Get("Allow"))
			message(w, http.StatusMethodNotAllowed, "Method not allowed.")
			return
		}
		message(w, http.StatusNotFound, "Not found: no such route.")
	})
}

// headerOnly records the status and headers mux's own 404/405 handler
// writes, and drops its text/plain body.
type headerOnly struct {
	header http.Header
	status int
}

func (h *headerOnly) Header() http.Header         { return h.header }
func (h *headerOnly) WriteHeader(status int)      { h.status = status }
func (h *headerOnly) Write(b []byte) (int, error) { return len(b), nil }

// maxRequestBody is the largest request body dynamic takes, the edge's
// limit too (edge.MaxRequestBody): a highlight, a token request or the
// approval form are far below it.
const maxRequestBody = 64 << 10

// decodeBody decodes r's JSON body into v. A body over maxRequestBody is
// 413 with {message}; a malformed one 422. It has answered when false.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBody)).Decode(v)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		message(w, http.StatusRequestEntityTooLarge, "The request body is larger than 64 KiB, the most any route takes.")
		return false
	case err != nil:
		validation(w, bodyError(err))
		return false
	}
	return true
}

// Handler is the service's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

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
	s.ln, s.cancel = ln, cancel
	listening := make(chan struct{})
	s.done.Add(2)
	go func() { defer s.done.Done(); s.feed.run(runCtx, listening) }()
	go func() { defer s.done.Done(); s.housekeep(runCtx) }()
	select {
	case <-listening:
	case <-time.After(5 * time.Second):
		s.log.Warn("dynamic: LISTEN not established yet; polling meanwhile")
	}
	// Requests see runCtx, which Close cancels: that ends long polls.
	s.srv = &fasthttp.Server{
		Handler:               fastHandler(s.handler, runCtx),
		ReadTimeout:           10 * time.Second,
		IdleTimeout:           2 * time.Minute,
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		Logger:                fasthttpLogger{s.log},
	}
	go s.srv.Serve(ln)
	return nil
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
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// edgeOnly refuses any request that does not carry the edge's secret, with
// the gateway's fault envelope (DESIGN.md) and no Access-Control headers.
func (s *Server) edgeOnly(next http.Handler) http.Handler {
	want := []byte(s.cfg.EdgeToken)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get(HeaderEdgeToken))
		if len(want) == 0 || subtle.ConstantTimeCompare(got, want) != 1 {
			fault(w, "Invalid edge token", "dynamic.InvalidEdgeToken")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// caller is what a request may rely on once the edge vouched for it.
type caller struct {
	AppID string
}

// app requires the verified app id the edge injects on app routes.
func (s *Server) app(h func(http.ResponseWriter, *http.Request, caller)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(HeaderVerifiedAppID)
		if !bible.ValidUUID(id) {
			fault(w, "Failed to resolve API Key variable request.header.x-svc-app-key", "steps.oauth.v2.FailedToResolveAPIKey")
			return
		}
		h(w, r, caller{AppID: strings.ToLower(id)})
	}
}

func fault(w http.ResponseWriter, faultstring, errorcode string) {
	type detail struct {
		Errorcode string `json:"errorcode"`
	}
	type f struct {
		Faultstring string `json:"faultstring"`
		Detail      detail `json:"detail"`
	}
	writeJSON(w, http.StatusUnauthorized, struct {
		Fault f `json:"fault"`
	}{f{faultstring, detail{errorcode}}})
}

// user authenticates the bearer token and returns the user id (the token's
// subject, a UUID). It answers 401 itself when there is none.
func (s *Server) user(w http.ResponseWriter, r *http.Request) (string, bool) {
	auth := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="platform"`)
		message(w, http.StatusUnauthorized, "A user bearer token is required (Authorization: Bearer …).")
		return "", false
	}
	id, err := s.verifyUser(r.Context(), strings.TrimSpace(tok))
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="platform", error="invalid_token"`)
		message(w, http.StatusUnauthorized, "The bearer token is not valid.")
		return "", false
	}
	return id, true
}

func (s *Server) verifyUser(ctx context.Context, tok string) (string, error) {
	now := s.now()
	if id, ok := s.users.get(tok, now); ok {
		return id, nil
	}
	if s.cfg.Users == nil {
		return "", errors.New("no user token verifier configured")
	}
	v := *s.cfg.Users
	v.Now = s.now
	c, err := v.Verify(ctx, tok)
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

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, `{"message":"Internal error."}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
}

func message(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"message": msg})
}

// detail is one entry of a 422 body (DESIGN.md).
type detail struct {
	Loc  []string `json:"loc"`
	Msg  string   `json:"msg"`
	Type string   `json:"type"`
}

func validation(w http.ResponseWriter, d ...detail) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string][]detail{"detail": d})
}

// fail answers for a domain error. The status table is the one place
// domain errors become HTTP statuses; a 5xx never shows the error's text.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := errorStatus(err)
	if status >= 500 {
		s.log.Error("dynamic: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryUnavailable)
	}
	message(w, status, msg)
}

// retryUnavailable is the Retry-After of a 503: PostgreSQL restarting
// takes seconds, and the pool reconnects on the next request.
const retryUnavailable = "5"

func errorStatus(err error) (int, string) {
	for _, e := range []struct {
		err    error
		status int
		msg    string
	}{
		{ErrNotFound, http.StatusNotFound, ""},
		{ErrConflict, http.StatusConflict, ""},
		{ErrInvalid, http.StatusBadRequest, ""},
		{ErrTokenUsed, http.StatusGone, ""},
		{ErrTokenExpired, http.StatusGone, ""},
		{ErrUnavailable, http.StatusServiceUnavailable, "User data is temporarily unavailable; retry shortly."},
	} {
		if errors.Is(err, e.err) {
			if e.msg != "" {
				return e.status, e.msg
			}
			return e.status, capitalize(err.Error()) + "."
		}
	}
	return http.StatusInternalServerError, "Internal error."
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
