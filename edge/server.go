// Package edge is the gateway and hot path of the platform: a fasthttp
// server that authenticates App Keys, enforces app status, licences and
// rate limits, serves published representations with RFC 9110 semantics,
// composes verse ranges that were not pre-rendered, and forwards the routes
// that need user data to the dynamic service. See docs/edge.md.
package edge

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/catalog"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/content"
	"github.com/bibleplatform/platform/edge/internal/dev"
	"github.com/bibleplatform/platform/edge/internal/gateway"
	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/edge/internal/paging"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/searchapi"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire"
)

// Config is everything a Server needs; cmd/edge fills it from flags.
type Config struct {
	Store publish.Store
	Log   *slog.Logger
	// AccessLog, when set, gets one structured line per request. Give it
	// a buffered writer (internal/logbuf): a write(2) a request costs as
	// much as answering it.
	AccessLog *slog.Logger

	DefaultRate access.Rate // for apps without their own
	Edges       int         // edges sharing each app's allowance
	// IDOnlyRate is the allowance, per client address, of requests that
	// name their app only by its public id, and of sign-in requests that
	// name no live app (DefaultIDOnlyRate when zero).
	IDOnlyRate access.Rate

	DynamicURL string // "": the dynamic-owned routes answer 503
	EdgeToken  string // sent to dynamic as X-Edge-Token
	// DynamicTimeout bounds a forwarded request (504 past it).
	DynamicTimeout time.Duration
	// SearchReportInterval is how often counted searches are reported to
	// dynamic, TrendingRefresh how often the trending snapshot is fetched
	// (edge/internal/searchapi); zero means the defaults.
	SearchReportInterval time.Duration
	TrendingRefresh      time.Duration
	// UsageReportInterval is how often usage counts are reported to
	// dynamic (usage.go); zero means DefaultUsageReportInterval.
	UsageReportInterval time.Duration

	// TLS is set when this edge terminates TLS itself: plain-HTTP requests
	// are then redirected. ForceHTTPS redirects on a trusted proxy's
	// X-Forwarded-Proto: http even without TLS here.
	TLS            bool
	ForceHTTPS     bool
	HTTPSPort      int
	TrustedProxies []netip.Prefix

	PackCacheBytes int64
	// ComposeCacheBytes bounds the composed answers held (verse ranges,
	// catalogue pages), SearchCacheBytes the search answers (0: their
	// defaults).
	ComposeCacheBytes int64
	SearchCacheBytes  int64
	// SearchIndexCacheBytes bounds the decoded search indexes held in
	// memory (0: DefaultSearchIndexCacheBytes).
	SearchIndexCacheBytes int64
	// DiskCacheDir keeps whole packs fetched from the store on local disk,
	// up to DiskCacheBytes; "" turns the disk tier off. WholePackMax is
	// the largest pack fetched whole onto that disk on its first miss
	// (into memory instead with WholePackFirst); memory holds the
	// entries read by range (0: DefaultWholePackMax; negative: every pack
	// whole into memory). See edge/internal/packs.
	DiskCacheDir   string
	DiskCacheBytes int64
	WholePackMax   int64
	WholePackFirst bool
	MaxRangeVerses int

	// DiskCacheLocalStore keeps a directory store's packs on the disk
	// cache too (packs.Config.CopyLocal).
	DiskCacheLocalStore bool

	// PublicURL is the scheme and host of absolute URLs in answers (font
	// files); "" uses the request's own, as a trusted proxy reports it.
	PublicURL string
	// PageTokenKey seals page tokens (HMAC); edges behind one balancer need
	// the same key. Empty: a random key per process.
	PageTokenKey []byte

	// ReaderAppKey is the App Key the reader page at / is given
	// (/reader/config.json); "" makes the page ask its user for one. Only
	// for a demo: anyone who can load the page can read the key.
	ReaderAppKey string

	// Now is the clock, for tests; nil: each request is judged at its
	// arrival, which fasthttp reads before calling the handler (now).
	Now func() time.Time

	// What Open needs beyond the handler's configuration.

	// Access is where access snapshots come from: the dynamic service's
	// …/internal/access URL, or a snapshot file. AccessCache keeps the last
	// good snapshot, served from when the source is down; "" keeps none.
	Access      string
	AccessCache string
	// Poll is how often to look for a new build and a changed access file
	// (DefaultPoll when zero).
	Poll time.Duration
	// Concurrency bounds the connections served at once (fasthttp's
	// default when zero).
	Concurrency int
	// TLSCertFile and TLSKeyFile (PEM) make Open serve HTTPS on TLSAddr as
	// well, and redirect plain HTTP to it (TLS is then set). HTTPSPort
	// defaults to TLSAddr's port.
	TLSCertFile, TLSKeyFile string
	TLSAddr                 string
}

// Defaults New applies to a zero Config field; cmd/edge shows them as its
// flags' defaults.
const (
	DefaultRatePerSecond  = 20 // burst: twice the rate
	DefaultWholePackMax   = packs.DefaultWholeMax
	DefaultMaxRangeVerses = content.DefaultMaxRangeVerses
	// DefaultSearchReportInterval is how often counted searches are
	// reported to dynamic, DefaultTrendingRefresh how often the trending
	// snapshot is fetched.
	DefaultSearchReportInterval = searchapi.DefaultSearchReportInterval
	DefaultTrendingRefresh      = searchapi.DefaultTrendingRefresh
	// The memory caches' default bounds (docs/edge.md, "What a composed
	// answer's memory buys"): a composed range costs tens of
	// microseconds to put together again and a kilobyte or two to keep,
	// an entry read by range a few microseconds and a few kilobytes, so
	// the composed answers get more than the search answers and the pack
	// tier a little less than it had.
	DefaultPackCacheBytes        = 720 << 20
	DefaultComposeCacheBytes     = 128 << 20
	DefaultSearchCacheBytes      = 64 << 20
	DefaultSearchIndexCacheBytes = searchapi.DefaultIndexCacheBytes
	DefaultDynamicTimeout        = 30 * time.Second
)

// DefaultIDOnlyRate is the allowance of requests that name their app only
// by its public id (x-svc-app-id on the data-exchange routes), per client
// address: a browser's consent flow takes two or three requests.
var DefaultIDOnlyRate = access.Rate{PerSecond: 1, Burst: 20}

// Server serves one edge. Create it with New.
type Server struct {
	cfg      Config
	log      *slog.Logger
	packs    *packs.Packs
	composed *cache.LRU[*compose.Answer]
	searched *cache.LRU[*compose.Answer] // search answers (edge/internal/searchapi)
	compute  *compose.Computations       // the bound on answers composed on demand
	authz    *authz.Authz
	gateway  *gateway.Gateway
	dev      *dev.Surface
	requests metrics.Requests // by route class and status (metrics.go)
	started  time.Time
	latency  *metrics.Latency
	trending *searchapi.Trends
	usage    *edgeUsage // nil without a dynamic service (usage.go)

	// httpsPortSet: Config.HTTPSPort was given, not defaulted.
	httpsPortSet bool
	run          *running // what Open started; nil before

	// tokenRejected: the access source's last answer was dynamic refusing
	// the edge token (ErrEdgeTokenRejected); /readyz says so.
	tokenRejected atomic.Bool

	site    atomic.Pointer[site.Site]
	gate    gate              // the checks every GET route group starts with
	bibles  *content.Routes   // the Bibles routes
	catalog *catalog.Routes   // the catalogue routes
	search  *searchapi.Routes // the search routes
}

// RunSearchQueries reports counted searches and refreshes the trending
// snapshot until ctx ends. Without a dynamic service it returns at once.
func (s *Server) RunSearchQueries(ctx context.Context) { s.trending.Run(ctx) }

// ReportSearchQueries sends the searches counted since the last report to
// dynamic. On failure they are kept (within the counter's bound) for the
// next report.
func (s *Server) ReportSearchQueries(ctx context.Context) error { return s.trending.Report(ctx) }

// RefreshTrending fetches the trending phrases from dynamic.
func (s *Server) RefreshTrending(ctx context.Context) error { return s.trending.Refresh(ctx) }

// New returns a server; it is not ready until it has a build (SetBuild)
// and access data (SetAccess).
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("edge: no store")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.DefaultRate.PerSecond <= 0 {
		cfg.DefaultRate.PerSecond = DefaultRatePerSecond
	}
	if cfg.DefaultRate.Burst <= 0 {
		cfg.DefaultRate.Burst = 2 * int(cfg.DefaultRate.PerSecond)
	}
	if cfg.IDOnlyRate.PerSecond <= 0 || cfg.IDOnlyRate.Burst <= 0 {
		cfg.IDOnlyRate = DefaultIDOnlyRate
	}
	if cfg.PackCacheBytes <= 0 {
		cfg.PackCacheBytes = DefaultPackCacheBytes
	}
	if cfg.ComposeCacheBytes <= 0 {
		cfg.ComposeCacheBytes = DefaultComposeCacheBytes
	}
	if cfg.SearchCacheBytes <= 0 {
		cfg.SearchCacheBytes = DefaultSearchCacheBytes
	}
	if cfg.MaxRangeVerses <= 0 {
		cfg.MaxRangeVerses = DefaultMaxRangeVerses
	}
	if (cfg.TLSCertFile == "") != (cfg.TLSKeyFile == "") {
		return nil, errors.New("edge: a TLS certificate and its key go together")
	}
	if cfg.TLSCertFile != "" {
		cfg.TLS = true
	}
	httpsPortSet := cfg.HTTPSPort != 0
	if !httpsPortSet {
		cfg.HTTPSPort = 443
		if _, p, err := net.SplitHostPort(cfg.TLSAddr); err == nil && cfg.TLSCertFile != "" {
			if n, _ := strconv.Atoi(p); n != 0 {
				cfg.HTTPSPort, httpsPortSet = n, true
			}
		}
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.DynamicTimeout <= 0 {
		cfg.DynamicTimeout = DefaultDynamicTimeout
	}
	if cfg.SearchReportInterval <= 0 {
		cfg.SearchReportInterval = DefaultSearchReportInterval
	}
	if cfg.TrendingRefresh <= 0 {
		cfg.TrendingRefresh = DefaultTrendingRefresh
	}
	s := &Server{
		cfg:          cfg,
		log:          cfg.Log,
		httpsPortSet: httpsPortSet,
		composed:     cache.New[*compose.Answer](cfg.ComposeCacheBytes),
		searched:     cache.New[*compose.Answer](cfg.SearchCacheBytes),
	}
	s.authz = authz.New(authz.Config{DefaultRate: cfg.DefaultRate, Edges: cfg.Edges, IDOnlyRate: cfg.IDOnlyRate,
		TrustedProxies: cfg.TrustedProxies, Now: requestClock(cfg.Now), Clock: cfg.Now})
	s.started = time.Now()
	s.latency = metrics.NewLatency("edge", &s.requests)
	p, err := packs.New(packs.Config{Store: cfg.Store, MaxBytes: cfg.PackCacheBytes, WholeMax: cfg.WholePackMax,
		WholeFirst: cfg.WholePackFirst, DiskDir: cfg.DiskCacheDir, DiskBytes: cfg.DiskCacheBytes, CopyLocal: cfg.DiskCacheLocalStore})
	if err != nil {
		return nil, err
	}
	s.packs = p
	s.gate = gate{authz: s.authz, site: &s.site}
	pageTokens := paging.NewTokens(cfg.PageTokenKey) // the catalogue's and search's
	s.compute = compose.NewComputations(0)
	s.catalog = catalog.New(catalog.Config{Log: s.log, Authz: s.authz, Packs: s.packs, Composed: s.composed,
		Compute: s.compute, PublicURL: cfg.PublicURL, PageTokens: pageTokens, VerseOfDayIn: s.verseOfDayIn})
	s.trending = searchapi.NewTrends(searchapi.TrendsConfig{Log: s.log, DynamicURL: cfg.DynamicURL, EdgeToken: cfg.EdgeToken,
		Timeout: cfg.DynamicTimeout, ReportEvery: cfg.SearchReportInterval, RefreshEvery: cfg.TrendingRefresh})
	s.bibles = content.New(content.Config{Log: s.log, Authz: s.authz, Packs: s.packs, Composed: s.composed, MaxRangeVerses: cfg.MaxRangeVerses})
	s.search = searchapi.New(searchapi.Config{Log: s.log, Authz: s.authz, Site: &s.site, Packs: s.packs,
		Composed: s.composed, Searched: s.searched, Compute: s.compute, PageTokens: pageTokens, Trends: s.trending,
		IndexBytes: cfg.SearchIndexCacheBytes})
	s.dev = dev.New(s.log, cfg.ReaderAppKey)
	s.gateway, err = gateway.New(gateway.Config{Authz: s.authz, Log: s.log,
		URL: cfg.DynamicURL, Token: cfg.EdgeToken, Timeout: cfg.DynamicTimeout})
	if err != nil {
		return nil, err
	}
	s.usage = newEdgeUsage(cfg, s.trending, &s.site)
	return s, nil
}

// SetBuild swaps in a build. Requests in flight finish on the old one.
// The build's catalogues are prepared before the swap, so that they change
// with it.
func (s *Server) SetBuild(id string, m *publish.Manifest) {
	st := site.New(id, m)
	s.catalog.Prepare(st)
	if old := s.site.Swap(st); old != nil {
		old.Release(s.packs)
	}
	s.search.Prepare(st)
}

// SetAccess swaps in an access snapshot.
func (s *Server) SetAccess(snap *access.Snapshot) error { return s.authz.Set(snap) }

// Ready reports whether the edge can serve: it has a build and access data.
func (s *Server) Ready() bool { return s.site.Load() != nil && s.authz.Table() != nil }

// Handler is the fasthttp request handler.
func (s *Server) Handler(ctx *fasthttp.RequestCtx) {
	start := arrival(ctx)
	var adm authz.Admission
	class := s.dispatch(ctx, &adm)
	status := ctx.Response.StatusCode()
	adm.WriteRate(&ctx.Response.Header)
	s.usage.count(&adm, start, status)
	// Every answer but a 401 and the rate limiter's 429 may be read by
	// browser scripts (spec, Authentication 5 and Errors 4), the answers
	// dynamic gives through the gateway included. No
	// Access-Control-Expose-Headers: a cross-origin request carrying
	// X-SVC-App-Key needs a preflight, which the spec makes fail (OPTIONS is
	// 405), so the list would only add bytes to every answer.
	if status != fasthttp.StatusUnauthorized && status != fasthttp.StatusTooManyRequests {
		ctx.Response.Header.SetCanonical(respond.HdrACAO, respond.ValStar)
	}
	sent := 0
	if !ctx.Response.SkipBody && !ctx.IsHead() {
		sent = len(ctx.Response.Body())
	}
	d := time.Since(start)
	s.requests.Record(class, status, sent, int64(d))
	if s.cfg.AccessLog != nil {
		s.logRequest(ctx, class, status, sent, d)
	}
}

// arrival is when the request reached the handler: fasthttp reads the
// clock just before calling it, so the hot path need not read it again
// (about 50 ns a read here). A context made by hand (tests) has no time.
func arrival(ctx *fasthttp.RequestCtx) time.Time {
	if t := ctx.Time(); !t.IsZero() {
		return t
	}
	return time.Now()
}

// requestClock is the time a request is judged by (rate limits): the
// configured clock in tests, else the request's arrival.
func requestClock(now func() time.Time) func(*fasthttp.RequestCtx) time.Time {
	if now != nil {
		return func(*fasthttp.RequestCtx) time.Time { return now() }
	}
	return arrival
}

// accessLine is one access-log line's attributes, pooled: a record holds
// five attributes inline and would allocate for more, so the line is one
// attribute, an unnamed group (which handlers inline) resolved from here.
type accessLine struct {
	attrs [8]slog.Attr
	ip    [64]byte
}

func (l *accessLine) LogValue() slog.Value { return slog.GroupValue(l.attrs[:]...) }

var accessLines = sync.Pool{New: func() any { return new(accessLine) }}

func (s *Server) logRequest(ctx *fasthttp.RequestCtx, class metrics.Class, status, sent int, d time.Duration) {
	l := accessLines.Get().(*accessLine)
	defer accessLines.Put(l)
	ip, _ := netip.AddrFromSlice(ctx.RemoteIP())
	// The byte values are viewed as strings, not copied: a handler formats
	// the record before LogAttrs returns (slog.Handler: Handle must not
	// retain a Record's attributes past the call unless it clones them).
	l.attrs = [...]slog.Attr{
		slog.Uint64("id", ctx.ID()),
		slog.String("method", respond.UnsafeString(ctx.Method())),
		slog.String("path", respond.UnsafeString(ctx.Path())),
		slog.String("class", class.String()),
		slog.Int("status", status),
		slog.Int("bytes", sent),
		slog.Int64("duration_us", d.Microseconds()),
		slog.String("remote", respond.UnsafeString(ip.Unmap().AppendTo(l.ip[:0]))),
	}
	s.cfg.AccessLog.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.Any("", l))
}

// Paths and values the router compares against, as bytes.
var (
	pathHealthz = []byte("/healthz")
	pathReadyz  = []byte("/readyz")
	pathMetrics = []byte("/metrics")
	prefixBible = []byte("/v1/bibles/")
)

var prefixPassages = []byte("/v1/passages/")

func (s *Server) dispatch(ctx *fasthttp.RequestCtx, adm *authz.Admission) metrics.Class {
	if wire.RefuseAmbiguousFraming(ctx) {
		return metrics.ClassOther
	}
	// fasthttp's server has parsed the URI before calling the handler:
	// the path is at hand.
	path := ctx.Path()
	switch {
	case bytes.Equal(path, pathHealthz), bytes.Equal(path, pathReadyz), bytes.Equal(path, pathMetrics):
		s.ops(ctx, path)
		return metrics.ClassOps
	}
	if s.redirectHTTPS(ctx) {
		return metrics.ClassOther
	}
	// The Bibles routes first: they carry nearly all the traffic, and no
	// other route starts with their prefix.
	if bytes.HasPrefix(path, prefixBible) {
		var rt route
		if !parseRoute(path[len(prefixBible):], &rt) {
			respond.RouteNotFound(ctx)
			return metrics.ClassOther
		}
		if t, st, ok := s.gate.admitGET(ctx, true); ok {
			// Every decision on the request (key, status, rate, the
			// licence for the Bible it names) is taken here, once.
			if rd, ok := s.authz.AuthorizeReading(ctx, adm, t, rt.BibleID); ok {
				s.bibles.Serve(ctx, rd, st, &rt.Route)
			}
		}
		return rt.class
	}
	if bytes.HasPrefix(path, prefixPassages) { // parallel passages (package content)
		id := path[len(prefixPassages):]
		if t, st, ok := s.gate.admitGET(ctx, len(id) > 0 && bytes.IndexByte(id, '/') < 0); ok {
			s.bibles.Parallel(ctx, adm, t, st, id)
		}
		return metrics.ClassPassage
	}
	// The developer surface: the OpenAPI document, the reader page and
	// its assets (edge/internal/dev). Public, no App Key.
	if s.dev.Serve(ctx, path) {
		return metrics.ClassDev
	}
	if r, param, ok := catalog.Parse(path); ok {
		if t, st, ok := s.gate.admitGET(ctx, r.Known()); ok {
			s.catalog.Serve(ctx, adm, t, st, r, param)
		}
		return r.Class()
	}
	// After the Bibles routes: a passage request never looks at the
	// search paths.
	if op, ok := searchapi.Parse(path); ok {
		if t, st, ok := s.gate.admitGET(ctx, op.Known()); ok {
			s.search.Serve(ctx, adm, t, st, op)
		}
		return metrics.ClassSearch
	}
	if gateway.IsPath(path) {
		s.gateway.Forward(ctx, adm, path)
		return metrics.ClassGateway
	}
	respond.RouteNotFound(ctx)
	return metrics.ClassOther
}

func (s *Server) ops(ctx *fasthttp.RequestCtx, path []byte) {
	if !ctx.IsGet() && !ctx.IsHead() {
		respond.MethodNotAllowed(ctx, "GET, HEAD")
		return
	}
	ctx.Response.Header.SetCanonical(respond.HdrCacheControl, respond.ValNoStore)
	switch {
	case bytes.Equal(path, pathHealthz):
		ctx.SetContentType("text/plain; charset=utf-8")
		ctx.SetBodyString("ok\n")
	case bytes.Equal(path, pathReadyz):
		ctx.SetContentType("text/plain; charset=utf-8")
		switch {
		case s.tokenRejected.Load():
			// Whatever snapshot is kept, forwarded requests fail the same
			// check, and the snapshot is not kept current.
			ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
			ctx.SetBodyString("edge token rejected by dynamic: this edge's --edge-token differs from dynamic's\n")
		case s.site.Load() == nil:
			ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
			ctx.SetBodyString("no build loaded\n")
		case s.authz.Table() == nil:
			ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
			ctx.SetBodyString("no access data loaded\n")
		default:
			// Cached content is still served, but a balancer should
			// prefer an edge that can also load what is not cached.
			if reason, down := s.packs.Outage(); down {
				ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
				ctx.SetBodyString(reason)
				break
			}
			ctx.SetBodyString("ready\n")
		}
	default:
		ctx.SetContentType("text/plain; version=0.0.4; charset=utf-8")
		s.writeMetrics(ctx)
	}
}

// verseOfDayIn answers the verse of the day in a Bible's numbering for
// the catalogue (package content).
func (s *Server) verseOfDayIn(ctx *fasthttp.RequestCtx, st *site.Site, bibleID []byte, day int) {
	s.bibles.VerseOfDayIn(ctx, st, bibleID, day)
}
