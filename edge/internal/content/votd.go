package content

import (
	"errors"
	"fmt"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/versification"
	"github.com/bibleplatform/platform/wire/problem"
)

// CalendarVersification is the numbering of the verse-of-the-day
// calendar: the content team writes it in English numbering
// (docs/versification.md), as most Bibles number.
const CalendarVersification = versification.Eng

// DayIn is a day of the calendar in one Bible's numbering.
type DayIn struct {
	Day       int    `json:"day"`
	PassageID string `json:"passage_id"` // the Bible's own id; runs joined by ','
	BibleID   int32  `json:"bible_id"`
}

// VerseOfDayIn serves the verse-of-the-day calendar (day 0) or one day
// in the numbering of the Bible that bibleID (the query's bible_id) names.
// A calendar day whose verse the Bible does not have (a book it lacks) is
// left out of the calendar, and is 404 asked alone. Like the calendar, it
// reads ids only: no licence to the Bible is needed.
func (s *Routes) VerseOfDayIn(ctx *fasthttp.RequestCtx, st *site.Site, bibleID []byte, day int) {
	bv, ok := queryBible(ctx, st, "bible_id", bibleID)
	if !ok {
		return
	}
	days, err := s.calendar(ctx, st)
	if err != nil {
		respond.Fail(ctx, s.log, problem.Unavailable, "verse of the day calendar", err)
		return
	}
	cal, _ := versification.Standard(CalendarVersification)
	from := From{Scheme: cal, Name: CalendarVersification}
	out := []DayIn{}
	for _, d := range days {
		if day != 0 && d.Day != day {
			continue
		}
		r, err := bible.ParseRef(d.PassageID)
		if err != nil {
			respond.Fail(ctx, s.log, problem.Unavailable, "verse of the day calendar", fmt.Errorf("day %d: %w", d.Day, err))
			return
		}
		var rb [4]bible.Ref
		refs, err := s.Into(ctx, rb[:0], bv, from, r)
		var missing *problem.Problem
		switch {
		case errors.As(err, &missing) && missing.Kind == problem.NotFound && day == 0:
			continue // a verse this Bible does not have
		case err != nil:
			respond.Fail(ctx, s.log, problem.Unavailable, "verse of the day", err)
			return
		}
		out = append(out, DayIn{Day: d.Day, PassageID: JoinIDs(refs), BibleID: bv.ID})
	}
	if day == 0 {
		s.writeJSON(ctx, struct {
			Data []DayIn `json:"data"`
		}{out}, st.Manifest.Created)
		return
	}
	if len(out) == 0 {
		respond.Answer(ctx, problem.NotFound, problem.NoVerseOfDay(day))
		return
	}
	s.writeJSON(ctx, out[0], st.Manifest.Created)
}

// calendar reads the build's verse-of-the-day calendar.
func (s *Routes) calendar(ctx *fasthttp.RequestCtx, st *site.Site) ([]publish.VerseOfTheDay, error) {
	if st.Manifest.Site == nil {
		return nil, nil // a build without a calendar
	}
	r, err := s.packs.Entry(ctx, nil, st.Manifest.Site, []byte(publish.NameVerseOfDays))
	if err != nil {
		return nil, err
	}
	if r == nil || !r.Has(represent.CodingIdentity) {
		return nil, nil
	}
	var cal struct {
		Data []publish.VerseOfTheDay `json:"data"`
	}
	if err := publish.DecodeEntry(publish.NameVerseOfDays, r.Reps[represent.CodingIdentity].Body(), &cal); err != nil {
		return nil, fmt.Errorf("verse of the day calendar: %w", err)
	}
	return cal.Data, nil
}
