// Package searchapi answers the search routes (docs/search.md): verse
// search over a Bible's index, topic search and suggestions from a
// language's aids, the unified results, and the trending queries the edge
// counts, reports to dynamic and serves from a snapshot (Trends).
package searchapi

import (
	"bytes"
	"log/slog"
	"sync/atomic"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/edge/internal/paging"
	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/wire/problem"
	"github.com/valyala/fasthttp"
)

// The search operations (docs/search.md) are served at the paths real
// clients call, /v1-beta/search-…, and at /v1/search-….
var (
	prefixSearchBeta = []byte("/v1-beta/search-")
	prefixSearchV1   = []byte("/v1/search-")
)

// Config is what New needs.
type Config struct {
	Log        *slog.Logger
	Authz      *authz.Authz
	Site       *atomic.Pointer[site.Site] // the build in force
	Packs      *packs.Packs
	Composed   *cache.LRU[*compose.Answer] // composed answers, shared with the other routes
	Searched   *cache.LRU[*compose.Answer] // search answers
	Compute    *compose.Computations
	PageTokens paging.Tokens
	Trends     *Trends
	// IndexBytes bounds the decoded search indexes held in memory
	// (indexes.go); 0: DefaultIndexCacheBytes.
	IndexBytes int64
}

// New returns the search routes.
func New(cfg Config) *Routes {
	if cfg.IndexBytes <= 0 {
		cfg.IndexBytes = DefaultIndexCacheBytes
	}
	return &Routes{log: cfg.Log, authz: cfg.Authz, site: cfg.Site, packs: cfg.Packs, composed: cfg.Composed,
		searched: cfg.Searched, compute: cfg.Compute, pageTokens: cfg.PageTokens, trending: cfg.Trends,
		indexes: newIndexCache(cfg.IndexBytes)}
}

// Op is which search route a path names.
type Op uint8

const (
	opNone Op = iota
	opQueries
	opTopics
	opResults
	opVerses
)

// Parse recognises a search path; ok is false for a path that is not
// one, and op is not Known for an unknown operation under the prefix.
func Parse(p []byte) (op Op, ok bool) {
	var rest []byte
	switch {
	case bytes.HasPrefix(p, prefixSearchBeta):
		rest = p[len(prefixSearchBeta):]
	case bytes.HasPrefix(p, prefixSearchV1):
		rest = p[len(prefixSearchV1):]
	default:
		return opNone, false
	}
	switch string(rest) {
	case "queries":
		return opQueries, true
	case "topics":
		return opTopics, true
	case "results", "unified":
		return opResults, true
	case "verses":
		return opVerses, true
	}
	return opNone, true
}

// Routes answers the search routes. It holds what they read: the access
// decisions, the build in force (for the search indexes loaded in the
// background), the pack tiers, the caches of composed and search answers,
// the bound on computations, the page-token key, its own figures and the
// trending counts it adds to.
type Routes struct {
	log        *slog.Logger
	authz      *authz.Authz
	site       *atomic.Pointer[site.Site]
	packs      *packs.Packs
	composed   *cache.LRU[*compose.Answer]
	searched   *cache.LRU[*compose.Answer]
	indexes    *cache.LRU[*heldIndex] // decoded search indexes (indexes.go)
	indexLoads metrics.Counter
	compute    *compose.Computations // bounds the answers computed on demand
	pageTokens paging.Tokens
	metrics    searchMetrics
	trending   *Trends
}

// Known reports an operation of a known shape; another under the prefix
// is 404.
func (op Op) Known() bool { return op != opNone }

// Serve answers one search route, once the edge's gate has let the
// request in (shape, method, a build and access data). Checks run in the
// edge's order: App Key, status and rate limit, then the values.
func (s *Routes) Serve(ctx *fasthttp.RequestCtx, adm *authz.Admission, t *authz.Table, st *site.Site, op Op) {
	app := s.authz.Authorize(ctx, adm, t, authz.KeyHeader)
	if app == nil {
		return
	}
	switch op {
	case opQueries:
		s.searchQueries(ctx, st, t, app)
	case opTopics:
		s.searchTopics(ctx, st, app)
	case opResults:
		s.searchResults(ctx, st, t, app)
	case opVerses:
		s.searchVerses(ctx, st, t, app)
	}
}

// searchRanges reads language_ranges[]: one or more, each "*" or a
// language range as the clients check it, ^[A-Za-z]{1,8}(-[0-9A-Za-z]{1,8})*$.
// At most maxLanguageRanges are looked at. A value of that type that is not
// such a range is 400, as on the Bibles collection (spec, errors: a
// well-typed but unacceptable value).
func searchRanges(ctx *fasthttp.RequestCtx) ([]string, bool) {
	raw := ctx.QueryArgs().PeekMulti("language_ranges[]")
	if len(raw) == 0 {
		respond.Invalid(ctx, problem.Missing("query", "language_ranges[]"))
		return nil, false
	}
	if len(raw) > maxLanguageRanges {
		respond.Invalid(ctx, problem.TooManyItems(maxLanguageRanges, "query", "language_ranges[]"))
		return nil, false
	}
	out := make([]string, len(raw))
	for i, r := range raw {
		if !validSearchRange(r) {
			respond.Answer(ctx, problem.Unacceptable, problem.BadSearchRange(string(r)))
			return nil, false
		}
		out[i] = string(r)
	}
	return out, true
}

const maxLanguageRanges = 16

func validSearchRange(r []byte) bool {
	if string(r) == "*" {
		return true
	}
	for i, sub := 0, r; ; i++ {
		part, rest, more := bytes.Cut(sub, []byte("-"))
		if len(part) < 1 || len(part) > 8 {
			return false
		}
		for _, c := range part {
			if !params.Alpha(c) && (i == 0 || c < '0' || c > '9') {
				return false
			}
		}
		if !more {
			return true
		}
		sub = rest
	}
}
