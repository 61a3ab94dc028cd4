package searchapi

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/catalog"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/search"
	"github.com/bibleplatform/platform/topic"
	"github.com/bibleplatform/platform/wire/problem"
)

// searchQueries is GET /v1-beta/search-queries: as-you-type suggestions
// for query, or with trending=true what users searched most lately
// (trending.go). Either is {"data": [{"text", "source"}]}, or 204 with no
// body when there is nothing to suggest.
func (s *Routes) searchQueries(ctx *fasthttp.RequestCtx, st *site.Site, t *authz.Table, app *authz.App) {
	// Suggestions are timed with the searches but are not searches: they
	// count no results (-1).
	start := time.Now()
	defer func() { s.metrics.observe(time.Since(start), -1) }()
	args := ctx.QueryArgs()
	trending, _, ok := params.Bool(args.Peek("trending"))
	if !ok || args.Has("trending") && len(args.Peek("trending")) == 0 {
		respond.Invalid(ctx, problem.NotBool("query", "trending"))
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
	// is answered from the composed cache without matching again. Book
	// names and vocabulary come from the language's Bibles, so the answer
	// depends on the app's licences: the key names the app.
	reqKey := searchRequestKey(st, "suggest", query, strings.Join(ranges, ","), app.ID())
	s.compute.Serve(ctx, reqKey, func() bool {
		_, private := s.composed.Peek(reqKey + privateSuffix)
		return compose.ServeRemembered(ctx, s.composed, reqKey, private)
	}, func() {
		var found []topic.Suggestion
		mod := st.Manifest.Created
		private := false
		_, err := s.eachRange(ctx, st, ranges, func(l *langAids) bool {
			if l.suggest == nil {
				return false
			}
			lic, err := s.licensedIndexes(ctx, st, t, app, l.tag)
			if err != nil {
				s.log.Warn("search: cannot load an index for suggestions", "id", ctx.ID(), "err", err)
			}
			found, mod = l.suggest.SuggestWhere(query, lic.shows), l.mod
			private = private || lic.private(found)
			return len(found) > 0
		})
		if err != nil {
			respond.Fail(ctx, s.log, problem.Unavailable, "search: cannot load an index, topics or suggestions", err)
			return
		}
		if len(found) == 0 {
			compose.NoContent(ctx, private)
			return
		}
		if private {
			s.composed.Add(reqKey+privateSuffix, nil, 0)
		}
		compose.Serve(ctx, s.composed, reqKey, suggestionsBody(found), mod, searchCache, private)
	})
}

// privateSuffix marks, next to a cached answer, that it is private.
const privateSuffix = "\x00private"

// licensed are the search indexes of one language's Bibles an app may
// read, open ones apart: the Bibles suggestions drawn from text may come
// from (spec: an app sees only the text it is licensed for).
type licensed struct {
	open, closed []*search.Index
	// bibles and openBibles count the licensed Bibles in the language,
	// index loaded or not: a book name needs only that (an edge restarted
	// during a store outage may hold the catalogue but not every index).
	bibles, openBibles int
}

func (s *Routes) licensedIndexes(ctx context.Context, st *site.Site, t *authz.Table, app *authz.App, tag string) (licensed, error) {
	var l licensed
	var firstErr error
	for _, bv := range st.Bibles {
		if !t.Licensed(app, bv.ID) {
			continue
		}
		x, err := s.searchIndex(ctx, bv)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if x == nil && catalog.InLanguage(st, bv.ID, tag) || x != nil && x.Language() == tag {
			l.bibles++
			if t.IsOpen(bv.ID) {
				l.openBibles++
			}
		}
		if x == nil || x.Language() != tag {
			continue
		}
		if t.IsOpen(bv.ID) {
			l.open = append(l.open, x)
		} else {
			l.closed = append(l.closed, x)
		}
	}
	return l, firstErr
}

// shows reports whether the app may see a suggestion: topics are the
// language's own list; a book name needs a licensed Bible in the
// language, a word of vocabulary one that holds it.
func (l licensed) shows(sg topic.Suggestion) bool {
	switch sg.Source {
	case topic.SourceTopic:
		return true
	case topic.SourceBook:
		return l.bibles > 0
	}
	return l.holds(l.open, sg) || l.holds(l.closed, sg)
}

func (l licensed) holds(xs []*search.Index, sg topic.Suggestion) bool {
	for _, x := range xs {
		if x.Holds(sg.Text) {
			return true
		}
	}
	return false
}

// private reports whether a list shows what only a Bible that is not
// open holds: then the answer is the app's alone.
func (l licensed) private(found []topic.Suggestion) bool {
	for _, sg := range found {
		switch {
		case sg.Source == topic.SourceTopic:
		case sg.Source == topic.SourceBook:
			if l.openBibles == 0 {
				return true
			}
		case !l.holds(l.open, sg):
			return true
		}
	}
	return false
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
