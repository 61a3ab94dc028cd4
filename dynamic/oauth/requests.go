package oauth

import (
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// authRequest is an AuthRequest as op reads it.
type authRequest struct{ AuthRequest }

func (r *authRequest) GetID() string          { return r.ID }
func (r *authRequest) GetACR() string         { return "" }
func (r *authRequest) GetAMR() []string       { return []string{"pwd"} }
func (r *authRequest) GetAudience() []string  { return []string{r.ClientID} }
func (r *authRequest) GetAuthTime() time.Time { return r.AuthTime }
func (r *authRequest) GetClientID() string    { return r.ClientID }
func (r *authRequest) GetCodeChallenge() *oidc.CodeChallenge {
	if r.CodeChallenge == "" {
		return nil
	}
	return &oidc.CodeChallenge{Challenge: r.CodeChallenge, Method: oidc.CodeChallengeMethod(r.CodeChallengeMethod)}
}
func (r *authRequest) GetNonce() string                   { return r.Nonce }
func (r *authRequest) GetRedirectURI() string             { return r.RedirectURI }
func (r *authRequest) GetResponseType() oidc.ResponseType { return oidc.ResponseType(r.ResponseType) }
func (r *authRequest) GetResponseMode() oidc.ResponseMode { return oidc.ResponseMode(r.ResponseMode) }
func (r *authRequest) GetScopes() []string                { return r.Scopes }
func (r *authRequest) GetState() string                   { return r.State }
func (r *authRequest) GetSubject() string                 { return r.AccountID }
func (r *authRequest) Done() bool                         { return r.AccountID != "" }

// refreshRequest is a refresh token's family as op reads it.
type refreshRequest struct {
	f      Family
	scopes []string
}

func (r *refreshRequest) GetAMR() []string             { return []string{"pwd"} }
func (r *refreshRequest) GetAudience() []string        { return []string{r.f.ClientID} }
func (r *refreshRequest) GetAuthTime() time.Time       { return r.f.AuthTime }
func (r *refreshRequest) GetClientID() string          { return r.f.ClientID }
func (r *refreshRequest) GetScopes() []string          { return r.scopes }
func (r *refreshRequest) GetSubject() string           { return r.f.AccountID }
func (r *refreshRequest) SetCurrentScopes(sc []string) { r.scopes = sc }

// opClient is an app as op reads a client: public (no secret), PKCE, code
// and refresh_token grants, JWT access tokens.
type opClient struct {
	id string // the App Key
	c  *Client
}

func (c *opClient) GetID() string                       { return c.id }
func (c *opClient) RedirectURIs() []string              { return c.c.RedirectURIs }
func (c *opClient) PostLogoutRedirectURIs() []string    { return nil }
func (c *opClient) ApplicationType() op.ApplicationType { return op.ApplicationTypeNative }
func (c *opClient) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodNone }
func (c *opClient) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *opClient) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken}
}

// LoginURL is the platform's page that signs the user in and asks what
// must be asked, then completes the request.
func (c *opClient) LoginURL(id string) string           { return ContinuePath + "?id=" + id }
func (c *opClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (c *opClient) IDTokenLifetime() time.Duration      { return TokenLifetime }

// DevMode lets registered http:// and custom-scheme callbacks through op's
// scheme policy; CreateAuthRequest still requires a registered URL, byte
// for byte, and registration decides which are acceptable.
func (c *opClient) DevMode() bool { return true }
func (c *opClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *opClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *opClient) IsScopeAllowed(string) bool           { return false }
func (c *opClient) IDTokenUserinfoClaimsAssertion() bool { return true }
func (c *opClient) ClockSkew() time.Duration             { return 0 }
