package edge

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/topic"
)

// searchQueries is GET /v1-beta/search-queries: as-you-type suggestions
// for query, or with trending=true what users searched most lately
// (trending.go). Either is {"data": [{"text", "source"}]}, or 204 with no
// body when there is nothing to suggest.
func (s *searchAPI) searchQueries(ctx *fasthttp.RequestCtx, st *site, app *authz.App) {
	// Suggestions are timed with the searches but are not searches: they
	// count no results (-1).
	start := time.Now()
	defer func() { s.metrics.observe(time.Since(start), -1) }()
	args := ctx.QueryArgs()
	trending, _, ok := parseBool(args.Peek("trending"))
	if !ok || args.Has("trending") && len(args.Peek("trending")) == 0 {
		respond.Invalid(ctx, "query", "trending", "Input should be a valid boolean", "bool_parsing")
		return
	}
	if trending {
		ranges, ok := searchRanges(ctx)
		if !ok {
			return
		}
		s.serveTrending(ctx, ranges)
		return
	}
	query, ok := searchQuery(ctx)
	if !ok {
		return
	}
	ranges, ok := searchRanges(ctx)
	if !ok {
		return
	}
	// Typing asks for the same prefixes over and over: a repeated request
	// is answered from the composed cache without matching again.
	reqKey := searchRequestKey(st, "suggest", query, strings.Join(ranges, ","))
	s.compute.serve(ctx, reqKey, func() bool {
		return serveRemembered(ctx, s.composed, reqKey, false, false)
	}, func() {
		var found []topic.Suggestion
		mod := st.manifest.Created
		_, err := s.eachRange(ctx, st, ranges, func(l *langAids) bool {
			if l.suggest == nil {
				return false
			}
			found, mod = l.suggest.Suggest(query), l.mod
			return len(found) > 0
		})
		if err != nil {
			respond.Fail(ctx, s.log, respond.Unavailable, "search: cannot load an index, topics or suggestions", err)
			return
		}
		if len(found) == 0 {
			noContent(ctx, false)
			return
		}
		serveComposedCache(ctx, s.composed, reqKey, suggestionsBody(found), mod, searchCache, false)
	})
}

// suggestionJSON is a suggestion as the wire format has it.
type suggestionJSON struct {
	Text   string  `json:"text"`
	Source *string `json:"source"`
}

func suggestionsBody(list []topic.Suggestion) []byte {
	out := make([]suggestionJSON, len(list))
	for i := range list {
		out[i] = suggestionJSON{Text: list[i].Text, Source: &list[i].Source}
	}
	b, _ := json.Marshal(struct {
		Data []suggestionJSON `json:"data"`
	}{out})
	return b
}
