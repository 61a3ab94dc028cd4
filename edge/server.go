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
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/publish"
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
	// (trending.go); zero means the defaults.
	SearchReportInterval time.Duration
	TrendingRefresh      time.Duration

	// TLS is set when this edge terminates TLS itself: plain-HTTP requests
	// are then redirected. ForceHTTPS redirects on a trusted proxy's
	// X-Forwarded-Proto: http even without TLS here.
	TLS            bool
	ForceHTTPS     bool
	HTTPSPort      int
	TrustedProxies []netip.Prefix

	PackCacheBytes    int64
	ComposeCacheBytes int64
	// DiskCacheDir keeps whole packs fetched from the store on local disk,
	// up to DiskCacheBytes; "" turns the disk tier off. WholePackMax is
	// the largest pack fetched whole on a miss; larger ones are read by
	// ranges (0: DefaultWholePackMax; negative: always whole). See
	// storecache.go.
	DiskCacheDir   string
	DiskCacheBytes int64
	WholePackMax   int64
	MaxRangeVerses int

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
}

// Defaults New applies to a zero Config field; cmd/edge shows them as its
// flags' defaults. DefaultMaxRangeVerses and DefaultWholePackMax are with
// what they bound.
const (
	DefaultRatePerSecond     = 20 // burst: twice the rate
	DefaultPackCacheBytes    = 1 << 30
	DefaultComposeCacheBytes = 64 << 20
	DefaultDynamicTimeout    = 30 * time.Second
)

// Server serves one edge. Create it with New.
type Server struct {
	cfg      Config
	log      *slog.Logger
	packs    *packs
	composed *lru[*resource]
	searched *lru[*resource] // search answers (search_verses.go)
	limiters *limiters
	idOnly   *addrLimiters
	gateway  *gateway
	metrics  metrics
	latency  *latency
	// searchMetrics are the search route class's own (search_verses.go).
	searchMetrics searchMetrics
	health        storeHealth
	trending      searchTrends

	site       atomic.Pointer[site]
	access     atomic.Pointer[accessTable]
	accessSeen atomic.Int64 // unix ns when the source last confirmed the snapshot

}

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
	if cfg.MaxRangeVerses <= 0 {
		cfg.MaxRangeVerses = DefaultMaxRangeVerses
	}
	if cfg.HTTPSPort == 0 {
		cfg.HTTPSPort = 443
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
		cfg:      cfg,
		log:      cfg.Log,
		composed: newLRU[*resource](cfg.ComposeCacheBytes),
		searched: newLRU[*resource](cfg.ComposeCacheBytes),
		limiters: &limiters{byApp: make(map[string]*limiter), def: cfg.DefaultRate, share: cfg.Edges},
		idOnly:   newAddrLimiters(cfg.IDOnlyRate),
	}
	s.metrics.started = time.Now()
	s.latency = newLatency("edge", &s.metrics.requestStats)
	s.packs = newPacks(observedStore{cfg.Store, &s.health}, cfg.PackCacheBytes)
	s.packs.wholeMax = cfg.WholePackMax
	if s.packs.wholeMax == 0 {
		s.packs.wholeMax = DefaultWholePackMax
	}
	if cfg.DiskCacheDir != "" {
		d, err := openDiskCache(cfg.DiskCacheDir, cfg.DiskCacheBytes)
		if err != nil {
			return nil, err
		}
		s.packs.disk = d
	}
	if cfg.DynamicURL != "" {
		g, err := newGateway(cfg.DynamicURL, cfg.EdgeToken, cfg.DynamicTimeout)
		if err != nil {
			return nil, err
		}
		s.gateway = g
		s.trending.client = &http.Client{}
	}
	return s, nil
}

// SetBuild swaps in a build. Requests in flight finish on the old one.
// The build's catalogues are prepared before the swap, so that they change
// with it.
func (s *Server) SetBuild(id string, m *publish.Manifest) {
	st := newSite(id, m)
	s.prepareCatalog(st)
	s.site.Store(st)
	go s.loadSearchIndexes(st)
	go s.loadSearchAids(st)
}

// SetAccess swaps in an access snapshot.
func (s *Server) SetAccess(snap *access.Snapshot) error {
	t, err := s.limiters.compile(snap)
	if err != nil {
		return err
	}
	s.access.Store(t)
	s.accessConfirmed()
	return nil
}

func (s *Server) accessConfirmed() { s.accessSeen.Store(time.Now().UnixNano()) }

// Ready reports whether the edge can serve: it has a build and access data.
func (s *Server) Ready() bool { return s.site.Load() != nil && s.access.Load() != nil }

// Handler is the fasthttp request handler.
func (s *Server) Handler(ctx *fasthttp.RequestCtx) {
	start := arrival(ctx)
	var adm admission
	class := s.dispatch(ctx, &adm)
	status := ctx.Response.StatusCode()
	adm.writeRate(&ctx.Response.Header)
	// Every answer but a 401 and the rate limiter's 429 may be read by
	// browser scripts (spec, Authentication 5 and Errors 4), the answers
	// dynamic gives through the gateway included. No
	// Access-Control-Expose-Headers: a cross-origin request carrying
	// X-SVC-App-Key needs a preflight, which the spec makes fail (OPTIONS is
	// 405), so the list would only add bytes to every answer.
	if status != fasthttp.StatusUnauthorized && status != fasthttp.StatusTooManyRequests {
		ctx.Response.Header.SetCanonical(hdrACAO, valStar)
	}
	sent := 0
	if !ctx.Response.SkipBody && !ctx.IsHead() {
		sent = len(ctx.Response.Body())
	}
	d := time.Since(start)
	s.metrics.record(class, status, sent, int64(d))
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

// now is the time a request is judged by (rate limits): the configured
// clock in tests, else the request's arrival.
func (s *Server) now(ctx *fasthttp.RequestCtx) time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return arrival(ctx)
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

func (s *Server) logRequest(ctx *fasthttp.RequestCtx, class routeClass, status, sent int, d time.Duration) {
	l := accessLines.Get().(*accessLine)
	defer accessLines.Put(l)
	ip, _ := netip.AddrFromSlice(ctx.RemoteIP())
	// The byte values are viewed as strings, not copied: a handler formats
	// the record before LogAttrs returns (slog.Handler: Handle must not
	// retain a Record's attributes past the call unless it clones them).
	l.attrs = [...]slog.Attr{
		slog.Uint64("id", ctx.ID()),
		slog.String("method", unsafeString(ctx.Method())),
		slog.String("path", unsafeString(ctx.Path())),
		slog.String("class", class.String()),
		slog.Int("status", status),
		slog.Int("bytes", sent),
		slog.Duration("duration", d),
		slog.String("remote", unsafeString(ip.Unmap().AppendTo(l.ip[:0]))),
	}
	s.cfg.AccessLog.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.Any("", l))
}

// Paths and values the router compares against, as bytes.
var (
	pathHealthz = []byte("/healthz")
	pathReadyz  = []byte("/readyz")
	pathMetrics = []byte("/metrics")
	prefixBible = []byte("/v1/bibles/")

	hdrAppKey = access.HeaderAppKey
)

func (s *Server) dispatch(ctx *fasthttp.RequestCtx, adm *admission) routeClass {
	path := ctx.Path()
	switch {
	case bytes.Equal(path, pathHealthz), bytes.Equal(path, pathReadyz), bytes.Equal(path, pathMetrics):
		s.ops(ctx, path)
		return classOps
	}
	if s.redirectHTTPS(ctx) {
		return classOther
	}
	// The Bibles routes first: they carry nearly all the traffic, and no
	// other route starts with their prefix.
	if bytes.HasPrefix(path, prefixBible) {
		var rt route
		if !parseRoute(path[len(prefixBible):], &rt) {
			notFound(ctx)
			return classOther
		}
		if t, st, ok := s.admitGET(ctx, true); ok {
			s.content(ctx, adm, t, st, &rt)
		}
		return rt.class
	}
	// The developer surface: the OpenAPI document, the reader page and
	// its assets (openapi.go, reader.go). Public, no App Key.
	if s.serveOpenAPI(ctx, path) || s.serveReader(ctx, path) {
		return classOther
	}
	if s.catalogue(ctx, adm, path) {
		return classOther
	}
	// After the Bibles routes: a passage request never looks at the
	// search paths.
	if s.search(ctx, adm, path) {
		return classSearch
	}
	if isGatewayPath(path) {
		s.forward(ctx, adm, path)
		return classGateway
	}
	notFound(ctx)
	return classOther
}

func (s *Server) ops(ctx *fasthttp.RequestCtx, path []byte) {
	if !ctx.IsGet() && !ctx.IsHead() {
		methodNotAllowed(ctx, "GET, HEAD")
		return
	}
	ctx.Response.Header.SetCanonical(hdrCacheControl, valNoStore)
	switch {
	case bytes.Equal(path, pathHealthz):
		ctx.SetContentType("text/plain; charset=utf-8")
		ctx.SetBodyString("ok\n")
	case bytes.Equal(path, pathReadyz):
		ctx.SetContentType("text/plain; charset=utf-8")
		switch {
		case s.site.Load() == nil:
			ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
			ctx.SetBodyString("no build loaded\n")
		case s.access.Load() == nil:
			ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
			ctx.SetBodyString("no access data loaded\n")
		default:
			// Cached content is still served, but a balancer should
			// prefer an edge that can also load what is not cached.
			if reason, down := s.health.outage(); down {
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

// content serves the Bibles routes, once admitGET has let the request in.
func (s *Server) content(ctx *fasthttp.RequestCtx, adm *admission, t *accessTable, st *site, rt *route) {
	var rh condHeaders
	rh.scan(&ctx.Request.Header)
	app := s.authorizeKey(ctx, adm, t, keyHeader, rh.appKey)
	if app == nil {
		return
	}
	id, p := parsePathID(rt.bible)
	if p == idInvalid {
		invalid(ctx, "path", "bible_id_path", "Input should be a valid 32-bit integer", "int_parsing")
		return
	}
	bv := st.bibles[id]
	if p == idNone || bv == nil {
		answer(ctx, failNotFound, "Bible not found.")
		return
	}
	if rt.kind == routePassage {
		s.passage(ctx, &rh, t, app, st, bv, rt.passage)
		return
	}
	var ref *publish.PackRef
	var slot *packSlot
	var name string
	switch rt.kind {
	case routeBible, routeIndex, routeBooks:
		ref = &bv.entry.Pack
		name = publish.NameBible
		if rt.kind == routeIndex {
			name = publish.NameIndex
		}
		if rt.kind == routeBooks {
			name = publish.NameBooks
			if c := ctx.QueryArgs().Peek("canon"); len(c) > 0 {
				canon, ok := bible.ParseCanon(string(c))
				if !ok {
					invalid(ctx, "query", "canon", "Input should be 'new_testament', 'old_testament' or 'deuterocanon'", "enum")
					return
				}
				name = publish.BooksName(canon)
			}
		}
	default:
		book, ok := bible.ParseBookID(unsafeString(rt.book))
		if !ok {
			invalid(ctx, "path", "book_id", "String should have exactly 3 characters", "string_length")
			return
		}
		bk := bv.books[string(book)]
		if bk == nil {
			answer(ctx, failNotFound, "Book not found.")
			return
		}
		if rt.kind == routeBook || rt.kind == routeChapters {
			ref, name = &bk.entry.Pack, publish.NameBook
			if rt.kind == routeChapters {
				name = publish.NameChapters
			}
			break
		}
		if !bible.ValidSegment(unsafeString(rt.chapter)) {
			invalid(ctx, "path", "chapter_id", "String should have 1 to 7 letters, digits or '_'", "string_pattern_mismatch")
			return
		}
		ch := bv.chapter(book, unsafeString(rt.chapter))
		if ch == nil {
			answer(ctx, failNotFound, "Chapter not found.")
			return
		}
		ref, slot = &ch.Pack, &ch.pack
		switch rt.kind {
		case routeChapter:
			name = publish.NameChapter
		case routeVerses:
			name = publish.NameVerses
		case routeVerse:
			if !bible.ValidSegment(unsafeString(rt.verse)) {
				invalid(ctx, "path", "verse_id", "String should have 1 to 7 letters, digits or '_'", "string_pattern_mismatch")
				return
			}
			var nb [64]byte
			s.serveEntry(ctx, &rh, slot, ref, publish.AppendVerseName(nb[:0], unsafeString(rt.verse)), false, "Verse not found.")
			return
		}
	}
	var nb [64]byte
	s.serveEntry(ctx, &rh, slot, ref, append(nb[:0], name...), false, "Not found.")
}

// serveEntry serves one entry of one pack; name is built by the caller in
// a stack buffer so that the lookup does not allocate. slot, when not nil,
// is where the pack is kept for its next requests (a chapter's).
func (s *Server) serveEntry(ctx *fasthttp.RequestCtx, rh *condHeaders, slot *packSlot, ref *publish.PackRef, name []byte, private bool, missing string) {
	res, err := s.packs.entry(ctx, slot, ref, name)
	if err != nil {
		s.fail(ctx, failUnavailable, "cannot load pack", err)
		return
	}
	if res == nil {
		answer(ctx, failNotFound, missing)
		return
	}
	serveScanned(ctx, rh, res, private)
}

// refuseUnlicensed answers 403 when app may not read bv's text (spec, passage
// rule 3; the message names the Bible, Errors 403). The passage route
// calls it once the request's values are known to be valid (422 first,
// docs/edge.md's order of checks) and before anything of the text is
// looked up or served.
func refuseUnlicensed(ctx *fasthttp.RequestCtx, t *accessTable, app *appEntry, bv *bibleView) bool {
	if t.licensed(app, bv.id) {
		return false
	}
	answer(ctx, failForbidden, "This app is not licensed for Bible "+strconv.Itoa(int(bv.id))+".")
	return true
}

// passage serves /v1/bibles/{id}/passages/{passage_id}.
func (s *Server) passage(ctx *fasthttp.RequestCtx, rh *condHeaders, t *accessTable, app *appEntry, st *site, bv *bibleView, pid []byte) {
	private := !t.isOpen(bv.id)
	args := ctx.QueryArgs()
	html := false
	switch f := args.Peek("format"); {
	case len(f) == 0, string(f) == "text":
	case string(f) == "html":
		html = true
	default:
		invalid(ctx, "query", "format", "Input should be 'text' or 'html'", "enum")
		return
	}
	headings, hSet, ok := parseBool(args.Peek("include_headings"))
	if !ok {
		invalid(ctx, "query", "include_headings", "Input should be a valid boolean", "bool_parsing")
		return
	}
	notes, nSet, ok := parseBool(args.Peek("include_notes"))
	if !ok {
		invalid(ctx, "query", "include_notes", "Input should be a valid boolean", "bool_parsing")
		return
	}

	// A range composed before is found by the id as sent, before any
	// parsing. Only valid ids were composed, so a hit is valid too.
	var kb [128]byte
	var key []byte
	if bytes.IndexByte(pid, '-') >= 0 {
		key = composedKey(kb[:0], st.build, bv.id, pid, html, headings, notes)
		if res, ok := s.composed.find(key); ok {
			if !refuseUnlicensed(ctx, t, app, bv) {
				serveScanned(ctx, rh, res, private)
			}
			return
		}
	}
	// r holds substrings of the request's path: it is used within this
	// request only (what the composed cache keeps is built anew).
	r, err := bible.ParseRef(unsafeString(pid))
	if err != nil {
		var bad *bible.ParseError
		errors.As(err, &bad)
		invalid(ctx, "path", "passage_id_path", bad.Message(), "value_error")
		return
	}
	if refuseUnlicensed(ctx, t, app, bv) {
		return
	}
	if r.Kind() == bible.KindRange {
		s.composed.missed()
		s.composeRange(ctx, rh, string(key), bv, r, html, headings, notes, private)
		return
	}
	intro := r.Kind() == bible.KindIntro
	// Whole chapters and introductions default to headings and notes
	// (passage rule 2); format=text ignores both (rule 1).
	if intro || r.Verse == "" {
		if !hSet {
			headings = true
		}
		if !nSet {
			notes = true
		}
	}
	variant := publish.Variant(html, headings, notes)
	// A chapter's passage is found by the chapter alone; the book is
	// looked up for an introduction, or to tell which of the two is
	// missing.
	var ch *chapterView
	if !intro {
		ch = bv.chapter(r.Book, r.Chapter)
	}
	var ref *publish.PackRef
	var slot *packSlot
	verse := r.Verse
	if ch != nil {
		ref, slot = &ch.Pack, &ch.pack
	} else {
		bk := bv.books[string(r.Book)]
		if bk == nil {
			answer(ctx, failNotFound, "Book not found.")
			return
		}
		if !intro {
			answer(ctx, failNotFound, "Chapter not found.")
			return
		}
		ref, verse = &bk.entry.Pack, bible.IntroChapter
	}
	var nb [64]byte
	s.serveEntry(ctx, rh, slot, ref, publish.AppendPassageName(nb[:0], verse, variant), private, "Passage not found.")
}

// parseBool reads a boolean query parameter the way the reference service
// (FastAPI) does; set is false when absent.
func parseBool(b []byte) (v, set, ok bool) {
	if len(b) == 0 {
		return false, false, true
	}
	switch {
	case equalFoldASCII(b, "true"), equalFoldASCII(b, "1"), equalFoldASCII(b, "yes"), equalFoldASCII(b, "on"):
		return true, true, true
	case equalFoldASCII(b, "false"), equalFoldASCII(b, "0"), equalFoldASCII(b, "no"), equalFoldASCII(b, "off"):
		return false, true, true
	}
	return false, false, false
}

// --- responses the edge writes itself ---

// message writes the API's usual error shape, {"message": …}.
func message(ctx *fasthttp.RequestCtx, status int, msg string) {
	var buf [256]byte
	writeJSON(ctx, status, access.AppendMessage(buf[:0], msg))
}

func writeJSON(ctx *fasthttp.RequestCtx, status int, body []byte) {
	ctx.Response.Header.SetCanonical(hdrCacheControl, valNoStore)
	ctx.SetContentType(publish.JSON)
	ctx.SetStatusCode(status)
	ctx.SetBody(body)
}

func notFound(ctx *fasthttp.RequestCtx) { answer(ctx, failNotFound, "Not found.") }

func methodNotAllowed(ctx *fasthttp.RequestCtx, allow string) {
	ctx.Response.Header.Set("Allow", allow)
	answer(ctx, failNotAllowed, "Method not allowed.")
}

// fault is the gateway's 401 envelope (DESIGN.md), as the reference
// service's API gateway spells it. It never carries Access-Control-*.
func fault(ctx *fasthttp.RequestCtx, f access.Fault) {
	var buf [256]byte
	writeJSON(ctx, fasthttp.StatusUnauthorized, access.AppendFault(buf[:0], f))
}

// invalid is the 422 validation shape (DESIGN.md).
func invalid(ctx *fasthttp.RequestCtx, where, param, msg, typ string) {
	var buf [512]byte
	writeJSON(ctx, fasthttp.StatusUnprocessableEntity,
		access.AppendValidation(buf[:0], access.Detail{Loc: []string{where, param}, Msg: msg, Type: typ}))
}
