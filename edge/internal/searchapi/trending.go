package searchapi

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/edge/internal/outage"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/trending"
	"github.com/bibleplatform/platform/wire"
)

// Trending search queries (docs/search.md). Each search the edge answers
// is counted in a bounded in-memory batch (trending.Counter); every
// SearchReportInterval the batch is reported to dynamic, which keeps the
// counts of every edge in PostgreSQL, and every TrendingRefresh the edge
// fetches the trending phrases dynamic computes from them. Requests read
// the snapshot the edge holds: PostgreSQL is never on the request path.
// Passage and catalogue requests count nothing.

// Defaults of the reporting loop.
const (
	DefaultSearchReportInterval = 10 * time.Second
	DefaultTrendingRefresh      = 30 * time.Second
	// trendingCache is the Cache-Control of trending answers: they move
	// with the refresh.
	trendingCache = "public, max-age=60"
	// trendingShown is the most phrases one answer lists.
	trendingShown = 10
)

// Internal routes of the dynamic service, authenticated with the edge
// token like /internal/access.
const (
	internalSearchQueries  = "/internal/search-queries"
	internalSearchTrending = "/internal/search-trending"
)

// Trends is the edge's side of trending search queries: the counts it
// reports to dynamic, and the snapshot of trending phrases it serves.
type Trends struct {
	counter trending.Counter
	snap    atomic.Pointer[trendSnap]
	client  *http.Client // nil without a dynamic service

	log          *slog.Logger
	dynamicURL   string
	edgeToken    string
	timeout      time.Duration // of one call to dynamic
	reportEvery  time.Duration
	refreshEvery time.Duration

	// failed counts reports and refreshes that failed.
	reportFailed, refreshFailed metrics.Counter
	// Their warnings while dynamic is down, one an interval.
	reportOutage, refreshOutage outage.Log
}

// trendSnap is a snapshot ready to serve.
type trendSnap struct {
	tags  []string // languages with phrases, sorted
	byTag map[string][]trending.Phrase
	mod   time.Time
}

// count records one search that found found results; it is a no-op
// without a dynamic service to report to, and for a search that found
// nothing: trending lists what readers found, so phrases that find
// nothing (typing noise, probes, spam) never count.
// Counting reports whether count counts anything: whether this edge
// reports to a dynamic service. Callers skip looking up what only count
// needs when it does not.
func (t *Trends) Counting() bool { return t.client != nil }

// The client's keyed hash is computed here, after the checks: an answer
// served from the cache that counts nothing costs no hash.
func (t *Trends) count(language, query, app string, from netip.Addr, found int) {
	if t.client == nil || found <= 0 {
		return
	}
	t.counter.Add(language, query, app, trendingClient(from))
}

// trendingClient names the client a search came from for trending's count
// of distinct clients: a keyed hash of its address (an IPv6 client per
// /64), the key random per process, so that the address itself never
// leaves the edge. A client searching through two edges counts twice,
// which errs towards the count of apps, never below it.
//
// A client searches many times in a row, so the names of the latest
// clients are kept by address (clientNames): the keyed hash costs 1.3 to
// 1.7 us and 8 allocations, about what the rest of a cached answer
// costs; a name found costs neither.
func trendingClient(ip netip.Addr) string {
	ip = ip.Unmap()
	if ip.Is6() {
		ip = netip.PrefixFrom(ip, 64).Masked().Addr()
	}
	b := ip.As16()
	slot := &clientNames[maphash.Bytes(clientNameSeed, b[:])%uint64(len(clientNames))]
	if n := slot.Load(); n != nil && n.addr == ip {
		return n.name
	}
	name := clientHash(ip)
	slot.Store(&clientName{addr: ip, name: name})
	return name
}

// clientHash is the keyed hash that names a client, without clientNames.
func clientHash(ip netip.Addr) string {
	b := ip.As16()
	m := hmac.New(sha256.New, trendingClientKey)
	m.Write(b[:])
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:12])
}

// clientNames are the trending names of recent clients, a slot per
// address hash; a client whose address falls on a taken slot takes it.
// A slot is replaced whole, so a reader sees one client's address and
// name together.
var clientNames [1024]atomic.Pointer[clientName]

type clientName struct {
	addr netip.Addr // as trendingClient reduces it
	name string
}

var clientNameSeed = maphash.MakeSeed()

var trendingClientKey = func() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}()

// TrendsConfig is what NewTrends needs.
type TrendsConfig struct {
	Log *slog.Logger
	// DynamicURL is the dynamic service's; "": nothing is counted,
	// reported or refreshed.
	DynamicURL   string
	EdgeToken    string
	Timeout      time.Duration // of one call to dynamic
	ReportEvery  time.Duration // DefaultSearchReportInterval when zero
	RefreshEvery time.Duration // DefaultTrendingRefresh when zero
}

// NewTrends returns the trending counts and snapshot.
func NewTrends(cfg TrendsConfig) *Trends {
	t := &Trends{log: cfg.Log, dynamicURL: cfg.DynamicURL, edgeToken: cfg.EdgeToken, timeout: cfg.Timeout,
		reportEvery: cfg.ReportEvery, refreshEvery: cfg.RefreshEvery}
	if t.reportEvery <= 0 {
		t.reportEvery = DefaultSearchReportInterval
	}
	if t.refreshEvery <= 0 {
		t.refreshEvery = DefaultTrendingRefresh
	}
	if cfg.DynamicURL != "" {
		t.client = &http.Client{}
	}
	return t
}

// Run reports counted searches and refreshes the trending snapshot until
// ctx ends. Without a dynamic service it returns at once.
func (s *Trends) Run(ctx context.Context) {
	if s.client == nil {
		return
	}
	report := time.NewTicker(s.reportEvery)
	defer report.Stop()
	refresh := time.NewTicker(s.refreshEvery)
	defer refresh.Stop()
	s.refreshLogged(ctx)
	for {
		select {
		case <-ctx.Done():
			// The last batch, on the way out.
			stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			s.reportLogged(stop)
			cancel()
			return
		case <-report.C:
			s.reportLogged(ctx)
		case <-refresh.C:
			s.refreshLogged(ctx)
		}
	}
}

func (s *Trends) reportLogged(ctx context.Context) {
	if err := s.Report(ctx); err != nil {
		s.reportOutage.Failed(s.log, "cannot report search queries; kept for the next report", "err", err)
	} else {
		s.reportOutage.OK(s.log, "search queries reported again")
	}
}

func (s *Trends) refreshLogged(ctx context.Context) {
	if err := s.Refresh(ctx); err != nil {
		s.refreshOutage.Failed(s.log, "cannot refresh trending search queries; serving the last snapshot", "err", err)
	} else {
		s.refreshOutage.OK(s.log, "trending search queries refreshed again")
	}
}

// report is ReportSearchQueries.
// Report sends the searches counted since the last report to dynamic. On
// failure they are kept (within the counter's bound) for the next report.
func (t *Trends) Report(ctx context.Context) error {
	if t.client == nil {
		return nil
	}
	b := t.counter.Take()
	if b == nil {
		return nil
	}
	// In parts small enough for any request body limit (a phrase with its
	// apps is under 2 KB); a part that fails goes back with the rest.
	for q := b.Queries; len(q) > 0; {
		part := q[:min(len(q), reportPart)]
		body, err := json.Marshal(trending.Batch{Queries: part})
		if err == nil {
			_, err = t.internal(ctx, http.MethodPost, internalSearchQueries, body)
		}
		if err != nil {
			t.reportFailed.Inc()
			t.counter.Restore(&trending.Batch{Queries: q})
			return err
		}
		q = q[len(part):]
	}
	return nil
}

// reportPart is the most phrases one report request carries.
const reportPart = 1000

// refresh is RefreshTrending.
// Refresh fetches the trending phrases from dynamic.
func (t *Trends) Refresh(ctx context.Context) error {
	if t.client == nil {
		return nil
	}
	b, err := t.internal(ctx, http.MethodGet, internalSearchTrending, nil)
	if err != nil {
		t.refreshFailed.Inc()
		return err
	}
	var snap trending.Snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		t.refreshFailed.Inc()
		return fmt.Errorf("trending snapshot: %w", err)
	}
	ts := &trendSnap{byTag: map[string][]trending.Phrase{}, mod: snap.Generated}
	for tag, list := range snap.Languages {
		if len(list) == 0 {
			continue
		}
		if len(list) > trendingShown {
			list = list[:trendingShown]
		}
		ts.byTag[tag] = list
		ts.tags = append(ts.tags, tag)
	}
	sort.Strings(ts.tags)
	t.snap.Store(ts)
	return nil
}

// Internal calls one of dynamic's internal routes with the edge token, as
// the reports of trending and of usage (edge/usage.go) do.
func (s *Trends) Internal(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	return s.internal(ctx, method, path, body)
}

// internal calls one of dynamic's internal routes with the edge token.
func (s *Trends) internal(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(s.dynamicURL, "/")+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set(wire.HeaderEdgeToken, s.edgeToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(out))
	}
	return out, nil
}

// serveTrending answers search-queries?trending=true from the snapshot:
// the phrases of the first language range that has any, 204 when none.
func (s *Routes) serveTrending(ctx *fasthttp.RequestCtx, ranges []string) {
	ts := s.trending.snap.Load()
	if ts == nil {
		compose.NoContent(ctx, false)
		return
	}
	for _, r := range ranges {
		for _, tag := range ts.tags {
			if !lang.MatchRange(r, tag) {
				continue
			}
			list := ts.byTag[tag]
			out := make([]suggestionJSON, len(list))
			src := "trending"
			for i, p := range list {
				out[i] = suggestionJSON{Text: p.Text, Source: &src}
			}
			body, _ := json.Marshal(struct {
				Data []suggestionJSON `json:"data"`
			}{out})
			compose.Serve(ctx, s.composed, "", body, ts.mod, trendingCache, false)
			return
		}
	}
	compose.NoContent(ctx, false)
}

// WriteMetrics adds the trending figures to /metrics.
func (t *Trends) WriteMetrics(w io.Writer) {
	fmt.Fprintln(w, "# HELP edge_search_queries_dropped_total Searches not counted for trending: the batch was full.")
	fmt.Fprintln(w, "# TYPE edge_search_queries_dropped_total counter")
	fmt.Fprintf(w, "edge_search_queries_dropped_total %d\n", t.counter.Dropped())
	fmt.Fprintln(w, "# HELP edge_search_trending_failures_total Failed reports of counted searches and refreshes of the trending snapshot.")
	fmt.Fprintln(w, "# TYPE edge_search_trending_failures_total counter")
	fmt.Fprintf(w, "edge_search_trending_failures_total{op=\"report\"} %d\n", t.reportFailed.Load())
	fmt.Fprintf(w, "edge_search_trending_failures_total{op=\"refresh\"} %d\n", t.refreshFailed.Load())
}
