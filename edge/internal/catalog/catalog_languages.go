package catalog

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/paging"
	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/wire/problem"
)

// Catalogue handlers: languages (GET /v1/languages, /v1/languages/{id}).

// languages is GET /v1/languages: by id in byte order, or with country in
// the order of speakers in that country.
func (s *Routes) languages(ctx *fasthttp.RequestCtx, c *catalog) {
	args := ctx.QueryArgs()
	country := ""
	if args.Has("country") {
		cc := args.Peek("country")
		if len(cc) != 2 || !params.Alpha(cc[0]) || !params.Alpha(cc[1]) {
			respond.Invalid(ctx, problem.Country("query", "country"))
			return
		}
		country = strings.ToUpper(string(cc))
	}
	avail, _, ok := params.Bool(args.Peek("bibles_available"))
	if !ok || args.Has("bibles_available") && len(args.Peek("bibles_available")) == 0 {
		respond.Invalid(ctx, problem.NotBool("query", "bibles_available"))
		return
	}
	qh := paging.QueryHash("languages", c.build, country, strconv.FormatBool(avail))
	p, ok := paging.Parse(ctx, s.pageTokens, languageFields, qh)
	if !ok {
		return
	}
	prefs := lang.ParsePreferences(string(ctx.Request.Header.Peek("Accept-Language")))
	reqKey := requestKey("languages", c, prefs, p, country, strconv.FormatBool(avail))
	s.compute.Serve(ctx, reqKey, func() bool {
		return serveRemembered(ctx, s.composed, reqKey, false, true)
	}, func() {
		list := c.languages
		if country != "" {
			list = nil
			for _, id := range lang.Prominent(country) {
				if it := c.langByID[id]; it != nil {
					list = append(list, it)
				}
			}
		}
		if avail {
			var keep []*langItem
			for _, it := range list {
				if it.bible != 0 {
					keep = append(keep, it)
				}
			}
			list = keep
		}
		from, to, next := p.Window(len(list))
		var e paging.Envelope
		e.Begin()
		for _, it := range list[from:to] {
			e.Item(p, len(languageFields), langFrag(it, prefs))
		}
		serveComposedAs(ctx, s.composed, reqKey, e.End(s.nextToken(next, qh), len(list), true), c.mod, false, true)
	})
	if ctx.Response.StatusCode() < 400 {
		ctx.Response.Header.Set("Content-Language", prefs.Locale())
	}
}

// langFrag gives a language's fields, the request-dependent ones included.
func langFrag(it *langItem, prefs lang.Preferences) func(i int) []byte {
	return func(i int) []byte {
		switch i {
		case langFieldDisplayNames:
			return it.displayNames()
		case langFieldLocalizedName:
			if n := lang.LocalizedName(it.lang, prefs); n != "" {
				return fieldFragOf("localized_name", n)
			}
			return []byte(`"localized_name":null`)
		}
		return it.frags[i]
	}
}

// language is GET /v1/languages/{id}: a non-canonical id redirects (301)
// to the canonical one (spec, Languages).
func (s *Routes) language(ctx *fasthttp.RequestCtx, c *catalog, id []byte) {
	canon, err := lang.Canonical(string(id))
	if err != nil {
		respond.Answer(ctx, problem.NotFound, problem.LanguageNotFound)
		return
	}
	if canon != string(id) {
		loc := "/v1/languages/" + canon
		if q := ctx.URI().QueryString(); len(q) > 0 {
			loc += "?" + string(q)
		}
		ctx.Response.Header.Set("Location", loc)
		ctx.Response.Header.SetCanonical(respond.HdrCacheControl, represent.ValCachePublic)
		ctx.SetContentType(jsonType)
		ctx.SetStatusCode(fasthttp.StatusMovedPermanently)
		b, _ := json.Marshal(struct {
			Message string `json:"message"`
		}{"The canonical id of this language is " + canon + "."})
		ctx.SetBody(b)
		return
	}
	it := c.langByID[canon]
	if it == nil {
		respond.Answer(ctx, problem.NotFound, problem.LanguageNotFound)
		return
	}
	prefs := lang.ParsePreferences(string(ctx.Request.Header.Peek("Accept-Language")))
	reqKey := requestKey("language", c, prefs, paging.Page{}, canon)
	s.compute.Serve(ctx, reqKey, func() bool {
		return serveRemembered(ctx, s.composed, reqKey, false, true)
	}, func() {
		body := paging.AppendObject(nil, paging.Page{}, len(languageFields), langFrag(it, prefs))
		serveComposedAs(ctx, s.composed, reqKey, body, c.mod, false, true)
	})
	if ctx.Response.StatusCode() < 400 {
		ctx.Response.Header.Set("Content-Language", prefs.Locale())
	}
}

const jsonType = "application/json; charset=utf-8"
