package content

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/versification"
	"github.com/bibleplatform/platform/wire/problem"
)

// MaxParallelBibles bounds the Bibles of one parallel passage.
const MaxParallelBibles = 10

// ParallelText is one Bible's text of a parallel passage: the passage of
// its own ids, or Absent (and no passage) when it has no verse of it.
type ParallelText struct {
	BibleID int32 `json:"bible_id"`
	*bible.Passage
	Absent bool `json:"absent,omitempty"`
}

// ParallelFrom says whose numbering the parallel passage's id is in.
type ParallelFrom struct {
	Versification string `json:"versification"`
	BibleID       int32  `json:"bible_id,omitempty"`
}

// Parallel is the answer of /v1/passages/{passage_id}. Verses is there
// with align=verse only, so that the answer without it stays as it was.
type Parallel struct {
	ID     string          `json:"id"`
	From   ParallelFrom    `json:"from"`
	Data   []ParallelText  `json:"data"`
	Verses []ParallelVerse `json:"verses,omitempty"`
}

// ParallelVerse is one row of a parallel passage aligned verse by verse:
// a verse of the passage in the numbering it was asked in (or a run of
// them, where a Bible has one verse for several), and each Bible's text
// of it, in the order of data.
type ParallelVerse struct {
	ID    string         `json:"id"`
	Texts []ParallelCell `json:"texts"`
}

// ParallelCell is one Bible's text of a row: its own ids and text, or
// absent when it has no verse of the row (a psalm's title it prints as a
// heading, a verse it omits).
type ParallelCell struct {
	BibleID int32   `json:"bible_id"`
	ID      string  `json:"id,omitempty"`
	Content *string `json:"content,omitempty"`
	Absent  bool    `json:"absent,omitempty"`
}

// Parallel serves GET /v1/passages/{passage_id}?bible_ids[]=…: the same
// passage in up to MaxParallelBibles Bibles, in the order asked. The id
// is taken in the numbering of from_bible_id or from_versification, else
// of the first Bible, and each Bible answers its own text for it with its
// own ids (Into), or is absent when it has no verse of it; 404 when no
// Bible has one. Every Bible must be licensed to the app (403 names the
// first that is not). With align=verse the answer also lines the Bibles
// up verse by verse (alignVerses).
func (s *Routes) Parallel(ctx *fasthttp.RequestCtx, adm *authz.Admission, t *authz.Table, st *site.Site, pid []byte) {
	app := s.authz.Authorize(ctx, adm, t, authz.KeyHeader)
	if app == nil {
		return
	}
	q := readQuery(ctx)
	v, ok := readVariant(ctx, &q)
	if !ok {
		return
	}
	byVerse, ok := readAlign(ctx)
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
	from, set, ok := s.readFrom(ctx, st, &q)
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
	html, headings, notes := v.resolve(r.Verse == "")
	out := Parallel{ID: r.String(), From: ParallelFrom{Versification: from.Name, BibleID: from.Bible}}
	// The chapters' segments are borrowed until the answer is encoded.
	var loans []*packs.Loan
	defer func() { s.giveBack(loans) }()
	var mod time.Time
	held := false
	for _, bv := range bibles {
		var rb [4]bible.Ref
		refs, err := s.appendHeld(ctx, rb[:0], bv, from, r)
		if err != nil {
			s.failIn(ctx, bv, err)
			return
		}
		if len(refs) == 0 {
			// A Bible without a verse of the passage (one it omits, a
			// book it lacks) is absent, as in a row of align=verse.
			out.Data = append(out.Data, ParallelText{BibleID: bv.ID, Absent: true})
			continue
		}
		p, m, err := s.passageOf(ctx, bv, refs, html, headings, notes, &loans)
		if err != nil {
			s.failIn(ctx, bv, err)
			return
		}
		out.Data = append(out.Data, ParallelText{BibleID: bv.ID, Passage: &p})
		held = true
		if m.After(mod) {
			mod = m
		}
	}
	if !held {
		respond.Answer(ctx, problem.NotFound, problem.NoneHas(r, from.Name))
		return
	}
	if byVerse {
		verses, err := s.alignVerses(ctx, bibles, from, r, html, headings, notes, &loans)
		if err != nil {
			var p *problem.Problem
			if errors.As(err, &p) {
				respond.Answer(ctx, p.Kind, p.Text)
			} else {
				respond.Fail(ctx, s.log, problem.Unavailable, "parallel", err)
			}
			return
		}
		out.Verses = verses
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

// readAlign reads align: passage (the default) or verse. ok is false when
// it has answered 422.
func readAlign(ctx *fasthttp.RequestCtx) (byVerse, ok bool) {
	switch a := ctx.QueryArgs().Peek("align"); {
	case len(a) == 0, string(a) == "passage":
		return false, true
	case string(a) == "verse":
		return true, true
	}
	respond.Invalid(ctx, problem.OneOf([]string{"passage", "verse"}, "query", "align"))
	return false, false
}

// alignVerses lines r, taken in from's numbering, up verse by verse
// across bibles (versification.Align): one row per verse of r, each
// Bible's text of the verses that hold it, composed as a passage is. Its
// error is a *problem.Problem for the client, or an internal error. The
// chapters' segments are borrowed, their loans added to *loans.
func (s *Routes) alignVerses(ctx context.Context, bibles []*site.Bible, from From, r bible.Ref, html, headings, notes bool, loans *[]*packs.Loan) ([]ParallelVerse, error) {
	targets := make([]versification.Target, len(bibles))
	indexes := make([]*bible.Index, len(bibles))
	for i, bv := range bibles {
		idx, sc, err := s.numbering(ctx, bv)
		if err != nil {
			return nil, err
		}
		targets[i], indexes[i] = versification.Target{Scheme: sc, Books: idx}, idx
	}
	rows, err := versification.Align(from.Scheme, r, targets)
	if err != nil {
		return nil, s.mapError(err, bibles[0], from, r)
	}
	texts := make([]verseTexts, len(bibles))
	out := make([]ParallelVerse, len(rows))
	for i, row := range rows {
		out[i] = ParallelVerse{ID: row.From.String(), Texts: make([]ParallelCell, len(bibles))}
		for b, bv := range bibles {
			cell := ParallelCell{BibleID: bv.ID}
			if refs := row.Cells[b]; refs == nil {
				cell.Absent = true
			} else {
				segs, err := texts[b].segments(ctx, s, bv, indexes[b], refs, loans)
				if err != nil {
					return nil, err
				}
				var c string
				if html {
					c = bible.ComposeHTML(segs, headings, notes)
				} else {
					c = bible.ComposeText(segs)
				}
				cell.ID, cell.Content = JoinIDs(refs), &c
			}
			out[i].Texts[b] = cell
		}
	}
	return out, nil
}

// verseTexts reads one Bible's segments for the rows of an alignment,
// decoding each chapter once.
type verseTexts struct {
	chapters map[chapterAt]chapterTexts
	buf      []bible.Segment
}

// chapterTexts are a chapter's segments, verse after verse, and where
// each verse's end (appendSegments).
type chapterTexts struct {
	segs []bible.Segment
	ends []int
}

type chapterAt struct {
	book bible.BookID
	c    int
}

// segments is the segments of the passages refs of bv, in order; the
// slice is reused by the next call. The chapters' segments are borrowed,
// their loans added to *loans (chapterSegments).
func (v *verseTexts) segments(ctx context.Context, s *Routes, bv *site.Bible, idx *bible.Index, refs []bible.Ref, loans *[]*packs.Loan) ([]bible.Segment, error) {
	if v.chapters == nil {
		v.chapters = map[chapterAt]chapterTexts{}
	}
	v.buf = v.buf[:0]
	for _, r := range refs {
		book := idx.Book(r.Book)
		if book == nil {
			return nil, fmt.Errorf("bible %d: aligned verse %s of a book not in the index", bv.ID, r)
		}
		span, err := book.Span(r)
		if err != nil {
			return nil, fmt.Errorf("bible %d: aligned verse %s: %w", bv.ID, r, err)
		}
		for c := span.FirstChapter; c <= span.LastChapter; c++ {
			k := chapterAt{r.Book, c}
			ct, ok := v.chapters[k]
			if !ok {
				if ct.segs, ct.ends, _, err = s.chapterSegments(ctx, nil, nil, bv, book, c, 0, len(book.Chapters[c].Verses)-1, loans); err != nil {
					return nil, err
				}
				v.chapters[k] = ct
			}
			from, to := span.Verses(c)
			start := 0
			if from > 0 {
				start = ct.ends[from-1]
			}
			v.buf = append(v.buf, ct.segs[start:ct.ends[to]]...)
		}
	}
	return v.buf, nil
}
