package dynamic

import (
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/wire"
)

// The router answers the edge token first, 404 for an unknown path, 405
// with Allow for a known path and another method, both in the spec's JSON
// shape like every other error, and the variable segment to the handler.
func TestRoutes(t *testing.T) {
	s := New(Config{EdgeToken: "secret"})
	const app = "e5aaf952-2601-4eb8-af08-bc2e48aa31fc"
	for _, tt := range []struct {
		name, method, uri string
		edge, app         string
		status            int
		allow, body       string
	}{
		{"no edge token", "GET", "/v1/licenses", "", app, 401, "", `"errorcode":"dynamic.InvalidEdgeToken"`},
		{"wrong edge token", "GET", "/nowhere", "secreT", app, 401, "", `"errorcode":"dynamic.InvalidEdgeToken"`},
		{"unknown path", "GET", "/nowhere", "secret", app, 404, "", `{"message":`},
		{"empty segment", "DELETE", "/v1/highlights/", "secret", app, 404, "", `{"message":`},
		{"two segments", "GET", "/v1/apps/a/b", "secret", app, 404, "", `{"message":`},
		{"under data exchange", "GET", "/data-exchange/nothing", "secret", app, 404, "", `{"message":`},
		{"wrong method", "PATCH", "/v1/highlights", "secret", app, 405, "GET, HEAD, POST, PUT", `{"message":`},
		{"recent colours", "POST", "/v1/highlights/recent-colors", "secret", app, 405, "GET, HEAD", `{"message":`},
		{"wrong method, variable path", "GET", "/v1/highlights/JHN.3", "secret", app, 405, "DELETE", `{"message":`},
		{"no app id", "GET", "/v1/apps/" + app, "secret", "", 401, "", `"errorcode":"steps.oauth.v2.FailedToResolveAPIKey"`},
		{"app id segment", "GET", "/v1/apps/nope", "secret", app, 422, "", `"loc":["path","app_id"]`},
		{"permissions segment", "HEAD", "/v1/apps/nope/permissions", "secret", app, 401, "", ""},
	} {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(tt.method)
		ctx.Request.SetRequestURI(tt.uri)
		if tt.edge != "" {
			ctx.Request.Header.Set(wire.HeaderEdgeToken, tt.edge)
		}
		if tt.app != "" {
			ctx.Request.Header.Set(wire.HeaderVerifiedAppID, tt.app)
		}
		s.Handler(&ctx)
		if got := ctx.Response.StatusCode(); got != tt.status {
			t.Errorf("%s: status %d (%s), want %d", tt.name, got, ctx.Response.Body(), tt.status)
		}
		if got := string(ctx.Response.Header.Peek("Allow")); got != tt.allow {
			t.Errorf("%s: Allow %q, want %q", tt.name, got, tt.allow)
		}
		if !strings.Contains(string(ctx.Response.Body()), tt.body) {
			t.Errorf("%s: body %s, want %s in it", tt.name, ctx.Response.Body(), tt.body)
		}
		if ct := string(ctx.Response.Header.ContentType()); tt.status >= 400 && !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: Content-Type %q, want JSON", tt.name, ct)
		}
	}
}

// A request the server cannot read is answered in the spec's shape: 413
// for a body over wire.MaxRequestBody.
func TestRequestError(t *testing.T) {
	var ctx fasthttp.RequestCtx
	requestError(&ctx, fasthttp.ErrBodyTooLarge)
	if ctx.Response.StatusCode() != 413 || !strings.Contains(string(ctx.Response.Body()), `"message"`) {
		t.Errorf("body too large: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
}
