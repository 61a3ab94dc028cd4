package dev

import (
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/openapi"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire/problem"
)

// The OpenAPI document (openapi/openapi.yaml) at /v1/openapi.json and
// /v1/openapi.yaml, public (no App Key: a developer reads it before having
// one), with the edge's usual validators, caching and encodings.
const (
	pathOpenAPIJSON = "/v1/openapi.json"
	pathOpenAPIYAML = "/v1/openapi.yaml"
)

// openapiDocs prepares both forms once per process: they are embedded, so
// every server of the process serves the same bytes.
var openapiDocs = sync.OnceValues(func() ([2]*represent.Resource, error) {
	js, err := openapi.JSON()
	if err != nil {
		return [2]*represent.Resource{}, err
	}
	j := compose.NewResource(js, publish.JSON, buildTime, compose.Kept)
	y := compose.NewResource(openapi.YAML, "application/yaml; charset=utf-8", buildTime, compose.Kept)
	return [2]*represent.Resource{j, y}, nil
})

// serveOpenAPI reports false when path is not the document's.
func (s *Surface) serveOpenAPI(ctx *fasthttp.RequestCtx, path []byte) bool {
	i := 0
	switch string(path) { // compared in place, no copy
	case pathOpenAPIJSON:
	case pathOpenAPIYAML:
		i = 1
	default:
		return false
	}
	if !ctx.IsGet() && !ctx.IsHead() {
		respond.MethodNotAllowed(ctx, "GET, HEAD")
		return true
	}
	docs, err := openapiDocs()
	if err != nil {
		respond.Fail(ctx, s.log, problem.Internal, "the OpenAPI document", err)
		return true
	}
	represent.Serve(ctx, docs[i], false)
	return true
}
