package searchapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/paging"
	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
	"github.com/bibleplatform/platform/wire/problem"
)

// unifiedVerses is how many verses unified search lists: the first page of
// verse search. The wire format has no paging for it; an app that wants
// more asks search-verses.
const unifiedVerses = paging.DefaultSize

// searchResults is GET /v1-beta/search-results and /v1/search-unified:
// verses of one Bible and topics together, {"verses": [{"reference"}],
// "topics": [...], "user_intent", "did_you_mean": [], "search_instead_for"}. fields[]
// (verses, topics; none or both: all) picks what is searched; user_intent
// goes to verse search as it does there. Verses need bible_id and the
// app's licence for it (403); topics come from language_ranges[], or from
// the Bible's language when the request names none.
func (s *Routes) searchResults(ctx *fasthttp.RequestCtx, st *site.Site, t *authz.Table, app *authz.App) {
	start := time.Now()
	args := ctx.QueryArgs()
	query, ok := searchQuery(ctx)
	if !ok {
		return
	}
	intent, ok := searchIntent(ctx)
	if !ok {
		return
	}
	wantVerses, wantTopics := false, false
	for _, f := range args.PeekMulti("fields[]") {
		switch string(f) {
		case "verses":
			wantVerses = true
		case "topics":
			wantTopics = true
		default:
			respond.Invalid(ctx, problem.OneOf([]string{"verses", "topics"}, "query", "fields[]"))
			return
		}
	}
	if !wantVerses && !wantTopics {
		wantVerses, wantTopics = true, true
	}
	var ranges []string
	if args.Has("language_ranges[]") {
		if ranges, ok = searchRanges(ctx); !ok {
			return
		}
	}
	var bibleID int32
	if b := args.Peek("bible_id"); len(b) > 0 || args.Has("bible_id") {
		id, ok := params.Int32(b)
		if !ok || id <= 0 {
			respond.Invalid(ctx, problem.NotPositiveInt32("query", "bible_id"))
			return
		}
		bibleID = id
	}
	switch {
	case wantVerses && bibleID == 0:
		respond.Invalid(ctx, problem.Missing("query", "bible_id"))
		return
	case wantTopics && ranges == nil && bibleID == 0:
		respond.Invalid(ctx, problem.Missing("query", "language_ranges[]"))
		return
	}
	var bv *site.Bible
	private := false
	if bibleID != 0 {
		if bv = st.Bibles[bibleID]; bv == nil {
			respond.Answer(ctx, problem.NotFound, problem.BibleNotFound(bibleID))
			return
		}
		// Verses found in a licensed Bible tell what its text says: the
		// passage rule applies (403, private).
		if wantVerses && !t.CheckLicence(ctx, app, bv.ID) {
			return
		}
		private = wantVerses && !t.IsOpen(bv.ID)
	}
	var x *search.Index
	if bv != nil {
		var err error
		if x, err = s.searchIndex(ctx, bv); err != nil {
			respond.Fail(ctx, s.log, problem.Unavailable, "search: cannot load an index, topics or suggestions", err)
			return
		}
		if x == nil && (wantVerses || ranges == nil) {
			respond.Answer(ctx, problem.NotFound, problem.NoSearchIndex(bv.ID))
			return
		}
	}
	if ranges == nil {
		ranges = []string{x.Language()}
	}
	key := "results/" + st.Build + "/" + strconv.Itoa(int(bibleID)) + "/" + intent + "/" + strconv.FormatBool(wantVerses) +
		"/" + strconv.FormatBool(wantTopics) + "/" + strings.Join(ranges, ",") + "\x00" + query
	lang := ""
	if x != nil && wantVerses {
		lang = x.Language()
	}
	s.compute.Serve(ctx, key, func() bool {
		if !compose.ServeRemembered(ctx, s.searched, key, private) {
			return false
		}
		s.metrics.observe(time.Since(start), -1)
		if lang != "" && s.trending.Counting() {
			s.trending.count(lang, query, app.ID(), s.authz.ClientAddr(ctx), s.foundBefore(key))
		}
		return true
	}, func() {
		type verseJSON struct {
			Reference string `json:"reference"`
		}
		// All five keys are always present, as the live service sends them;
		// search_instead_for is null when there is nothing to say.
		out := struct {
			Verses           []verseJSON `json:"verses"`
			Topics           []topicJSON `json:"topics"`
			UserIntent       string      `json:"user_intent"`
			DidYouMean       []string    `json:"did_you_mean"`
			SearchInsteadFor *string     `json:"search_instead_for"`
		}{Verses: []verseJSON{}, Topics: []topicJSON{}, DidYouMean: []string{}, UserIntent: intent}
		mod := st.Manifest.Created
		total := 0
		if wantVerses {
			r := x.Search(query, intent, unifiedVerses)
			for _, v := range r.Verses {
				out.Verses = append(out.Verses, verseJSON{x.Verse(v)})
			}
			total += r.Total
			if intent != search.IntentTopical {
				out.UserIntent = r.Intent
			}
			out.SearchInsteadFor = nonEmpty(r.SearchInsteadFor)
			out.DidYouMean = appendNew(out.DidYouMean, r.DidYouMean...)
			mod = bv.Entry.Search.Modified()
		}
		if wantTopics {
			ans, tmod, err := s.findTopics(ctx, st, ranges, query)
			if err != nil {
				respond.Fail(ctx, s.log, problem.Unavailable, "search: cannot load an index, topics or suggestions", err)
				return
			}
			out.Topics = ans.topicsJSON()
			total += len(out.Topics)
			if out.SearchInsteadFor == nil && len(out.Verses) == 0 {
				out.SearchInsteadFor = nonEmpty(ans.res.SearchInsteadFor)
			}
			out.DidYouMean = appendNew(out.DidYouMean, ans.res.DidYouMean...)
			if tmod.After(mod) {
				mod = tmod
			}
			if lang == "" {
				lang = ans.tag
			}
			if !wantVerses && intent == search.IntentUnknown {
				out.UserIntent = search.IntentTopical
			}
		}
		body, _ := json.Marshal(out)
		a := compose.NewAnswer(body, publish.JSON, mod, compose.Quick)
		a.ServeNew(ctx, private)
		s.remember(key, a, total)
		s.metrics.observe(time.Since(start), total)
		s.trending.count(lang, query, app.ID(), s.authz.ClientAddr(ctx), total)
	})
}

// nonEmpty is s, or nil (JSON null) when s is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// appendNew appends the strings of add that list does not hold yet.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		dup := false
		for _, l := range list {
			if l == a {
				dup = true
				break
			}
		}
		if !dup {
			list = append(list, a)
		}
	}
	return list
}
