package dynamic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/bibleplatform/platform/bible"
)

// errUnacceptable is a well-formed value the operation cannot take: 400
// (spec, Errors: "a value that is well-typed but unacceptable is 400").
type errUnacceptable string

func (e errUnacceptable) Error() string { return string(e) }

// expand lists the verses a passage covers, as single-verse passage ids in
// the Bible's order. A chapter gives all its verses; a range may cross
// chapters. An unknown book, chapter or verse is ErrNotFound; an
// introduction, or a range running backwards, is unacceptable.
func expand(x *bible.Index, r bible.Ref, allowChapter bool) ([]string, error) {
	b := x.Book(r.Book)
	if b == nil {
		return nil, fmt.Errorf("book %s: %w", r.Book, ErrNotFound)
	}
	switch r.Kind() {
	case bible.KindIntro:
		return nil, errUnacceptable("an introduction cannot be highlighted: give a verse or a range of verses")
	case bible.KindChapter:
		if !allowChapter {
			return nil, errUnacceptable("give a verse or a range of verses, not a whole chapter")
		}
		c := b.Chapter(r.Chapter)
		if c == nil {
			return nil, fmt.Errorf("chapter %s: %w", r, ErrNotFound)
		}
		out := make([]string, len(c.Verses))
		for i, v := range c.Verses {
			out[i] = string(r.Book) + "." + c.ID + "." + v.ID
		}
		return out, nil
	}
	start, end := r.Start(), r.End()
	ci, vi, err := locate(b, start)
	if err != nil {
		return nil, err
	}
	cj, vj, err := locate(b, end)
	if err != nil {
		return nil, err
	}
	if cj < ci || cj == ci && vj < vi {
		return nil, errUnacceptable(fmt.Sprintf("range %s ends before it starts", r))
	}
	var out []string
	for c := ci; c <= cj; c++ {
		ch := &b.Chapters[c]
		from, to := 0, len(ch.Verses)-1
		if c == ci {
			from = vi
		}
		if c == cj {
			to = vj
		}
		for v := from; v <= to; v++ {
			out = append(out, string(r.Book)+"."+ch.ID+"."+ch.Verses[v].ID)
		}
	}
	return out, nil
}

func locate(b *bible.Book, r bible.Ref) (chapter, verse int, err error) {
	for i := range b.Chapters {
		if b.Chapters[i].ID == r.Chapter {
			if v := b.Chapters[i].VerseIndex(r.Verse); v >= 0 {
				return i, v, nil
			}
			return 0, 0, fmt.Errorf("verse %s: %w", r, ErrNotFound)
		}
	}
	return 0, 0, fmt.Errorf("chapter %s.%s: %w", r.Book, r.Chapter, ErrNotFound)
}

// passage resolves bible_id and passage_id to verses, answering the error
// itself when it cannot (false).
func (s *Server) passage(w http.ResponseWriter, r *http.Request, bibleID int32, ref bible.Ref, allowChapter bool) ([]string, bool) {
	x, err := s.content.Index(r.Context(), bibleID)
	if err != nil {
		s.fail(w, r, err)
		return nil, false
	}
	verses, err := expand(x, ref, allowChapter)
	var bad errUnacceptable
	switch {
	case errors.As(err, &bad):
		message(w, http.StatusBadRequest, capitalize(bad.Error())+".")
		return nil, false
	case err != nil:
		s.fail(w, r, err)
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
		return r, &detail{Loc: loc, Msg: err.Error(), Type: "value_error"}
	}
	return r, nil
}

// requireGrant answers 403 unless the user granted perm to the app.
func (s *Server) requireGrant(w http.ResponseWriter, r *http.Request, user, app, perm string) bool {
	ok, err := s.hasGrant(r.Context(), user, app, perm)
	if err != nil {
		s.fail(w, r, err)
		return false
	}
	if !ok {
		message(w, http.StatusForbidden, "The user has not granted the "+perm+" permission to this app.")
		return false
	}
	return true
}

// highlightTarget does what reading and deleting highlights share: the
// user's token and grant, then bible_id (query) and the passage (given by
// the caller: query or path), checked against the Bible's index. It has
// answered when ok is false.
func (s *Server) highlightTarget(w http.ResponseWriter, r *http.Request, c caller, passageLoc []string, passage string, present bool) (user string, bibleID int32, verses []string, ok bool) {
	user, ok = s.user(w, r)
	if !ok || !s.requireGrant(w, r, user, c.AppID, PermissionHighlights) {
		return "", 0, nil, false
	}
	q := r.URL.Query()
	var ds []detail
	bibleID, d1 := parseBibleID([]string{"query", "bible_id"}, q.Get("bible_id"), q.Has("bible_id"))
	ref, d2 := parsePassage(passageLoc, passage, present)
	for _, d := range []*detail{d1, d2} {
		if d != nil {
			ds = append(ds, *d)
		}
	}
	if ds != nil {
		validation(w, ds...)
		return "", 0, nil, false
	}
	verses, ok = s.passage(w, r, bibleID, ref, true)
	return user, bibleID, verses, ok
}

// getHighlights answers GET /v1/highlights?bible_id=&passage_id=: one
// colour per verse, 204 when there are none.
func (s *Server) getHighlights(w http.ResponseWriter, r *http.Request, c caller) {
	q := r.URL.Query()
	user, bibleID, verses, ok := s.highlightTarget(w, r, c, []string{"query", "passage_id"}, q.Get("passage_id"), q.Has("passage_id"))
	if !ok {
		return
	}
	hs, err := s.cfg.DB.Highlights(r.Context(), user, bibleID, verses)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(hs) == 0 {
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, map[string][]Highlight{"data": hs})
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
// answer is stored and replayed; the same id with a different highlight is
// 422.
func (s *Server) postHighlights(w http.ResponseWriter, r *http.Request, c caller) {
	user, ok := s.user(w, r)
	if !ok || !s.requireGrant(w, r, user, c.AppID, PermissionHighlights) {
		return
	}
	var body highlightBody
	if !decodeBody(w, r, &body) {
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
		validation(w, ds...)
		return
	}
	verses, ok := s.passage(w, r, bibleID, ref, false)
	if !ok {
		return
	}
	// The answer names one verse (spec, Highlight: "a single verse in
	// responses"): the first of a range.
	created := Highlight{BibleID: bibleID, PassageID: verses[0], Color: color}
	ans, err := s.cfg.DB.CreateHighlights(r.Context(), HighlightRequest{UserID: user,
		RequestID: strings.ToLower(*body.RequestID), BibleID: bibleID, Verses: verses, Color: color},
		func(changed int) Answer {
			if changed == 0 {
				b, _ := json.Marshal(map[string]string{"message": "The user already has this highlight."})
				return Answer{Status: http.StatusConflict, Body: b}
			}
			b, _ := json.Marshal(created)
			return Answer{Status: http.StatusCreated, Body: b}
		})
	if errors.Is(err, ErrRequestReused) {
		// A client bug, not a retry: 422 on the field, so that neither
		// highlight is silently lost (a 409 would read as "already there").
		validation(w, detail{Loc: []string{"body", "request_id"},
			Msg: "request_id was already used for a different highlight", Type: "value_error"})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(ans.Status)
	w.Write(ans.Body)
}

// bodyError turns a JSON decoding error into a 422 entry.
func bodyError(err error) detail {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		loc := []string{"body"}
		if te.Field != "" {
			loc = append(loc, strings.Split(te.Field, ".")...)
		}
		return detail{Loc: loc, Msg: "Input should be a valid " + te.Type.String(), Type: "type_error"}
	}
	if errors.Is(err, io.EOF) {
		return detail{Loc: []string{"body"}, Msg: "Field required", Type: "missing"}
	}
	return detail{Loc: []string{"body"}, Msg: "JSON decode error", Type: "json_invalid"}
}

// deleteHighlights answers DELETE /v1/highlights/{passage_id}?bible_id=:
// a verse, a range or a whole chapter; 204 with no body, also when there
// was nothing to delete (the state afterwards is the one asked for).
func (s *Server) deleteHighlights(w http.ResponseWriter, r *http.Request, c caller) {
	user, bibleID, verses, ok := s.highlightTarget(w, r, c, []string{"path", "passage_id"}, r.PathValue("passage_id"), true)
	if !ok {
		return
	}
	if err := s.cfg.DB.DeleteHighlights(r.Context(), user, bibleID, verses); err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}
