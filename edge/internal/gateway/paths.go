package gateway

import "bytes"

// Routes owned by the dynamic service (the edge authenticates and forwards).
var (
	gwHighlights   = []byte("/v1/highlights")
	gwLicenses     = []byte("/v1/licenses")
	gwApps         = []byte("/v1/apps/")
	gwDataExchange = []byte("/data-exchange")
	// Sign-in: the platform's pages and its OpenID provider (docs/sign-in.md).
	gwAuth      = []byte("/auth/")
	gwDiscovery = []byte("/.well-known/openid-configuration")
	gwJWKS      = []byte("/.well-known/jwks.json")
	// The developer portal (docs/portal.md): pages for a signed-in
	// account, no App Key.
	gwDevelopers = []byte("/developers")
)

// IsPath reports the routes the gateway forwards.
func IsPath(p []byte) bool {
	switch {
	case bytes.Equal(p, gwHighlights), bytes.HasPrefix(p, gwHighlights) && p[len(gwHighlights)] == '/':
		return true
	case bytes.Equal(p, gwLicenses):
		return true
	case bytes.HasPrefix(p, gwApps) && len(p) > len(gwApps):
		return true
	case bytes.Equal(p, gwDataExchange), bytes.HasPrefix(p, gwDataExchange) && p[len(gwDataExchange)] == '/':
		return true
	case isSignIn(p):
		return true
	}
	return false
}

// isSignIn reports the sign-in routes, which name their app (if any) by
// client_id, the App Key, and the developer portal's pages, which need
// none.
func isSignIn(p []byte) bool {
	return bytes.HasPrefix(p, gwAuth) && len(p) > len(gwAuth) || bytes.Equal(p, gwDiscovery) || bytes.Equal(p, gwJWKS) ||
		bytes.Equal(p, gwDevelopers) || bytes.HasPrefix(p, gwDevelopers) && p[len(gwDevelopers)] == '/'
}

func isDataExchange(p []byte) bool { return bytes.HasPrefix(p, gwDataExchange) }
