package dynamic

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/trending"
	"github.com/bibleplatform/platform/wire/problem"
)

// Trending search queries (docs/search.md): edges report counted searches
// to POST /internal/search-queries and read the trending phrases from GET
// /internal/search-trending, both authenticated with the edge token like
// /internal/access. The counts live in PostgreSQL, so that every edge
// shares one view and a restart of either side loses nothing reported.

// Defaults of the trending computation.
const (
	DefaultTrendingWindow  = 7 * 24 * time.Hour
	DefaultTrendingMinApps = 3
	trendingLimit          = 10
	// trendingFresh is how long a computed snapshot is served before it
	// is computed again: N edges refreshing cost one query per period.
	trendingFresh = 5 * time.Second
)

// SearchCount is one phrase's reported searches, its apps and clients
// already turned into the day's keyed hashes (16 bytes each).
type SearchCount struct {
	Language string
	Phrase   string
	Count    int64
	Apps     [][]byte
	Clients  [][]byte
}

// trends serves /internal/search-queries and /internal/search-trending
// from the search counts, and keeps the last trending snapshot.
type trends struct {
	*requests
	store   SearchStore
	window  time.Duration
	minApps int

	mu    sync.Mutex
	body  []byte
	built time.Time
}

// postSearchQueries answers POST /internal/search-queries: a trending.Batch,
// checked whole (422 names the first bad entry), stored in one
// transaction, 204.
func (tr *trends) postSearchQueries(ctx *fasthttp.RequestCtx) {
	var b trending.Batch
	dec := json.NewDecoder(bytes.NewReader(ctx.PostBody()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		validation(ctx, problem.JSONBody(err))
		return
	}
	if len(b.Queries) > trending.MaxBatch {
		validation(ctx, problem.TooManyItems(trending.MaxBatch, "body", "queries"))
		return
	}
	merged := map[[2]string]*trending.Count{}
	for i := range b.Queries {
		q := &b.Queries[i]
		if d := checkCount(i, q); d != nil {
			validation(ctx, *d)
			return
		}
		k := [2]string{q.Language, q.Phrase}
		if m := merged[k]; m != nil {
			m.Count += q.Count
			m.Apps = append(m.Apps, q.Apps...)
			m.Clients = append(m.Clients, q.Clients...)
			continue
		}
		merged[k] = q
	}
	if len(merged) == 0 {
		noContent(ctx, http.StatusNoContent)
		return
	}
	now := tr.now()
	salt, err := tr.store.SearchSalt(tr.ctx, now)
	if err != nil {
		tr.fail(ctx, err)
		return
	}
	qs := make([]SearchCount, 0, len(merged))
	for _, q := range merged {
		qs = append(qs, SearchCount{Language: q.Language, Phrase: q.Phrase, Count: q.Count,
			Apps: distinctHashes(salt, q.Apps), Clients: distinctHashes(salt, q.Clients)})
	}
	sort.Slice(qs, func(i, j int) bool {
		if qs[i].Language != qs[j].Language {
			return qs[i].Language < qs[j].Language
		}
		return qs[i].Phrase < qs[j].Phrase
	})
	if err := tr.store.AddSearchQueries(tr.ctx, now, qs); err != nil {
		tr.fail(ctx, err)
		return
	}
	noContent(ctx, http.StatusNoContent)
}

// appHash is the day's keyed hash of an app id: the same app gives the same
// hash all day, and nothing once the salt is gone.
func appHash(salt []byte, app string) []byte {
	m := hmac.New(sha256.New, salt)
	m.Write([]byte(app))
	return m.Sum(nil)[:16]
}

// distinctHashes is the day's keyed hash of each distinct id.
func distinctHashes(salt []byte, ids []string) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, appHash(salt, id))
		}
	}
	return out
}

func checkCount(i int, q *trending.Count) *detail {
	loc := func(f string) []string { return []string{"body", "queries", strconv.Itoa(i), f} }
	switch {
	case q.Language == "" || len(q.Language) > trending.MaxLanguageLen:
		return entry(problem.LengthBetween(1, trending.MaxLanguageLen, loc("language")...))
	case strings.ContainsFunc(q.Language, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-')
	}):
		return entry(problem.LanguageTag(loc("language")...))
	case q.Phrase == "" || trending.Normalize(q.Phrase) != q.Phrase:
		return entry(problem.Phrase(loc("phrase")...))
	case q.Count < 1 || q.Count > 1<<31:
		return entry(problem.OutOfRange(1, 1<<31, loc("count")...))
	case len(q.Apps) > trending.MaxApps:
		return entry(problem.TooManyItems(trending.MaxApps, loc("apps")...))
	}
	for _, a := range q.Apps {
		if a == "" || !utf8.ValidString(a) || len(a) > 64 {
			return entry(problem.LengthBetween(1, 64, loc("apps")...))
		}
	}
	if len(q.Clients) > trending.MaxApps {
		return entry(problem.TooManyItems(trending.MaxApps, loc("clients")...))
	}
	for _, c := range q.Clients {
		if c == "" || !utf8.ValidString(c) || len(c) > 64 {
			return entry(problem.LengthBetween(1, 64, loc("clients")...))
		}
	}
	return nil
}

// getSearchTrending answers GET /internal/search-trending with a
// trending.Snapshot, computed at most every trendingFresh.
func (tr *trends) getSearchTrending(ctx *fasthttp.RequestCtx) {
	body, err := tr.trendingSnapshot(tr.ctx)
	if err != nil {
		tr.fail(ctx, err)
		return
	}
	writeBody(ctx, http.StatusOK, body)
}

func (tr *trends) trendingSnapshot(ctx context.Context) ([]byte, error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	now := tr.now()
	if tr.body != nil && now.Sub(tr.built) < trendingFresh && !now.Before(tr.built) {
		return tr.body, nil
	}
	langs, err := tr.store.Trending(ctx, now.Add(-tr.window), tr.minApps, trendingLimit)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(trending.Snapshot{Generated: now.UTC(), Languages: langs})
	if err != nil {
		return nil, err
	}
	tr.body, tr.built = b, now
	return b, nil
}

// purgeSearchQueries deletes what the window no longer covers, and past days' salts.
func (tr *trends) purgeSearchQueries(ctx context.Context) error {
	now := tr.now()
	return tr.store.PurgeSearchQueries(ctx, now.Add(-tr.window), now)
}
