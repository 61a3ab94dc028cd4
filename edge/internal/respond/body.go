package respond

import (
	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// Message writes the API's usual error shape, {"message": …}.
func Message(ctx *fasthttp.RequestCtx, status int, msg problem.Text) {
	var buf [256]byte
	JSON(ctx, status, wire.AppendMessage(buf[:0], msg))
}

// JSON writes body as an uncacheable JSON answer with status.
func JSON(ctx *fasthttp.RequestCtx, status int, body []byte) {
	ctx.Response.Header.SetCanonical(HdrCacheControl, ValNoStore)
	ctx.SetContentType(publish.JSON)
	ctx.SetStatusCode(status)
	ctx.SetBody(body)
}

// RouteNotFound answers a path no route serves.
func RouteNotFound(ctx *fasthttp.RequestCtx) { Answer(ctx, problem.NotFound, problem.NoRoute) }

// MethodNotAllowed answers a method the route does not serve, naming those
// it does.
func MethodNotAllowed(ctx *fasthttp.RequestCtx, allow string) {
	ctx.Response.Header.Set("Allow", allow)
	Generic(ctx, problem.NotAllowed)
}

// Fault is the gateway's 401 envelope (DESIGN.md), as the reference
// service's API gateway spells it. It never carries Access-Control-*.
func Fault(ctx *fasthttp.RequestCtx, f wire.Fault) {
	var buf [256]byte
	JSON(ctx, fasthttp.StatusUnauthorized, wire.AppendFault(buf[:0], f))
}

// Invalid is the 422 validation shape (DESIGN.md) with one entry, made
// by one of wire/problem's rules.
func Invalid(ctx *fasthttp.RequestCtx, d problem.Detail) {
	var buf [512]byte
	JSON(ctx, fasthttp.StatusUnprocessableEntity, wire.AppendValidation(buf[:0], d))
}
