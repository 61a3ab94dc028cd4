package content

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/wire/problem"
)

// MaxParallelBibles bounds the Bibles of one parallel passage.
const MaxParallelBibles = 10

// ParallelText is one Bible's text of a parallel passage.
type ParallelText struct {
	BibleID int32 `json:"bible_id"`
	bible.Passage
}

// ParallelFrom says whose numbering the parallel passage's id is in.
type ParallelFrom struct {
	Versification string `json:"versification"`
	BibleID       int32  `json:"bible_id,omitempty"`
}

// Parallel is the answer of /v1/passages/{passage_id}.
type Parallel struct {
	ID   string         `json:"id"`
	From ParallelFrom   `json:"from"`
	Data []ParallelText `json:"data"`
}

// Parallel serves GET /v1/passages/{passage_id}?bible_ids[]=…: the same
// passage in up to MaxParallelBibles Bibles, in the order asked. The id
// is taken in the numbering of from_bible_id or from_versification, else
// of the first Bible, and each Bible answers its own text for it with its
// own ids (Into). Every Bible must be licensed to the app (403 names the
// first that is not).
func (s *Routes) Parallel(ctx *fasthttp.RequestCtx, adm *authz.Admission, t *authz.Table, st *site.Site, pid []byte) {
	app := s.authz.Authorize(ctx, adm, t, authz.KeyHeader)
	if app == nil {
		return
	}
	html, headings, notes, hSet, nSet, ok := readVariant(ctx)
	if !ok {
		return
	}
	raw := ctx.QueryArgs().PeekMulti("bible_ids[]")
	switch {
	case len(raw) == 0:
		respond.Invalid(ctx, problem.Missing("query", "bible_ids[]"))
		return
	case len(raw) > MaxParallelBibles:
		respond.Invalid(ctx, problem.TooManyItems(MaxParallelBibles, "query", "bible_ids[]"))
		return
	}
	bibles := make([]*site.Bible, 0, len(raw))
	for _, b := range raw {
		bv, ok := queryBible(ctx, st, "bible_ids[]", b)
		if !ok {
			return
		}
		for _, x := range bibles {
			if x == bv {
				respond.Invalid(ctx, problem.NamedTwice(bv.ID, "query", "bible_ids[]"))
				return
			}
		}
		bibles = append(bibles, bv)
	}
	from, set, ok := s.readFrom(ctx, st)
	if !ok {
		return
	}
	r, ok := parsePassageID(ctx, pid)
	if !ok {
		return
	}
	if r.Kind() == bible.KindIntro {
		respond.Invalid(ctx, problem.NoIntroHere("path", "passage_id_path"))
		return
	}
	private := false
	for _, bv := range bibles {
		if !t.CheckLicence(ctx, app, bv.ID) {
			return
		}
		private = private || !t.IsOpen(bv.ID)
	}
	if !set {
		sc, err := s.Scheme(ctx, bibles[0])
		if err != nil {
			respond.Fail(ctx, s.log, problem.Unavailable, "versification", err)
			return
		}
		from = From{Scheme: sc, Bible: bibles[0].ID, Name: schemeName(sc)}
	}
	// A whole chapter defaults to headings and notes (passage rule 2),
	// which format=text ignores (rule 1).
	if r.Verse == "" {
		headings, notes = headings || !hSet, notes || !nSet
	}
	if !html {
		headings, notes = false, false
	}
	out := Parallel{ID: r.String(), From: ParallelFrom{Versification: from.Name, BibleID: from.Bible}}
	var mod time.Time
	for _, bv := range bibles {
		var rb [4]bible.Ref
		refs, err := s.Into(ctx, rb[:0], bv, from, r)
		if err != nil {
			s.failIn(ctx, bv, err)
			return
		}
		p, m, err := s.passageOf(ctx, bv, refs, html, headings, notes)
		if err != nil {
			s.failIn(ctx, bv, err)
			return
		}
		out.Data = append(out.Data, ParallelText{BibleID: bv.ID, Passage: p})
		if m.After(mod) {
			mod = m
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		respond.Fail(ctx, s.log, problem.Unavailable, "parallel", err)
		return
	}
	compose.Serve(ctx, s.composed, "", bytes.TrimSuffix(buf.Bytes(), []byte("\n")), mod, represent.CachePublic, private)
}

// failIn answers a failure of one Bible of a parallel passage, naming
// the Bible in a message for the client.
func (s *Routes) failIn(ctx *fasthttp.RequestCtx, bv *site.Bible, err error) {
	var p *problem.Problem
	if errors.As(err, &p) {
		respond.Answer(ctx, p.Kind, problem.InBible(bv.ID, p.Text))
		return
	}
	respond.Fail(ctx, s.log, problem.Unavailable, "parallel", err)
}
