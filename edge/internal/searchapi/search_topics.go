package searchapi

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/topic"
	"github.com/bibleplatform/platform/wire/problem"
)

// searchCache is the Cache-Control of topic search and suggestions: they
// depend only on the build and the request, like the catalogues.
const searchCache = represent.CachePublic

// topicJSON is a topic as the wire format has it: no passages.
type topicJSON struct {
	ID        *int64   `json:"id"`
	Text      string   `json:"text"`
	Subtopics []string `json:"subtopics"`
}

// topicAnswer is a topic search's outcome in one language.
type topicAnswer struct {
	tag string // the language that answered ("" when none did)
	res topic.Result
}

func (a *topicAnswer) topicsJSON() []topicJSON {
	out := make([]topicJSON, len(a.res.Topics))
	for i, t := range a.res.Topics {
		out[i] = topicJSON{ID: t.ID, Text: t.Text, Subtopics: t.Subtopics}
	}
	return out
}

func (a *topicAnswer) didYouMean() []string {
	if a.res.DidYouMean == nil {
		return []string{}
	}
	return a.res.DidYouMean
}

// findTopics searches the topics of the first language range whose topics
// answer the query (as typed or corrected). mod is the Last-Modified of
// the answer.
func (s *Routes) findTopics(ctx *fasthttp.RequestCtx, st *site.Site, ranges []string, query string) (topicAnswer, time.Time, error) {
	var ans topicAnswer
	mod := st.Manifest.Created
	_, err := s.eachRange(ctx, st, ranges, func(l *langAids) bool {
		if l.topics == nil || l.topics.Len() == 0 {
			return false
		}
		if ans.tag == "" {
			ans.tag = l.tag // counted under the first language searched
		}
		r := l.topics.Search(query)
		if len(r.Topics) == 0 {
			return false
		}
		ans, mod = topicAnswer{tag: l.tag, res: r}, l.mod
		return true
	})
	return ans, mod, err
}

// searchTopics is GET /v1-beta/search-topics: {"topics": [...],
// "did_you_mean": [...], "search_instead_for": "…" or null, "total_size"},
// all four always present as the live service sends them; every topic found
// is in the one page, so total_size is their number. Nothing found is an
// empty list, not 204 (only suggestions answer 204).
func (s *Routes) searchTopics(ctx *fasthttp.RequestCtx, st *site.Site, app *authz.App) {
	start := time.Now()
	query, ok := searchQuery(ctx)
	if !ok {
		return
	}
	ranges, ok := searchRanges(ctx)
	if !ok {
		return
	}
	key := searchRequestKey(st, "topics", query, strings.Join(ranges, ","))
	s.compute.Serve(ctx, key, func() bool {
		if !compose.ServeRemembered(ctx, s.searched, key, false) {
			return false
		}
		s.metrics.observe(time.Since(start), -1)
		if tag := s.foundTopicsIn(st, key, ranges); tag != "" {
			s.trending.count(tag, query, app.ID(), s.authz.ClientAddr(ctx), 1)
		}
		return true
	}, func() {
		ans, mod, err := s.findTopics(ctx, st, ranges, query)
		if err != nil {
			respond.Fail(ctx, s.log, problem.Unavailable, "search: cannot load an index, topics or suggestions", err)
			return
		}
		topics := ans.topicsJSON()
		body, _ := json.Marshal(struct {
			Topics           []topicJSON `json:"topics"`
			DidYouMean       []string    `json:"did_you_mean"`
			SearchInsteadFor *string     `json:"search_instead_for"`
			TotalSize        int         `json:"total_size"`
		}{topics, ans.didYouMean(), nonEmpty(ans.res.SearchInsteadFor), len(topics)})
		a := compose.NewAnswer(body, publish.JSON, mod, compose.Kept)
		a.ServeNew(ctx, false)
		s.searched.Add(key, a, a.Size())
		if len(ans.res.Topics) > 0 {
			// Which language answered, for trending when the answer is
			// served again from the cache.
			s.searched.Add(key+foundSuffix+"\x00"+ans.tag, nil, 0)
		}
		s.metrics.observe(time.Since(start), len(ans.res.Topics))
		s.trending.count(ans.tag, query, app.ID(), s.authz.ClientAddr(ctx), len(ans.res.Topics))
	})
}

// foundTopicsIn is the language whose topics answered the topic search
// cached under key, "" when it found none (or that mark was evicted: then
// the search is not counted, the safe side).
func (s *Routes) foundTopicsIn(st *site.Site, key string, ranges []string) string {
	for _, tag := range aidsIn(st).languages(st.Manifest) {
		for _, r := range ranges {
			if lang.MatchRange(r, tag) {
				if _, ok := s.searched.Peek(key + foundSuffix + "\x00" + tag); ok {
					return tag
				}
				break
			}
		}
	}
	return ""
}

// searchRequestKey names an answer by the build, the operation and its
// validated, normalised parameters (never the query string as sent, so
// that spellings of one request share a key).
func searchRequestKey(st *site.Site, op string, params ...string) string {
	return "search-req/" + st.Build + "/" + op + "\x00" + strings.Join(params, "\x00")
}
