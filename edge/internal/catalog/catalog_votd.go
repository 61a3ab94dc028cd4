package catalog

import (
	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire/problem"
)

// Catalogue handlers: verse of the day (GET /v1/verse-of-the-days…, and
// the deprecated alias /v1/verse_of_the_days…).

// votdCalendar is GET /v1/verse-of-the-days: the site pack's own entry,
// served as published.
func (s *Routes) votdCalendar(ctx *fasthttp.RequestCtx, st *site.Site, c *catalog) {
	if b := ctx.QueryArgs().Peek("bible_id"); len(b) > 0 && s.votdIn != nil {
		s.votdIn(ctx, st, b, 0) // in that Bible's numbering
		return
	}
	if c.site == nil {
		serveComposed(ctx, s.composed, []byte(`{"data":[]}`), c.mod, false, false)
		return
	}
	var nb [64]byte
	s.packs.Serve(ctx, s.log, nil, c.site, append(nb[:0], publish.NameVerseOfDays...), false, problem.NoVOTDCalendar)
}

// votd is GET /v1/verse-of-the-days/{day}, day 1..366 in canonical form
// (404 outside it, for a day the calendar leaves out, or for "+1" and
// "001"; 422 for a day that is not a number).
func (s *Routes) votd(ctx *fasthttp.RequestCtx, st *site.Site, c *catalog, day []byte) {
	n, p := params.PathID(day)
	if p == params.IDInvalid {
		respond.Invalid(ctx, problem.NotInt("path", "day"))
		return
	}
	if p == params.IDNone {
		respond.Answer(ctx, problem.NotFound, problem.NoSuchDay)
		return
	}
	res := c.votdDay[int(n)]
	if res == nil {
		respond.Answer(ctx, problem.NotFound, problem.NoVerseOfDay(int(n)))
		return
	}
	if b := ctx.QueryArgs().Peek("bible_id"); len(b) > 0 && s.votdIn != nil {
		s.votdIn(ctx, st, b, int(n)) // in that Bible's numbering
		return
	}
	represent.Serve(ctx, res, false)
}
