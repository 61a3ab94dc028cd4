// Package dev answers the developer surface, public and without a key:
// the OpenAPI document, the reader page, its configuration and its
// assets.
package dev

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/wire/problem"
	"github.com/valyala/fasthttp"
)

// The reader page at / and the published assets under /assets/: static
// files embedded from edge/internal/dev/web, no build step. The page uses the API as any
// app does (docs/clients.md); passage.css is the stylesheet for passage
// HTML that app developers link or copy.
//
// Assets are served at /assets/<hash>/<file>, where the hash names their
// content: immutable for a year, like font files. An older hash answers 301
// to the current one; /assets/<file> answers 302 to it, for a page that
// wants "the current stylesheet" without knowing its hash.

//go:embed web
var webFiles embed.FS

var (
	pathReaderConfig = []byte("/reader/config.json")
	prefixAssets     = []byte("/assets/")
)

// buildTime is Last-Modified for the embedded files: the binary's own
// modification time, which changes with every build that could change them.
var buildTime = func() time.Time {
	exe, err := os.Executable()
	if err != nil {
		return time.Time{}
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}()

type asset struct {
	hash string
	res  *represent.Resource
}

type readerFiles struct {
	assets map[string]asset // by file name
	page   *represent.Resource
	csp    []byte // the page's Content-Security-Policy
}

var assetTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
}

// readerSite prepares the assets and the page once per process.
var readerSite = sync.OnceValues(func() (*readerFiles, error) {
	rf := &readerFiles{assets: map[string]asset{}}
	for _, name := range []string{"passage.css", "reader.css", "reader.js"} {
		b, err := webFiles.ReadFile("web/" + name)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		res := compose.NewResource(b, assetTypes[name[strings.LastIndexByte(name, '.'):]], buildTime, compose.Kept)
		rf.assets[name] = asset{hash: hex.EncodeToString(sum[:6]), res: res}
	}
	page, err := webFiles.ReadFile("web/index.html")
	if err != nil {
		return nil, err
	}
	html := string(page)
	for name, a := range rf.assets {
		html = strings.ReplaceAll(html, "{{asset "+name+"}}", "/assets/"+a.hash+"/"+name)
	}
	// The script is allowed by its hash, which its tag carries as
	// integrity (CSP 3 matches an external script's integrity against
	// hash sources): the page is cached and compressed once, so it cannot
	// carry a nonce per request, and only this file may run on it.
	js, err := webFiles.ReadFile("web/reader.js")
	if err != nil {
		return nil, err
	}
	jsSum := sha256.Sum256(js)
	jsHash := "sha256-" + base64.StdEncoding.EncodeToString(jsSum[:])
	html = strings.ReplaceAll(html, "{{integrity reader.js}}", jsHash)
	rf.page = compose.NewResource([]byte(html), "text/html; charset=utf-8", buildTime, compose.Kept)
	rf.csp = []byte("default-src 'none'; script-src '" + jsHash + "'; style-src 'self'; connect-src 'self'; " +
		"img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	return rf, nil
})

var (
	hdrCSP          = []byte("Content-Security-Policy")
	hdrFrameOptions = []byte("X-Frame-Options")
	valDeny         = []byte("DENY")
)

var valNoCache = []byte("no-cache")

// Surface answers the developer surface. It holds the log and the App Key
// the reader page is given.
type Surface struct {
	log          *slog.Logger
	readerAppKey string // given to the reader page; "": it asks its user
}

// New returns the developer surface; readerAppKey is given to the reader
// page ("": the page asks its user for one).
func New(log *slog.Logger, readerAppKey string) *Surface {
	return &Surface{log: log, readerAppKey: readerAppKey}
}

// Serve answers the developer surface's paths; it reports false for any
// other path.
func (s *Surface) Serve(ctx *fasthttp.RequestCtx, path []byte) bool {
	return s.serveOpenAPI(ctx, path) || s.serveReader(ctx, path)
}

// serveReader serves /, /reader/config.json and /assets/…; it reports
// false for any other path.
func (s *Surface) serveReader(ctx *fasthttp.RequestCtx, path []byte) bool {
	isAsset := bytes.HasPrefix(path, prefixAssets)
	if !isAsset && string(path) != "/" && !bytes.Equal(path, pathReaderConfig) {
		return false
	}
	if !ctx.IsGet() && !ctx.IsHead() {
		respond.MethodNotAllowed(ctx, "GET, HEAD")
		return true
	}
	rf, err := readerSite()
	if err != nil {
		respond.Fail(ctx, s.log, problem.Internal, "the reader page", err)
		return true
	}
	switch {
	case string(path) == "/":
		represent.Serve(ctx, rf.page, false)
		// The page names versioned assets, so it is revalidated on every
		// use (a 304 when unchanged) rather than kept with stale asset URLs.
		ctx.Response.Header.SetCanonical(respond.HdrCacheControl, valNoCache)
		// Nothing but its own script runs on the page, and no other site
		// may frame it (X-Frame-Options for browsers without CSP 2).
		ctx.Response.Header.SetCanonical(hdrCSP, rf.csp)
		ctx.Response.Header.SetCanonical(hdrFrameOptions, valDeny)
	case bytes.Equal(path, pathReaderConfig):
		s.readerConfig(ctx)
	default:
		serveAsset(ctx, rf, path[len(prefixAssets):])
	}
	return true
}

// readerConfig gives the page its App Key when the edge was started with
// one for it (Config.ReaderAppKey; make run passes the demo app's). Without
// it the page asks the user for a key.
func (s *Surface) readerConfig(ctx *fasthttp.RequestCtx) {
	if s.readerAppKey == "" {
		respond.Answer(ctx, problem.NotFound, problem.NoReaderKey)
		return
	}
	b, _ := json.Marshal(struct {
		AppKey string `json:"app_key"`
	}{s.readerAppKey})
	respond.JSON(ctx, fasthttp.StatusOK, b)
}

func serveAsset(ctx *fasthttp.RequestCtx, rf *readerFiles, rest []byte) {
	hash, name, versioned := bytes.Cut(rest, []byte("/"))
	if !versioned {
		name = hash
	}
	a, ok := rf.assets[string(name)]
	if !ok {
		respond.Answer(ctx, problem.NotFound, problem.AssetNotFound)
		return
	}
	current := "/assets/" + a.hash + "/" + string(name)
	switch {
	case !versioned:
		ctx.Response.Header.Set("Location", current)
		ctx.Response.Header.SetCanonical(respond.HdrCacheControl, valNoCache)
		ctx.SetStatusCode(fasthttp.StatusFound)
	case string(hash) != a.hash:
		ctx.Response.Header.Set("Location", current)
		ctx.Response.Header.SetCanonical(respond.HdrCacheControl, represent.ValCachePublic)
		ctx.SetStatusCode(fasthttp.StatusMovedPermanently)
	default:
		represent.Serve(ctx, a.res, false)
		// The URL names the content: immutable, on a 304 too (RFC 9110
		// §15.4.5 wants the 200's Cache-Control there).
		ctx.Response.Header.SetCanonical(respond.HdrCacheControl, represent.ValCacheImmutable)
	}
}
