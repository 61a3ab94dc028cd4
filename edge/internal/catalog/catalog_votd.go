package catalog

import (
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/publish"
)

// Catalogue handlers: verse of the day (GET /v1/verse-of-the-days…, and
// the deprecated alias /v1/verse_of_the_days…).

// votdCalendar is GET /v1/verse-of-the-days: the site pack's own entry,
// served as published.
func (s *Routes) votdCalendar(ctx *fasthttp.RequestCtx, c *catalog) {
	if c.site == nil {
		serveComposed(ctx, s.composed, []byte(`{"data":[]}`), c.mod, false, false)
		return
	}
	var nb [64]byte
	s.packs.Serve(ctx, s.log, nil, c.site, append(nb[:0], publish.NameVerseOfDays...), false, "No verse-of-the-day calendar is published.")
}

// votd is GET /v1/verse-of-the-days/{day}, day 1..366 in canonical form
// (404 outside it, for a day the calendar leaves out, or for "+1" and
// "001"; 422 for a day that is not a number).
func (s *Routes) votd(ctx *fasthttp.RequestCtx, c *catalog, day []byte) {
	n, p := params.PathID(day)
	if p == params.IDInvalid {
		respond.Invalid(ctx, "path", "day", "Input should be a valid integer", "int_parsing")
		return
	}
	if p == params.IDNone {
		respond.Answer(ctx, respond.NotFound, "No such day: days are 1 to 366, written without sign or leading zero.")
		return
	}
	res := c.votdDay[int(n)]
	if res == nil {
		respond.Answer(ctx, respond.NotFound, "No verse of the day for day "+strconv.Itoa(int(n))+"; days are 1 to 366.")
		return
	}
	represent.Serve(ctx, res, false)
}
