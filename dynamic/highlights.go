package dynamic

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/wire/problem"
)

// highlightRoutes serves /v1/highlights and /v1/highlights/{passage_id}
// with the storage roles they use: highlights, and grants to check.
type highlightRoutes struct {
	*requests
	store   HighlightStore
	grants  *grantCheck
	content Published
	// colors are the users' recent colours; nil gives the defaults only.
	colors HighlightColors
}

// expand lists the verses a passage covers, as single-verse passage ids in
// the Bible's order (bible.Book.Span). A chapter gives all its verses; a
// range may cross chapters. An unknown book, chapter or verse is
// ErrNotFound; an introduction, or a range running backwards, is
// unacceptable.
func expand(x *bible.Index, r bible.Ref, allowChapter bool) ([]string, error) {
	b := x.Book(r.Book)
	if b == nil {
		return nil, problem.New(problem.NotFound, problem.BookNotFound(r.Book))
	}
	switch r.Kind() {
	case bible.KindIntro:
		return nil, problem.New(problem.Unacceptable, problem.IntroNotHighlightable)
	case bible.KindChapter:
		if !allowChapter {
			return nil, problem.New(problem.Unacceptable, problem.ChapterNotHighlight)
		}
	}
	span, err := b.Span(r)
	if p, ok := problem.Passage(err); ok {
		return nil, p
	} else if err != nil {
		return nil, err
	}
	return span.PassageIDs(), nil
}

// passage resolves bible_id and passage_id to verses, answering the error
// itself when it cannot (false).
func (h *highlightRoutes) passage(ctx *fasthttp.RequestCtx, bibleID int32, ref bible.Ref, allowChapter bool) ([]string, bool) {
	x, err := h.content.Index(h.ctx, bibleID)
	if errors.Is(err, ErrNotFound) {
		err = &problem.Problem{Kind: problem.NotFound, Text: problem.BibleNotFound(bibleID), Cause: err}
	}
	var verses []string
	if err == nil {
		verses, err = expand(x, ref, allowChapter)
	}
	if err != nil {
		h.fail(ctx, err)
		return nil, false
	}
	return verses, true
}

// parseBibleID reads an int32 parameter; a missing or non-integer value is
// a 422.
func parseBibleID(loc []string, v string, present bool) (int32, *detail) {
	if !present || v == "" {
		return 0, entry(problem.Missing(loc...))
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, entry(problem.NotInt32(loc...))
	}
	return int32(n), nil
}

func parsePassage(loc []string, v string, present bool) (bible.Ref, *detail) {
	if !present || v == "" {
		return bible.Ref{}, entry(problem.Missing(loc...))
	}
	r, err := bible.ParseRef(v)
	if err != nil {
		// The parser's own client text, which the edge answers too.
		var bad *bible.ParseError
		errors.As(err, &bad)
		return r, entry(problem.PassageID(bad, loc...))
	}
	return r, nil
}

// requireGrant answers 403 unless the user granted perm to the app.
func (h *highlightRoutes) requireGrant(ctx *fasthttp.RequestCtx, user, app, perm string) bool {
	ok, err := h.grants.has(h.ctx, user, app, perm)
	if err != nil {
		h.fail(ctx, err)
		return false
	}
	if !ok {
		h.fail(ctx, problem.New(problem.Forbidden, problem.NotGranted(perm)))
		return false
	}
	return true
}

// highlightTarget does what reading and deleting highlights share: the
// user's token and grant, then bible_id (query) and the passage (given by
// the caller: query or path), checked against the Bible's index. It has
// answered when ok is false.
func (h *highlightRoutes) highlightTarget(ctx *fasthttp.RequestCtx, c caller, passageLoc []string, passage string, present bool) (user string, bibleID int32, verses []string, ok bool) {
	user, ok = h.user(ctx)
	if !ok || !h.requireGrant(ctx, user, c.AppID, PermissionHighlights) {
		return "", 0, nil, false
	}
	q := ctx.QueryArgs()
	var ds []detail
	bibleID, d1 := parseBibleID([]string{"query", "bible_id"}, string(q.Peek("bible_id")), q.Has("bible_id"))
	ref, d2 := parsePassage(passageLoc, passage, present)
	for _, d := range []*detail{d1, d2} {
		if d != nil {
			ds = append(ds, *d)
		}
	}
	if ds != nil {
		validation(ctx, ds...)
		return "", 0, nil, false
	}
	verses, ok = h.passage(ctx, bibleID, ref, true)
	return user, bibleID, verses, ok
}

// getHighlights answers GET /v1/highlights?bible_id=&passage_id=: one
// colour per verse, 204 when there are none.
func (h *highlightRoutes) getHighlights(ctx *fasthttp.RequestCtx, c caller) {
	q := ctx.QueryArgs()
	user, bibleID, verses, ok := h.highlightTarget(ctx, c, []string{"query", "passage_id"}, string(q.Peek("passage_id")), q.Has("passage_id"))
	if !ok {
		return
	}
	hs, err := h.store.Highlights(h.ctx, user, bibleID, verses)
	if err != nil {
		h.fail(ctx, err)
		return
	}
	if len(hs) == 0 {
		noContent(ctx, http.StatusNoContent)
		return
	}
	writeJSON(ctx, http.StatusOK, map[string][]Highlight{"data": hs})
}

var colorPattern = regexp.MustCompile(`^[0-9a-f]{6}$`)

type highlightBody struct {
	RequestID *string `json:"request_id"`
	Highlight *struct {
		BibleID   json.RawMessage `json:"bible_id"`
		PassageID *string         `json:"passage_id"`
		Color     *string         `json:"color"`
	} `json:"highlight"`
}

// postHighlights answers POST /v1/highlights: 201 with the highlight when
// at least one verse was created or recoloured, 409 when the user already
// had every verse in that colour. request_id makes retries safe: the first
// attempt's outcome is stored, and a retry is answered from it; the same id
// with a different highlight is 422.
func (h *highlightRoutes) postHighlights(ctx *fasthttp.RequestCtx, c caller) {
	h.writeHighlights(ctx, c, false)
}

// putHighlights answers PUT /v1/highlights, which the live clients send to
// change a colour (live-routes.md): the body of POST, and as a PUT is
// idempotent, 200 with the highlight whether or not anything changed.
func (h *highlightRoutes) putHighlights(ctx *fasthttp.RequestCtx, c caller) {
	h.writeHighlights(ctx, c, true)
}

// writeHighlights creates or recolours a highlight (POST, or PUT when put).
func (h *highlightRoutes) writeHighlights(ctx *fasthttp.RequestCtx, c caller, put bool) {
	user, ok := h.user(ctx)
	if !ok || !h.requireGrant(ctx, user, c.AppID, PermissionHighlights) {
		return
	}
	var body highlightBody
	// The server already refused a body over wire.MaxRequestBody (413).
	dec := json.NewDecoder(bytes.NewReader(ctx.PostBody()))
	if err := dec.Decode(&body); err != nil {
		validation(ctx, problem.JSONBody(err))
		return
	}
	var ds []detail
	add := func(d *detail) {
		if d != nil {
			ds = append(ds, *d)
		}
	}
	if body.RequestID == nil {
		add(entry(problem.Missing("body", "request_id")))
	} else if !bible.ValidUUID(*body.RequestID) {
		add(entry(problem.NotUUID("body", "request_id")))
	}
	var bibleID int32
	var ref bible.Ref
	var color string
	if h := body.Highlight; h == nil {
		add(entry(problem.Missing("body", "highlight")))
	} else {
		// A JSON number only: "9001" as a string is a type error (422).
		num := string(h.BibleID)
		if strings.HasPrefix(num, `"`) {
			num = "not a number"
		}
		var d *detail
		bibleID, d = parseBibleID([]string{"body", "highlight", "bible_id"}, num, h.BibleID != nil && num != "null")
		add(d)
		pid := ""
		if h.PassageID != nil {
			pid = *h.PassageID
		}
		ref, d = parsePassage([]string{"body", "highlight", "passage_id"}, pid, h.PassageID != nil)
		add(d)
		switch {
		case h.Color == nil:
			add(entry(problem.Missing("body", "highlight", "color")))
		case !colorPattern.MatchString(*h.Color):
			add(entry(problem.Pattern(colorPattern.String(), "body", "highlight", "color")))
		default:
			color = *h.Color
		}
	}
	if ds != nil {
		validation(ctx, ds...)
		return
	}
	verses, ok := h.passage(ctx, bibleID, ref, false)
	if !ok {
		return
	}
	out, err := h.store.CreateHighlights(h.ctx, HighlightRequest{UserID: user,
		RequestID: strings.ToLower(*body.RequestID), BibleID: bibleID, Verses: verses, Color: color})
	if errors.Is(err, ErrRequestReused) {
		// A client bug, not a retry: 422 on the field, so that neither
		// highlight is silently lost (a 409 would read as "already there").
		validation(ctx, problem.RequestReused("body", "request_id"))
		return
	}
	if err != nil {
		h.fail(ctx, err)
		return
	}
	// The answer names one verse (spec, Highlight: "a single verse in
	// responses"): the first of a range. A retry carries the same request
	// (its fingerprint matched), so it reads the same answer.
	created := Highlight{BibleID: bibleID, PassageID: verses[0], Color: color}
	switch {
	case put:
		writeJSON(ctx, http.StatusOK, created)
	case !out.Changed:
		refuse(ctx, problem.Conflict, problem.HighlightExists)
	default:
		writeJSON(ctx, http.StatusCreated, created)
	}
}

// entry is d as an entry to add to a 422 body, for checks that report
// at most one entry each (nil: none).
func entry(d problem.Detail) *detail { return &d }

// deleteHighlights answers DELETE /v1/highlights/{passage_id}?bible_id=:
// a verse, a range or a whole chapter; 204 with no body, also when there
// was nothing to delete (the state afterwards is the one asked for).
func (h *highlightRoutes) deleteHighlights(ctx *fasthttp.RequestCtx, c caller) {
	user, bibleID, verses, ok := h.highlightTarget(ctx, c, []string{"path", "passage_id"}, pathValue(ctx, "passage_id"), true)
	if !ok {
		return
	}
	if err := h.store.DeleteHighlights(h.ctx, user, bibleID, verses); err != nil {
		h.fail(ctx, err)
		return
	}
	noContent(ctx, http.StatusNoContent)
}
