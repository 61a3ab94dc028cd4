package catalog

import (
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
)

// A Host header that is not a host cannot be put into URLs.
func TestPublicBase(t *testing.T) {
	s := New(Config{Authz: authz.New(authz.Config{})})
	for host, want := range map[string]bool{"edge.test": true, "[::1]:8080": true, `a"b`: false, "a b": false, "a/b": false, "": false} {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI("/v1/fonts/1")
		ctx.Request.Header.SetHost(host)
		if _, _, ok := s.publicBase(&ctx); ok != want {
			t.Errorf("Host %q: ok %v, want %v", host, ok, want)
		}
	}
}
