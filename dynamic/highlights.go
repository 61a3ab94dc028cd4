package dynamic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
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
		return nil, clientErrorf(ErrNotFound, "The book %s is not in this Bible.", r.Book)
	}
	switch r.Kind() {
	case bible.KindIntro:
		return nil, clientErrorf(ErrUnacceptable, "An introduction cannot be highlighted: give a verse or a range of verses.")
	case bible.KindChapter:
		if !allowChapter {
			return nil, clientErrorf(ErrUnacceptable, "Give a verse or a range of verses, not a whole chapter.")
		}
	}
	span, err := b.Span(r)
	var missing *bible.MissingError
	switch {
	case errors.As(err, &missing) && missing.Verse == "":
		return nil, clientErrorf(ErrNotFound, "Chapter %s.%s is not in this Bible.", missing.Book, missing.Chapter)
	case errors.As(err, &missing):
		return nil, clientErrorf(ErrNotFound, "Verse %s.%s.%s is not in this Bible.", missing.Book, missing.Chapter, missing.Verse)
	case errors.Is(err, bible.ErrBackwards):
		return nil, clientErrorf(ErrUnacceptable, "Range %s ends before it starts.", r)
	case err != nil:
		return nil, err
	}
	return span.PassageIDs(), nil
}

// passage resolves bible_id and passage_id to verses, answering the error
// itself when it cannot (false).
func (h *highlightRoutes) passage(ctx *fasthttp.RequestCtx, bibleID int32, ref bible.Ref, allowChapter bool) ([]string, bool) {
	x, err := h.content.Index(h.ctx, bibleID)
	if errors.Is(err, ErrNotFound) {
		err = &clientError{kind: ErrNotFound, msg: fmt.Sprintf("Bible %d is not published.", bibleID), cause: err}
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
		return 0, &detail{Loc: loc, Msg: "Field required", Type: "missing"}
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, &detail{Loc: loc, Msg: "Input should be a valid 32-bit integer", Type: "int_parsing"}
	}
	return int32(n), nil
}

func parsePassage(loc []string, v string, present bool) (bible.Ref, *detail) {
	if !present || v == "" {
		return bible.Ref{}, &detail{Loc: loc, Msg: "Field required", Type: "missing"}
	}
	r, err := bible.ParseRef(v)
	if err != nil {
		// The parser's own client text, which the edge answers too.
		var bad *bible.ParseError
		errors.As(err, &bad)
		return r, &detail{Loc: loc, Msg: bad.Message(), Type: "value_error"}
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
		h.fail(ctx, clientErrorf(ErrForbidden, "The user has not granted the %s permission to this app.", perm))
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
		validation(ctx, bodyError(err))
		return
	}
	var ds []detail
	add := func(d *detail) {
		if d != nil {
			ds = append(ds, *d)
		}
	}
	if body.RequestID == nil {
		add(&detail{Loc: []string{"body", "request_id"}, Msg: "Field required", Type: "missing"})
	} else if !bible.ValidUUID(*body.RequestID) {
		add(&detail{Loc: []string{"body", "request_id"}, Msg: "Input should be a valid UUID", Type: "uuid_parsing"})
	}
	var bibleID int32
	var ref bible.Ref
	var color string
	if h := body.Highlight; h == nil {
		add(&detail{Loc: []string{"body", "highlight"}, Msg: "Field required", Type: "missing"})
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
			add(&detail{Loc: []string{"body", "highlight", "color"}, Msg: "Field required", Type: "missing"})
		case !colorPattern.MatchString(*h.Color):
			add(&detail{Loc: []string{"body", "highlight", "color"},
				Msg: "String should match pattern '^[0-9a-f]{6}$'", Type: "string_pattern_mismatch"})
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
		validation(ctx, detail{Loc: []string{"body", "request_id"},
			Msg: msgRequestReused, Type: "value_error"})
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
		message(ctx, http.StatusConflict, "The user already has this highlight.")
	default:
		writeJSON(ctx, http.StatusCreated, created)
	}
}

// bodyError turns a JSON decoding error into a 422 entry.
func bodyError(err error) detail {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		loc := []string{"body"}
		if te.Field != "" {
			loc = append(loc, strings.Split(te.Field, ".")...)
		}
		return detail{Loc: loc, Msg: "Input should be a valid " + jsonKind(te.Type), Type: "type_error"}
	}
	if errors.Is(err, io.EOF) {
		return detail{Loc: []string{"body"}, Msg: "Field required", Type: "missing"}
	}
	return detail{Loc: []string{"body"}, Msg: "JSON decode error", Type: "json_invalid"}
}

// jsonKind names what a Go type holds in the words of JSON, so that a
// client reads "object" where the decoder saw a struct type.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return "value"
}

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
