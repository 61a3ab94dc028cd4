package searchapi

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/edge/internal/paging"
	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// Verse search (GET /v1-beta/search-verses and /v1/search-verses; the wire
// format is ../shared/reference/search-api.md, docs/search.md says how it
// works). Answers come from the Bible's search index, decoded once per
// build into memory; a page of answer is composed once and kept in the
// search answer cache like a composed range, so a popular query costs a
// lookup.

// searchRequest is a checked verse search request.
type searchRequest struct {
	// q is the query with its white space folded: the request's own
	// bytes when it needs no folding, valid while the request is served.
	q []byte
	// query is q as a string of its own, made (own) only when the
	// request needs one that outlives it: to compute the answer, or to
	// count it for trending. An answer from the cache needs neither.
	query  string
	bible  int32
	intent string
	page   paging.Page // size and offset; fields unused
	text   bool        // fields[]=text
	app    string
}

// own makes r.query.
func (r *searchRequest) own() {
	if r.query == "" {
		r.query = string(r.q)
	}
}

// queryHash binds the request's page tokens to its Bible, query and
// intent in st's build. It is computed only for a page token to open or
// issue: most requests have neither.
func (r *searchRequest) queryHash(st *site.Site) [8]byte {
	return paging.QueryHash("search-verses", st.Build, strconv.Itoa(int(r.bible)), respond.UnsafeString(r.q), r.intent)
}

// appendKey appends the name of the answer to r in the answer cache, in
// st's build. The query is the only part of free form; those after it
// are numbers and a boolean, so no two requests share a key.
func (r *searchRequest) appendKey(b []byte, st *site.Site) []byte {
	b = append(b, st.Build...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(r.bible), 10)
	b = append(b, '/')
	b = append(b, r.intent...)
	b = append(b, '/')
	b = append(b, r.q...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(r.page.Offset), 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(r.page.Size), 10)
	b = append(b, '/')
	return strconv.AppendBool(b, r.text)
}

// parseSearchVerses checks the parameters as the clients check them
// (query 1-100 characters, bible_id a positive int32, page_size 1-99,
// user_intent one of four) and writes the 422 itself.
func (s *Routes) parseSearchVerses(ctx *fasthttp.RequestCtx) (searchRequest, bool) {
	var r searchRequest
	args := ctx.QueryArgs()
	q, ok := searchQueryBytes(ctx)
	if !ok {
		return r, false
	}
	r.q = q
	b := args.Peek("bible_id")
	if len(b) == 0 {
		respond.Invalid(ctx, problem.Missing("query", "bible_id"))
		return r, false
	}
	id, ok := params.Int32(b)
	if !ok || id <= 0 {
		respond.Invalid(ctx, problem.NotPositiveInt32("query", "bible_id"))
		return r, false
	}
	r.bible = id
	if r.intent, ok = searchIntent(ctx); !ok {
		return r, false
	}
	for k, f := range args.All() { // PeekMulti would allocate its list
		if string(k) != "fields[]" {
			continue
		}
		if string(f) != "text" {
			respond.Invalid(ctx, problem.UnknownVerseField(string(f), "query", "fields[]"))
			return r, false
		}
		r.text = true
	}
	r.page.Size = paging.DefaultSize
	switch ps := args.Peek("page_size"); {
	case len(ps) == 0 && !args.Has("page_size"):
	default:
		n, err := strconv.Atoi(string(ps))
		if err != nil {
			respond.Invalid(ctx, problem.NotInt("query", "page_size"))
			return r, false
		}
		if n < 1 || n > paging.MaxSize {
			respond.Invalid(ctx, problem.Between(1, paging.MaxSize, "query", "page_size"))
			return r, false
		}
		r.page.Size = n
	}
	return r, true
}

// searchQuery reads query: 1 to 100 characters, not only spaces.
func searchQuery(ctx *fasthttp.RequestCtx) (string, bool) {
	q, ok := searchQueryBytes(ctx)
	return string(q), ok
}

// searchQueryBytes is searchQuery's query in bytes: the request's own
// when its white space needs no folding (valid while it is served).
func searchQueryBytes(ctx *fasthttp.RequestCtx) ([]byte, bool) {
	args := ctx.QueryArgs()
	if !args.Has("query") {
		respond.Invalid(ctx, problem.Missing("query", "query"))
		return nil, false
	}
	q := args.Peek("query")
	n := utf8.RuneCount(q)
	switch {
	case !utf8.Valid(q):
		respond.Invalid(ctx, problem.NotUTF8("query", "query"))
		return nil, false
	case len(bytes.TrimSpace(q)) == 0:
		respond.Invalid(ctx, problem.TooShort(1, "query", "query"))
		return nil, false
	case n > search.MaxQueryLen:
		respond.Invalid(ctx, problem.TooLong(search.MaxQueryLen, "query", "query"))
		return nil, false
	}
	// Runs of spaces mean what one space means to every search: one
	// spelling makes one cache key and one trending phrase.
	return oneSpaced(q), true
}

// oneSpaced is strings.Join(strings.Fields(string(q)), " ") in bytes: q
// without white space at either end, each run of it within made one
// space. A query that is so already (most are) is q itself.
func oneSpaced(q []byte) []byte {
	space, clean := true, true // space: the rune before is white space, or there is none
	for i := 0; i < len(q) && clean; {
		r, n := rune(q[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(q[i:])
		}
		isSpace := unicode.IsSpace(r)
		clean = !isSpace || r == ' ' && !space && i+n < len(q)
		space = isSpace
		i += n
	}
	if clean {
		return q
	}
	b := make([]byte, 0, len(q))
	space = false
	for i := 0; i < len(q); {
		r, n := rune(q[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(q[i:])
		}
		switch {
		case unicode.IsSpace(r):
			space = len(b) > 0
		default:
			if space {
				b = append(b, ' ')
				space = false
			}
			b = append(b, q[i:i+n]...)
		}
		i += n
	}
	return b
}

// searchIntent reads user_intent; absent is "unknown".
func searchIntent(ctx *fasthttp.RequestCtx) (string, bool) {
	v := ctx.QueryArgs().Peek("user_intent")
	switch string(v) {
	case "":
		return search.IntentUnknown, true
	}
	for _, in := range [...]string{search.IntentReference, search.IntentText, search.IntentTopical, search.IntentUnknown} {
		if string(v) == in {
			return in, true // the constant: no copy of the request's bytes
		}
	}
	respond.Invalid(ctx, problem.OneOf([]string{"reference", "text", "topical", "unknown"}, "query", "user_intent"))
	return "", false
}

// searchVerses serves verse search. Authentication, app status and rate
// limit come first (Routes.Serve), as for every content route; then
// the parameters; then the Bible (404) and the app's licence for it (403).
func (s *Routes) searchVerses(ctx *fasthttp.RequestCtx, st *site.Site, t *authz.Table, app *authz.App) {
	start := time.Now()
	req, ok := s.parseSearchVerses(ctx)
	if !ok {
		return
	}
	req.app = app.ID()
	bv := st.Bibles[req.bible]
	if bv == nil {
		respond.Answer(ctx, problem.NotFound, problem.BibleNotFound(req.bible))
		return
	}
	if !t.CheckLicence(ctx, app, bv.ID) {
		return
	}
	private := !t.IsOpen(bv.ID)
	if tok := ctx.QueryArgs().Peek("page_token"); len(tok) > 0 {
		off, msg := s.pageTokens.Open(tok, req.queryHash(st))
		if msg != "" {
			respond.Answer(ctx, problem.Unacceptable, msg)
			return
		}
		req.page.Offset = off
	}
	// An answer in the cache is looked up by a key in bytes, which costs
	// no allocation; the key is made a string only to compute the answer.
	var kb [256]byte
	k := req.appendKey(kb[:0], st)
	if compose.ServeFound(ctx, s.searched, k, private) {
		s.metrics.observe(time.Since(start), -1)
		if s.trending.Counting() && req.page.Offset == 0 {
			s.countVerseSearch(ctx, bv, req, -1, string(k))
		}
		return
	}
	key := string(k)
	s.compute.Serve(ctx, key, func() bool {
		if !compose.ServeRemembered(ctx, s.searched, key, private) {
			return false
		}
		s.metrics.observe(time.Since(start), -1)
		s.countVerseSearch(ctx, bv, req, -1, key)
		return true
	}, func() {
		x, err := s.searchIndex(ctx, bv)
		if err != nil {
			respond.Fail(ctx, s.log, problem.Unavailable, "search: cannot load index", err)
			return
		}
		if x == nil {
			respond.Answer(ctx, problem.NotFound, problem.NoSearchIndex(bv.ID))
			return
		}
		req.own()
		r := x.Search(req.query, req.intent, req.page.Offset+req.page.Size)
		body := s.searchBody(x, r, req, req.queryHash(st))
		a := compose.NewAnswer(body, publish.JSON, bv.Entry.Search.Modified(), compose.Quick)
		a.ServeNew(ctx, private)
		s.remember(key, a, r.Total)
		s.metrics.observe(time.Since(start), r.Total)
		s.countVerseSearch(ctx, bv, req, r.Total, key)
	})
}

// countVerseSearch counts a first page that found verses for trending
// (trending.go), under the Bible's language; further pages of the same
// search count nothing. found < 0 means the answer came from the cache:
// whether it found anything is looked up only when it will be counted.
func (s *Routes) countVerseSearch(ctx *fasthttp.RequestCtx, bv *site.Bible, req searchRequest, found int, key string) {
	if !s.trending.Counting() || req.page.Offset != 0 {
		return
	}
	h := heldIndexOf(bv)
	if h == nil {
		return
	}
	if found < 0 {
		found = s.foundBefore(key)
	}
	req.own()
	s.trending.count(h.x.Language(), req.query, req.app, s.authz.ClientAddr(ctx), found)
}

// remember caches a computed search answer under key, and whether it
// found anything, which trending counts when the answer is served again.
// The answer is served first: it is kept with the coding that request
// got.
func (s *Routes) remember(key string, a *compose.Answer, found int) {
	s.searched.Add(key, a, a.Size())
	if found > 0 {
		s.searched.Add(key+foundSuffix, a, 0) // shares a: counts only the entry
	}
}

// foundBefore is 1 when the answer cached under key found something, 0
// when it found nothing (or that mark was evicted: then the search is
// not counted, the safe side).
func (s *Routes) foundBefore(key string) int {
	if _, ok := s.searched.Peek(key + foundSuffix); ok {
		return 1
	}
	return 0
}

const foundSuffix = "\x00found"

// searchBody writes the answer: verses, user_intent, did_you_mean,
// search_instead_for and next_page_token, always present as the live
// service sends them; the last two are null when they do not apply.
func (s *Routes) searchBody(x *search.Index, r *search.Result, req searchRequest, qh [8]byte) []byte {
	from, to := min(req.page.Offset, len(r.Verses)), len(r.Verses)
	b := make([]byte, 0, 64+40*(to-from))
	b = append(b, `{"verses":[`...)
	for i, v := range r.Verses[from:to] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"reference":`...)
		b = wire.AppendJSONString(b, x.Verse(v))
		if req.text {
			b = append(b, `,"text":`...)
			b = wire.AppendJSONString(b, x.Text(v))
			b = append(b, `,"matches":[`...)
			for k, m := range x.Matches(r, v) {
				if k > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"start":`...)
				b = strconv.AppendInt(b, int64(m.Start), 10)
				b = append(b, `,"end":`...)
				b = strconv.AppendInt(b, int64(m.End), 10)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, `],"user_intent":`...)
	b = wire.AppendJSONString(b, r.Intent)
	b = append(b, `,"did_you_mean":[`...)
	for i, d := range r.DidYouMean {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendJSONString(b, d)
	}
	b = append(b, `],"search_instead_for":`...)
	if r.SearchInsteadFor != "" {
		b = wire.AppendJSONString(b, r.SearchInsteadFor)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"next_page_token":`...)
	if end := req.page.Offset + req.page.Size; end < r.Total {
		b = append(b, '"')
		b = append(b, s.pageTokens.Issue(end, qh)...)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}

// searchMetrics are the search route class's own figures: a latency
// histogram, how many verses queries found, and how many found none.
type searchMetrics struct {
	latency [len(searchLatencyBuckets) + 1]metrics.Counter
	sum     atomic.Int64    // nanoseconds
	results metrics.Counter // verses found, summed (answers computed, not cached)
	zero    metrics.Counter // computed answers with no verse
	queries metrics.Counter // computed answers
}

var searchLatencyBuckets = [...]time.Duration{100 * time.Microsecond, 250 * time.Microsecond,
	500 * time.Microsecond, time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 100 * time.Millisecond}

// observe counts one answer; total is -1 for an answer from the cache.
func (m *searchMetrics) observe(d time.Duration, total int) {
	i := 0
	for i < len(searchLatencyBuckets) && d > searchLatencyBuckets[i] {
		i++
	}
	m.latency[i].Inc()
	m.sum.Add(int64(d))
	if total < 0 {
		return
	}
	m.queries.Inc()
	m.results.Add(uint64(total))
	if total == 0 {
		m.zero.Inc()
	}
}

// WriteMetrics adds the search routes' figures to /metrics.
func (s *Routes) WriteMetrics(w io.Writer) {
	m := &s.metrics
	fmt.Fprintln(w, "# HELP edge_search_duration_seconds Time to answer a search request that got past its checks.")
	fmt.Fprintln(w, "# TYPE edge_search_duration_seconds histogram")
	var cum uint64
	for i, b := range searchLatencyBuckets {
		cum += m.latency[i].Load()
		fmt.Fprintf(w, "edge_search_duration_seconds_bucket{le=\"%g\"} %d\n", b.Seconds(), cum)
	}
	cum += m.latency[len(searchLatencyBuckets)].Load()
	fmt.Fprintf(w, "edge_search_duration_seconds_bucket{le=\"+Inf\"} %d\n", cum)
	fmt.Fprintf(w, "edge_search_duration_seconds_sum %g\n", time.Duration(m.sum.Load()).Seconds())
	fmt.Fprintf(w, "edge_search_duration_seconds_count %d\n", cum)
	metrics.WriteScalar(w, "edge_search_queries_total", "counter", "Search answers computed (not from the answer cache).", m.queries.Load())
	metrics.WriteScalar(w, "edge_search_results_total", "counter", "Verses and topics found by the computed answers (verse, topic and unified search).", m.results.Load())
	metrics.WriteScalar(w, "edge_search_zero_results_total", "counter", "Computed answers that found nothing (zero-result rate: this over edge_search_queries_total).", m.zero.Load())
}
