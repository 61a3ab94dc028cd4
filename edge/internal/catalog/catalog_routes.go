// Package catalog answers the catalogue routes (docs/catalogue.md): the
// Bibles collection, languages, organizations, fonts and their files, and
// the verse of the day, composed from a catalogue built once per build.
package catalog

import (
	"bytes"
	"log/slog"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/edge/internal/paging"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/wire/problem"
)

// Catalogue paths (docs/catalogue.md).
var (
	pathBibles        = []byte("/v1/bibles")
	pathLanguages     = []byte("/v1/languages")
	pathOrganizations = []byte("/v1/organizations")
	pathFonts         = []byte("/v1/fonts")
	pathVOTD          = []byte("/v1/verse-of-the-days")
	// pathVOTDAlias is the spec's path, kept for ever as a deprecated alias
	// of the live service's canonical one (live-routes.md).
	pathVOTDAlias = []byte("/v1/verse_of_the_days")
)

// Routes answers the catalogue routes. It holds what they read: the
// access decisions, the pack tiers, the cache of composed answers, the
// bound on computations, and the settings that shape their bodies.
type Routes struct {
	log        *slog.Logger
	authz      *authz.Authz
	packs      *packs.Packs
	composed   *cache.LRU[*compose.Answer]
	compute    *compose.Computations // bounds the answers composed on demand
	publicURL  string                // scheme and host of absolute URLs (font sources); "": the request's
	pageTokens paging.Tokens         // seals the collections' page tokens
	votdIn     VerseOfDayIn          // the verse of the day in a Bible's numbering
}

// Config is what New needs.
type Config struct {
	Log      *slog.Logger
	Authz    *authz.Authz
	Packs    *packs.Packs
	Composed *cache.LRU[*compose.Answer]
	Compute  *compose.Computations
	// PublicURL is the scheme and host of absolute URLs (font sources);
	// "": the request's own, as a trusted proxy reports it.
	PublicURL  string
	PageTokens paging.Tokens
	// VerseOfDayIn answers the calendar (day 0) or a day in the numbering
	// of the Bible bibleID names (package content); nil: bible_id is not
	// read.
	VerseOfDayIn VerseOfDayIn
}

// VerseOfDayIn answers the verse of the day in one Bible's numbering.
type VerseOfDayIn func(ctx *fasthttp.RequestCtx, st *site.Site, bibleID []byte, day int)

// New returns the catalogue routes.
func New(cfg Config) *Routes {
	return &Routes{log: cfg.Log, authz: cfg.Authz, packs: cfg.Packs, composed: cfg.Composed, compute: cfg.Compute,
		publicURL: cfg.PublicURL, pageTokens: cfg.PageTokens, votdIn: cfg.VerseOfDayIn}
}

// Route is which catalogue route a path names.
type Route uint8

const (
	catNone Route = iota
	catBibles
	catLanguages
	catLanguage
	catOrganizations
	catOrganization
	catOrganizationBibles
	catFonts
	catFont
	catFontStylesheet
	catFontFile
	catVOTDs
	catVOTD
	// The spec's underscore paths: the same answers, deprecated.
	catVOTDsAlias
	catVOTDAlias
)

// catClasses are the catalogue routes' classes in metrics and the access
// log; an unknown shape under a catalogue prefix is other, as elsewhere.
var catClasses = [...]metrics.Class{catNone: metrics.ClassOther,
	catBibles: metrics.ClassBibles, catLanguages: metrics.ClassLanguages, catLanguage: metrics.ClassLanguages,
	catOrganizations: metrics.ClassOrganizations, catOrganization: metrics.ClassOrganizations,
	catOrganizationBibles: metrics.ClassOrganizations, catFonts: metrics.ClassFonts, catFont: metrics.ClassFonts,
	catFontStylesheet: metrics.ClassFonts, catFontFile: metrics.ClassFontFiles,
	catVOTDs: metrics.ClassVOTD, catVOTD: metrics.ClassVOTD, catVOTDsAlias: metrics.ClassVOTD, catVOTDAlias: metrics.ClassVOTD}

// Parse recognises a catalogue path and returns its route and its one
// parameter (a language, organization, font id or day; the file path for
// font files). ok is false for a path that is not the catalogue's; a
// catalogue prefix with an unknown shape is a route that is not Known.
func Parse(p []byte) (r Route, param []byte, ok bool) {
	sub := func(prefix []byte) ([]byte, bool) {
		if len(p) > len(prefix) && bytes.HasPrefix(p, prefix) && p[len(prefix)] == '/' {
			return p[len(prefix)+1:], true
		}
		return nil, false
	}
	switch {
	case bytes.Equal(p, pathBibles):
		return catBibles, nil, true
	case bytes.Equal(p, pathLanguages):
		return catLanguages, nil, true
	case bytes.Equal(p, pathOrganizations):
		return catOrganizations, nil, true
	case bytes.Equal(p, pathFonts):
		return catFonts, nil, true
	case bytes.Equal(p, pathVOTD):
		return catVOTDs, nil, true
	case bytes.Equal(p, pathVOTDAlias):
		return catVOTDsAlias, nil, true
	}
	if rest, ok := sub(pathLanguages); ok {
		if len(rest) == 0 || bytes.IndexByte(rest, '/') >= 0 {
			return catNone, nil, true
		}
		return catLanguage, rest, true
	}
	if rest, ok := sub(pathOrganizations); ok {
		id, tail, _ := bytes.Cut(rest, []byte("/"))
		switch {
		case len(id) == 0:
			return catNone, nil, true
		case tail == nil && bytes.IndexByte(rest, '/') < 0:
			return catOrganization, id, true
		case string(tail) == "bibles":
			return catOrganizationBibles, id, true
		}
		return catNone, nil, true
	}
	if bytes.HasPrefix(p, []byte(fontFilesPrefix)) {
		return catFontFile, p[len(fontFilesPrefix):], true
	}
	if rest, ok := sub(pathFonts); ok {
		id, tail, _ := bytes.Cut(rest, []byte("/"))
		switch {
		case len(id) == 0:
			return catNone, nil, true
		case bytes.IndexByte(rest, '/') < 0:
			return catFont, id, true
		case string(tail) == "stylesheet":
			return catFontStylesheet, id, true
		}
		return catNone, nil, true
	}
	for _, v := range [...]struct {
		prefix []byte
		day    Route
	}{{pathVOTD, catVOTD}, {pathVOTDAlias, catVOTDAlias}} {
		if rest, ok := sub(v.prefix); ok {
			if len(rest) == 0 || bytes.IndexByte(rest, '/') >= 0 {
				return catNone, nil, true
			}
			return v.day, rest, true
		}
	}
	return catNone, nil, false
}

// Known reports a route of a known shape; a catalogue prefix with
// another shape is 404.
func (r Route) Known() bool { return r != catNone }

// Class is the route's class in metrics and the access log.
func (r Route) Class() metrics.Class { return catClasses[r] }

// Serve answers one catalogue route, once the edge's gate has let the
// request in (shape, method, a build and access data). Checks run in the
// edge's order (docs/edge.md): App Key, status and rate limit, values.
func (s *Routes) Serve(ctx *fasthttp.RequestCtx, adm *authz.Admission, t *authz.Table, st *site.Site, r Route, param []byte) {
	if r == catVOTDsAlias || r == catVOTDAlias {
		// Every answer of the alias, errors included, names its successor
		// (RFC 9745 Deprecation, RFC 8288 Link); it has no Sunset. Set
		// last: an answer's header block replaces what was set before.
		defer deprecated(ctx)
	}
	if r == catFontFile {
		// Browsers fetch font files from a stylesheet's url(), which
		// cannot carry a header: the files are public (docs/catalogue.md).
		s.fontFile(ctx, st, param)
		return
	}
	from := authz.KeyHeader
	if r == catFontStylesheet {
		// The spec's one query-parameter key (Authentication 4): a page
		// links the stylesheet with <link href>, which sends no header.
		from = authz.KeyOrQueryParam
	}
	app := s.authz.Authorize(ctx, adm, t, from)
	if app == nil {
		return
	}
	c, err := s.catalogOf(ctx, st)
	if err != nil {
		s.log.Error("cannot build the catalogues", "id", ctx.ID(), "build", st.Build, "err", err)
		respond.Answer(ctx, problem.Unavailable, problem.CatalogueDown)
		return
	}
	switch r {
	case catBibles:
		s.biblesCollection(ctx, c, t, app)
	case catLanguages:
		s.languages(ctx, c)
	case catLanguage:
		s.language(ctx, c, param)
	case catOrganizations:
		s.organizations(ctx, c)
	case catOrganization:
		s.organization(ctx, c, param)
	case catOrganizationBibles:
		s.organizationBibles(ctx, c, param)
	case catFonts:
		s.fontsCollection(ctx, c)
	case catFont:
		s.font(ctx, c, param)
	case catFontStylesheet:
		s.fontStylesheet(ctx, c, param)
	case catVOTDs, catVOTDsAlias:
		s.votdCalendar(ctx, st, c)
	case catVOTD, catVOTDAlias:
		s.votd(ctx, st, c, param)
	}
}

// deprecated marks an answer of the verse-of-the-day alias.
func deprecated(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.Set("Deprecation", "true")
	ctx.Response.Header.Set("Link", `</v1/verse-of-the-days>; rel="successor-version"`)
}

// serveComposed serves a body composed from the catalogue with the edge's
// HTTP semantics. Encoded forms are cached by the hash of the body, so the
// same answer is compressed once however it was asked for.
func serveComposed(ctx *fasthttp.RequestCtx, composed *cache.LRU[*compose.Answer], body []byte, mod time.Time, private, byLanguage bool) {
	serveComposedAs(ctx, composed, "", body, mod, private, byLanguage)
}

// serveComposedAs is serveComposed that also remembers the answer under a
// request key (see requestKey), for answers that cost more to compose than
// to look up.
func serveComposedAs(ctx *fasthttp.RequestCtx, composed *cache.LRU[*compose.Answer], reqKey string, body []byte, mod time.Time, private, byLanguage bool) {
	compose.Serve(ctx, composed, reqKey, body, mod, catalogCache, private)
	if byLanguage {
		ctx.Response.Header.SetCanonical(respond.HdrVary, valVaryLanguage)
	}
}

// requestKey names a successful answer by everything it depends on: the
// build, the route, the negotiated locales, the page and the route's other
// parameters, each validated and normalised by the caller (never the query
// as sent, so that page_size=05 and page_size=5, or parameters the route
// does not read, do not make new keys). Only answers that were served are
// stored under it, so a hit needs no validation.
func requestKey(route string, c *catalog, prefs lang.Preferences, p paging.Page, params ...string) string {
	var b strings.Builder
	b.WriteString("catalog-req/")
	b.WriteString(c.build)
	b.WriteByte('/')
	b.WriteString(route)
	b.WriteByte(0)
	b.WriteString(strings.Join(prefs.Locales(), ","))
	b.WriteByte(0)
	b.WriteString(p.Key())
	for _, s := range params {
		b.WriteByte(0)
		b.WriteString(s)
	}
	return b.String()
}

// serveRemembered serves an answer stored under a request key.
func serveRemembered(ctx *fasthttp.RequestCtx, composed *cache.LRU[*compose.Answer], reqKey string, private, byLanguage bool) bool {
	if !compose.ServeRemembered(ctx, composed, reqKey, private) {
		return false
	}
	if byLanguage {
		ctx.Response.Header.SetCanonical(respond.HdrVary, valVaryLanguage)
	}
	return true
}

// catalogCache is the Cache-Control of catalogue answers: the policy for
// metadata (docs/edge.md).
const catalogCache = represent.CachePublic

var valVaryLanguage = []byte("Accept-Encoding, Accept-Language")
