package catalog

import (
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/paging"
	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/wire/problem"
)

// Catalogue handlers: the Bibles collection (GET /v1/bibles).

// biblesCollection is GET /v1/bibles (spec, Bibles): the Bibles in the
// first language range that has any, by id.
func (s *Routes) biblesCollection(ctx *fasthttp.RequestCtx, c *catalog, t *authz.Table, app *authz.App) {
	args := ctx.QueryArgs()
	rawRanges := args.PeekMulti("language_ranges[]")
	if len(rawRanges) == 0 {
		respond.Invalid(ctx, problem.Missing("query", "language_ranges[]"))
		return
	}
	ranges := make([]string, len(rawRanges))
	for i, r := range rawRanges {
		if !lang.ValidRange(string(r)) {
			respond.Answer(ctx, problem.Unacceptable, problem.BadLanguageRange(string(r)))
			return
		}
		ranges[i] = string(r)
	}
	all, _, ok := params.Bool(args.Peek("all_available"))
	if !ok || args.Has("all_available") && len(args.Peek("all_available")) == 0 {
		respond.Invalid(ctx, problem.NotBool("query", "all_available"))
		return
	}
	licence, hasLicence := int32(0), args.Has("license_id")
	if hasLicence {
		if licence, ok = params.Int32(args.Peek("license_id")); !ok {
			respond.Invalid(ctx, problem.NotInt32("query", "license_id"))
			return
		}
	}
	// Without all_available the list depends on the app's licences, so it
	// is private to the app and its tokens are bound to it.
	who := ""
	if !all {
		who = app.ID()
	}
	qh := paging.QueryHash("bibles", c.build, strings.Join(ranges, "\x00"), strconv.FormatBool(all),
		strconv.FormatBool(hasLicence), strconv.Itoa(int(licence)), who)
	p, ok := paging.Parse(ctx, s.pageTokens, bibleFields, qh)
	if !ok {
		return
	}
	reqKey := requestKey("bibles", c, lang.Preferences{}, p, strings.ToLower(strings.Join(ranges, "\x00")),
		strconv.FormatBool(all), strconv.FormatBool(hasLicence), strconv.Itoa(int(licence)), who, strconv.FormatInt(t.Version(), 10))
	s.compute.Serve(ctx, reqKey, func() bool {
		return serveRemembered(ctx, s.composed, reqKey, !all, false)
	}, func() {
		s.matchBibles(ctx, c, t, app, ranges, all, hasLicence, licence, p, qh, reqKey)
	})
}

// matchBibles composes the Bibles collection's answer and remembers it
// under reqKey.
func (s *Routes) matchBibles(ctx *fasthttp.RequestCtx, c *catalog, t *authz.Table, app *authz.App, ranges []string,
	all, hasLicence bool, licence int32, p paging.Page, qh [8]byte, reqKey string) {
	var match []*bibleItem
	for _, r := range ranges {
		for _, b := range c.bibles {
			if !all && !t.Licensed(app, b.id) {
				continue
			}
			if hasLicence && b.licenseID != int(licence) {
				continue
			}
			if lang.MatchRange(r, b.tag) {
				match = append(match, b)
			}
		}
		if len(match) > 0 {
			break // the first range that has Bibles answers
		}
	}
	if len(match) == 0 {
		compose.NoContent(ctx, !all)
		return
	}
	s.serveBibles(ctx, c, match, p, qh, !all, reqKey)
}

func (s *Routes) serveBibles(ctx *fasthttp.RequestCtx, c *catalog, list []*bibleItem, p paging.Page, qh [8]byte, private bool, reqKey string) {
	from, to, next := p.Window(len(list))
	var e paging.Envelope
	e.Begin()
	var mod time.Time
	for _, b := range list[from:to] {
		e.Item(p, len(bibleFields), func(i int) []byte { return b.frags[i] })
		if b.mod.After(mod) {
			mod = b.mod
		}
	}
	serveComposedAs(ctx, s.composed, reqKey, e.End(s.nextToken(next, qh), len(list), true), mod, private, false)
}

func (s *Routes) nextToken(next int, qh [8]byte) string {
	if next < 0 {
		return ""
	}
	return s.pageTokens.Issue(next, qh)
}
