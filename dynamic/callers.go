package dynamic

// Who is calling: the app the edge verified, the user a bearer token names
// (verified tokens cached until they expire), and whether that user granted
// the app a permission.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic/jwt"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// caller is what a request may rely on once the edge vouched for it.
type caller struct {
	AppID string
}

// app requires the verified app id the edge injects on app routes.
func (s *Server) app(h func(*fasthttp.RequestCtx, caller)) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		id := string(ctx.Request.Header.Peek(wire.HeaderVerifiedAppID))
		if !bible.ValidUUID(id) {
			fault(ctx, wire.FaultMissingKey)
			return
		}
		h(ctx, caller{AppID: strings.ToLower(id)})
	}
}

// fault answers the gateway's 401 envelope (DESIGN.md), without
// Access-Control headers.
func fault(ctx *fasthttp.RequestCtx, f wire.Fault) {
	writeBody(ctx, http.StatusUnauthorized, wire.AppendFault(nil, f))
}

// user authenticates the bearer token and returns the user id (the token's
// subject, a UUID). It answers 401 itself when there is none.
//
// The token is copied out of fasthttp's buffers (string conversion): the
// verified-token cache keeps it, and the buffers are reused by the next
// request.
func (r *requests) user(ctx *fasthttp.RequestCtx) (string, bool) {
	auth := string(ctx.Request.Header.Peek("Authorization"))
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="platform"`)
		refuse(ctx, problem.Unauthenticated, problem.BearerRequired)
		return "", false
	}
	id, err := r.verifyUser(r.ctx, strings.TrimSpace(tok))
	if err != nil {
		ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="platform", error="invalid_token"`)
		refuse(ctx, problem.Unauthenticated, problem.Unauthenticated.Text())
		return "", false
	}
	return id, true
}

func (r *requests) verifyUser(ctx context.Context, tok string) (string, error) {
	now := r.now()
	if id, ok := r.users.get(tok, now); ok {
		return id, nil
	}
	c, err := r.verifyToken(ctx, tok)
	if err != nil {
		return "", err
	}
	if !bible.ValidUUID(c.Subject) {
		return "", fmt.Errorf("%w: subject is not a user id", jwt.ErrInvalid)
	}
	id := strings.ToLower(c.Subject)
	r.users.put(tok, id, c.ExpiresAt)
	return id, nil
}

// verifyToken checks a bearer token against the external issuers
// configured (Users) and the platform's own provider, in that order.
func (r *requests) verifyToken(ctx context.Context, tok string) (*jwt.Claims, error) {
	err := errors.New("no user token verifier configured")
	for _, v := range []*jwt.Verifier{r.verifier, r.own} {
		if v == nil {
			continue
		}
		vv := *v
		vv.Now = r.now
		var c *jwt.Claims
		if c, err = vv.Verify(ctx, tok); err == nil {
			if v == r.own && c.ID == "" {
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

// grantCheck answers whether a user granted an app a permission,
// remembering yeses: a grant is never withdrawn, so a cached yes cannot go
// stale.
type grantCheck struct {
	store   GrantStore
	granted sync.Map // user|app|permission → struct{}
}

func (g *grantCheck) has(ctx context.Context, user, app, perm string) (bool, error) {
	k := user + "|" + app + "|" + perm
	if _, ok := g.granted.Load(k); ok {
		return true, nil
	}
	ok, err := g.store.HasGrant(ctx, user, app, perm)
	if ok {
		g.granted.Store(k, struct{}{})
	}
	return ok, err
}

// Responses.
