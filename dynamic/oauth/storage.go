package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/dynamic/accounts"
)

// Lifetimes.
const (
	// TokenLifetime is the access and ID tokens' (the live clients' test
	// data say 3600 s).
	TokenLifetime = time.Hour
	// CodeLifetime bounds the time between the redirect and the exchange
	// (RFC 6749 §4.1.2 recommends at most ten minutes).
	CodeLifetime = time.Minute
	// RequestLifetime bounds the time a user has to sign in and agree.
	RequestLifetime = 30 * time.Minute
	// RefreshLifetime is a refresh token's; each rotation starts anew.
	RefreshLifetime = 90 * 24 * time.Hour
)

// Extra is what /auth/authorize carries beyond OAuth 2.0 and OpenID
// Connect (sign-in.md): the platform permissions asked for and whether
// the user must click even when nothing needs asking.
type Extra struct {
	Permissions        []string
	RequireInteraction bool
}

type extraKey struct{}

// WithExtra hands an authorization request's Extra to CreateAuthRequest,
// which op calls with the request's context.
func WithExtra(ctx context.Context, e Extra) context.Context {
	return context.WithValue(ctx, extraKey{}, e)
}

// storage is op.Storage over Store.
type storage struct {
	store    Store
	accounts accounts.Store
	keys     *keyring
	now      func() time.Time
	// permissions are the names requested_permissions may hold.
	permissions []string
}

var (
	_ op.Storage                        = (*storage)(nil)
	_ op.CanSetUserinfoFromRequest      = (*storage)(nil)
	_ op.CanGetPrivateClaimsFromRequest = (*storage)(nil)
)

func hashValue(v string) []byte {
	h := sha256.Sum256([]byte(v))
	return h[:]
}

func randomToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// client finds a live app by its App Key.
func (s *storage) client(ctx context.Context, clientID string) (*Client, error) {
	if clientID == "" {
		return nil, errors.New("no client_id")
	}
	c, err := s.store.ClientByKeyHash(ctx, hashValue(clientID))
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if c.Status == access.StatusArchived {
		return nil, errors.New("client: the app is archived")
	}
	return c, nil
}

// GetClientByClientID implements op.OPStorage.
func (s *storage) GetClientByClientID(ctx context.Context, clientID string) (op.Client, error) {
	c, err := s.client(ctx, clientID)
	if err != nil {
		return nil, err
	}
	return &opClient{id: clientID, c: c}, nil
}

// CreateAuthRequest implements op.AuthStorage: the platform's policy on top
// of what op validated (client, redirect URI, scopes, response type).
func (s *storage) CreateAuthRequest(ctx context.Context, r *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	c, err := s.client(ctx, r.ClientID)
	if err != nil {
		return nil, oidc.ErrInvalidRequestRedirectURI().WithDescription("unknown or archived client_id").WithParent(err)
	}
	// op lets a native client's loopback redirect differ in its port
	// (RFC 8252 §7.3); registered URLs here match byte for byte.
	if !slices.Contains(c.RedirectURIs, r.RedirectURI) {
		return nil, oidc.ErrInvalidRequestRedirectURI().WithDescription("redirect_uri is not registered for this app")
	}
	switch {
	case r.State == "":
		return nil, oidc.ErrInvalidRequest().WithDescription("state is required")
	case r.CodeChallenge == "":
		return nil, oidc.ErrInvalidRequest().WithDescription("code_challenge is required (PKCE, S256)")
	case r.CodeChallengeMethod != oidc.CodeChallengeMethodS256:
		return nil, oidc.ErrInvalidRequest().WithDescription("code_challenge_method must be S256")
	}
	extra, _ := ctx.Value(extraKey{}).(Extra)
	var perms []string
	for _, p := range extra.Permissions {
		if !slices.Contains(s.permissions, p) {
			return nil, oidc.ErrInvalidRequest().WithDescription("requested_permissions: unknown permission (known: %s)",
				strings.Join(s.permissions, ", "))
		}
		if !slices.Contains(perms, p) {
			perms = append(perms, p)
		}
	}
	scopes := slices.Clone([]string(r.Scopes))
	// Every sign-in gets a refresh token (the live clients expect one
	// without asking for offline_access); op issues one only for it.
	if !slices.Contains(scopes, oidc.ScopeOfflineAccess) {
		scopes = append(scopes, oidc.ScopeOfflineAccess)
	}
	req := AuthRequest{
		ID: uuid.NewString(), AppID: c.AppID, ClientID: r.ClientID, RedirectURI: r.RedirectURI,
		State: r.State, Nonce: r.Nonce, Scopes: scopes, ResponseType: string(r.ResponseType),
		ResponseMode: string(r.ResponseMode), CodeChallenge: r.CodeChallenge,
		CodeChallengeMethod: string(r.CodeChallengeMethod), RequestedPermissions: perms,
		RequireInteraction: extra.RequireInteraction, CreatedAt: s.now(),
	}
	if req.RequestedPermissions == nil {
		req.RequestedPermissions = []string{}
	}
	if err := s.store.CreateAuthRequest(ctx, req); err != nil {
		return nil, oidc.ErrServerError().WithParent(err)
	}
	return &authRequest{req}, nil
}

// AuthRequestByID implements op.AuthStorage; a request older than
// RequestLifetime is gone.
func (s *storage) AuthRequestByID(ctx context.Context, id string) (op.AuthRequest, error) {
	r, err := s.Request(ctx, id)
	if err != nil {
		return nil, err
	}
	return &authRequest{*r}, nil
}

// Request is the authorization request id names, while it may still be
// completed.
func (s *storage) Request(ctx context.Context, id string) (*AuthRequest, error) {
	if uuid.Validate(id) != nil {
		return nil, errors.New("auth request: malformed id")
	}
	r, err := s.store.AuthRequest(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("auth request: %w", err)
	}
	if s.now().Sub(r.CreatedAt) > RequestLifetime || r.CodeAt != nil {
		return nil, errors.New("auth request: expired or answered")
	}
	return r, nil
}

// AuthRequestByCode implements op.AuthStorage.
func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	now := s.now()
	r, err := s.store.AuthRequestByCode(ctx, hashValue(code), now)
	if err != nil {
		return nil, fmt.Errorf("code: %w", err)
	}
	if r.CodeAt == nil || now.Sub(*r.CodeAt) > CodeLifetime {
		return nil, errors.New("code: expired")
	}
	return &authRequest{*r}, nil
}

// SaveAuthCode implements op.AuthStorage.
func (s *storage) SaveAuthCode(ctx context.Context, id, code string) error {
	return s.store.SaveCode(ctx, id, hashValue(code), s.now())
}

// DeleteAuthRequest implements op.AuthStorage. The request stays, marked
// used by StartFamily, so that a second exchange of its code is known as
// such (and revokes what the first issued) rather than as an unknown code.
func (s *storage) DeleteAuthRequest(context.Context, string) error { return nil }

// CreateAccessToken implements op.AuthStorage: access tokens are JWTs,
// verified by signature; nothing is stored.
func (s *storage) CreateAccessToken(context.Context, op.TokenRequest) (string, time.Time, error) {
	return uuid.NewString(), s.now().Add(TokenLifetime), nil
}

// CreateAccessAndRefreshTokens implements op.AuthStorage: the code
// exchange starts a family, a refresh rotates within it.
func (s *storage) CreateAccessAndRefreshTokens(ctx context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	now := s.now()
	next := randomToken()
	tok := RefreshToken{Hash: hashValue(next), CreatedAt: now, ExpiresAt: now.Add(RefreshLifetime)}
	switch r := req.(type) {
	case *authRequest:
		f := Family{ID: uuid.NewString(), AccountID: r.AccountID, AppID: r.AppID, ClientID: r.ClientID,
			Scopes: r.Scopes, AuthTime: r.AuthTime, AuthRequestID: r.ID, CreatedAt: now}
		if err := s.store.StartFamily(ctx, f, tok); err != nil {
			if errors.Is(err, ErrSpent) {
				return "", "", time.Time{}, oidc.ErrInvalidGrant().WithDescription("the code was already used")
			}
			return "", "", time.Time{}, err
		}
	case *refreshRequest:
		if err := s.store.Rotate(ctx, hashValue(current), tok, now); err != nil {
			if errors.Is(err, ErrSpent) {
				return "", "", time.Time{}, oidc.ErrInvalidGrant().WithDescription(
					"the refresh token was already used; every token of this sign-in is revoked")
			}
			return "", "", time.Time{}, err
		}
	default:
		return "", "", time.Time{}, oidc.ErrUnsupportedGrantType()
	}
	return uuid.NewString(), next, now.Add(TokenLifetime), nil
}

// TokenRequestByRefreshToken implements op.AuthStorage.
func (s *storage) TokenRequestByRefreshToken(ctx context.Context, token string) (op.RefreshTokenRequest, error) {
	now := s.now()
	t, err := s.store.RefreshToken(ctx, hashValue(token), now)
	if errors.Is(err, ErrSpent) {
		return nil, oidc.ErrInvalidGrant().WithDescription(
			"the refresh token was already used; every token of this sign-in is revoked")
	}
	if err != nil {
		return nil, oidc.ErrInvalidGrant().WithDescription("unknown refresh token").WithParent(err)
	}
	if t.Family.RevokedAt != nil || !now.Before(t.ExpiresAt) {
		return nil, oidc.ErrInvalidGrant().WithDescription("the refresh token is revoked or expired")
	}
	return &refreshRequest{f: t.Family, scopes: t.Family.Scopes}, nil
}

// TerminateSession implements op.AuthStorage; the end-session endpoint is
// not served (browser sessions end at /auth/sign-out).
func (s *storage) TerminateSession(context.Context, string, string) error { return nil }

// RevokeToken implements op.AuthStorage (RFC 7009): a refresh token
// revokes its family. Access tokens are self-contained JWTs that end within
// the hour; they are not recorded, so there is nothing to revoke (§2: the
// server may not support revoking them).
func (s *storage) RevokeToken(ctx context.Context, token, userID, clientID string) *oidc.Error {
	refresh, isRefresh := strings.CutPrefix(token, refreshTokenID)
	if !isRefresh && userID != "" {
		return nil // an access token's jti
	}
	if !isRefresh {
		refresh = token // not known as anything: revoked if it is a refresh token
	}
	if err := s.store.RevokeFamilyOf(ctx, hashValue(refresh), clientID, s.now()); err != nil {
		return oidc.ErrServerError().WithParent(err)
	}
	return nil
}

// GetRefreshTokenInfo implements op.AuthStorage. The token id it gives
// is the token marked as one (refreshTokenID), which RevokeToken
// recognises.
func (s *storage) GetRefreshTokenInfo(ctx context.Context, clientID, token string) (string, string, error) {
	t, err := s.store.RefreshToken(ctx, hashValue(token), s.now())
	if err != nil || t.Family.ClientID != clientID {
		return "", "", op.ErrInvalidRefreshToken
	}
	return t.Family.AccountID, refreshTokenID + token, nil
}

// refreshTokenID marks a refresh token handed from GetRefreshTokenInfo to
// RevokeToken, which op otherwise calls with an access token's jti.
const refreshTokenID = "refresh:"

// SigningKey implements op.AuthStorage.
func (s *storage) SigningKey(ctx context.Context) (op.SigningKey, error) {
	if err := s.keys.load(ctx); err != nil {
		return nil, err
	}
	s.keys.mu.Lock()
	defer s.keys.mu.Unlock()
	return s.keys.signing, nil
}

// SignatureAlgorithms implements op.AuthStorage.
func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

// KeySet implements op.AuthStorage: every key a live token may be signed
// with.
func (s *storage) KeySet(ctx context.Context) ([]op.Key, error) {
	if err := s.keys.load(ctx); err != nil {
		return nil, err
	}
	s.keys.mu.Lock()
	defer s.keys.mu.Unlock()
	keys := make([]op.Key, 0, len(s.keys.public))
	for _, k := range s.keys.public {
		keys = append(keys, publicKey{k})
	}
	return keys, nil
}

// AuthorizeClientIDSecret implements op.OPStorage: every client is public.
func (s *storage) AuthorizeClientIDSecret(context.Context, string, string) error {
	return errors.New("clients have no secret")
}

// SetUserinfoFromScopes implements op.OPStorage (superseded by
// SetUserinfoFromRequest).
func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

// SetUserinfoFromRequest fills the ID token's claims about the user: name
// for profile, email for email (sign-in.md).
func (s *storage) SetUserinfoFromRequest(ctx context.Context, info *oidc.UserInfo, req op.IDTokenRequest, scopes []string) error {
	a, err := s.accounts.Account(ctx, req.GetSubject())
	if err != nil {
		return fmt.Errorf("userinfo: %w", err)
	}
	info.Subject = a.ID
	for _, sc := range scopes {
		switch sc {
		case oidc.ScopeProfile:
			info.Name = a.DisplayName
		case oidc.ScopeEmail:
			info.Email = a.Email
			info.EmailVerified = false // no address is verified yet (docs/sign-in.md)
		}
	}
	return nil
}

// SetUserinfoFromToken implements op.OPStorage; the userinfo endpoint is
// not served.
func (s *storage) SetUserinfoFromToken(context.Context, *oidc.UserInfo, string, string, string) error {
	return errors.New("userinfo is not served")
}

// SetIntrospectionFromToken implements op.OPStorage; introspection is not
// served.
func (s *storage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errors.New("introspection is not served")
}

// GetPrivateClaimsFromScopes implements op.OPStorage (superseded by
// GetPrivateClaimsFromRequest).
func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

// GetPrivateClaimsFromRequest puts the granted scopes in the access token
// (sign-in.md: sub, scope, iss, exp, iat, jti, client_id).
func (s *storage) GetPrivateClaimsFromRequest(_ context.Context, req op.TokenRequest, _ []string) (map[string]any, error) {
	return map[string]any{"scope": strings.Join(req.GetScopes(), " ")}, nil
}

// GetKeyByIDAndClientID implements op.OPStorage; JWT client
// authentication is not offered.
func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("no client keys")
}

// ValidateJWTProfileScopes implements op.OPStorage; the JWT profile grant
// is not offered.
func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("jwt profile grant not offered")
}

// Health implements op.Storage.
func (s *storage) Health(context.Context) error { return nil }
