package content

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/versification"
	"github.com/bibleplatform/platform/wire/problem"
)

// From is the numbering a request's passage id is taken in: another
// Bible's (from_bible_id) or a standard scheme (from_versification).
type From struct {
	Scheme *versification.Scheme
	Bible  int32  // the Bible named by from_bible_id, 0 for a scheme
	Name   string // the scheme's name (a standard one or "custom")
}

// readFrom reads from_bible_id and from_versification from q. set is false when
// the request names neither (nothing is allocated then); ok is false when
// it has answered (422 for a malformed or unknown value, 404 for a Bible
// id that names no Bible of the build).
//
// The other Bible need not be licensed to the app: only its numbering is
// read, which the Bible resource shows to every app.
func (s *Routes) readFrom(ctx *fasthttp.RequestCtx, st *site.Site, q *query) (f From, set, ok bool) {
	bid, name := q[queryFromBible], q[queryFromScheme]
	if len(bid) == 0 && len(name) == 0 {
		return From{}, false, true
	}
	if len(bid) > 0 && len(name) > 0 {
		respond.Invalid(ctx, problem.FromBoth("query", "from_versification"))
		return From{}, true, false
	}
	if len(name) > 0 {
		sc, found := versification.Standard(string(name))
		if !found {
			respond.Invalid(ctx, problem.OneOf(versification.Names, "query", "from_versification"))
			return From{}, true, false
		}
		return From{Scheme: sc, Name: string(name)}, true, true
	}
	other, ok := queryBible(ctx, st, "from_bible_id", bid)
	if !ok {
		return From{}, true, false
	}
	sc, err := s.Scheme(ctx, other)
	if err != nil {
		respond.Fail(ctx, s.log, problem.Unavailable, "versification", err)
		return From{}, true, false
	}
	return From{Scheme: sc, Bible: other.ID, Name: schemeName(sc)}, true, true
}

// queryBible finds the Bible a query parameter names: 422 when the value
// is no 32-bit integer, 404 when it names no Bible of the build (the
// spec's rule: malformed is 422, well-formed naming nothing 404). ok is
// false when it has answered.
func queryBible(ctx *fasthttp.RequestCtx, st *site.Site, param string, raw []byte) (*site.Bible, bool) {
	id, p := params.PathID(raw)
	if p == params.IDInvalid {
		respond.Invalid(ctx, problem.NotInt32("query", param))
		return nil, false
	}
	bv := st.Bibles[id]
	if p == params.IDNone || bv == nil {
		respond.Answer(ctx, problem.NotFound, problem.QueryBibleNotFound(raw, param))
		return nil, false
	}
	return bv, true
}

// parsePassageID reads a passage id of the path; ok is false when it has
// answered 422.
func parsePassageID(ctx *fasthttp.RequestCtx, pid []byte) (bible.Ref, bool) {
	r, err := bible.ParseRef(string(pid))
	if err != nil {
		var bad *bible.ParseError
		errors.As(err, &bad)
		respond.Invalid(ctx, problem.PassageID(bad, "path", "passage_id_path"))
		return bible.Ref{}, false
	}
	return r, true
}

// schemeName is the name a Bible's scheme goes by.
func schemeName(sc *versification.Scheme) string {
	if n := versification.Identify(sc); n != "" {
		return n
	}
	return versification.Custom
}

// Scheme returns the Bible's versification, read from its pack through
// the pack tiers the first time and kept with the build.
func (s *Routes) Scheme(ctx context.Context, bv *site.Bible) (*versification.Scheme, error) {
	return site.Make(&bv.Scheme, func() (*versification.Scheme, error) {
		r, err := s.packs.Entry(ctx, nil, &bv.Entry.Pack, []byte(publish.NameVersification))
		if err != nil {
			return nil, err
		}
		if r == nil || !r.Has(represent.CodingIdentity) {
			return nil, fmt.Errorf("bible %d: pack has no versification", bv.ID)
		}
		sc, err := versification.Decode(r.Reps[represent.CodingIdentity].Body())
		if err != nil {
			return nil, fmt.Errorf("bible %d: %w", bv.ID, err)
		}
		return sc, nil
	})
}

// numbering is what mapping into bv reads: its index (the verses it has)
// and its versification.
func (s *Routes) numbering(ctx context.Context, bv *site.Bible) (*bible.Index, *versification.Scheme, error) {
	idx, err := bv.Index(ctx, s.packs)
	if err != nil {
		return nil, nil, fmt.Errorf("no index for bible %d: %w", bv.ID, err)
	}
	sc, err := s.Scheme(ctx, bv)
	if err != nil {
		return nil, nil, err
	}
	return idx, sc, nil
}

// Into answers r, taken in f's numbering, as the passages of bv that hold
// its text, with bv's own ids (versification.AppendInto), appended to
// dst: a bridge of bv (\v 15-16) that holds any verse of r is answered
// whole (SIR.11.15-16). Its error is a *respond.Problem for the client
// (404 when bv has no verse of r), or an internal error.
func (s *Routes) Into(ctx context.Context, dst []bible.Ref, bv *site.Bible, f From, r bible.Ref) ([]bible.Ref, error) {
	n := len(dst)
	dst, err := s.appendHeld(ctx, dst, bv, f, r)
	if err == nil && len(dst) == n {
		return dst, problem.New(problem.NotFound, problem.NoVerseIn(r, f.Name))
	}
	return dst, err
}

// appendHeld is Into without its 404: when bv has no verse of r, it
// appends nothing and answers no error, so that a parallel passage shows
// bv absent.
func (s *Routes) appendHeld(ctx context.Context, dst []bible.Ref, bv *site.Bible, f From, r bible.Ref) ([]bible.Ref, error) {
	if r.Kind() == bible.KindIntro {
		return append(dst, r), nil // an introduction has no verses to number
	}
	idx, to, err := s.numbering(ctx, bv)
	if err != nil {
		return dst, err
	}
	n := len(dst)
	dst, err = versification.AppendInto(dst, f.Scheme, to, r, idx)
	if err != nil {
		return dst, s.mapError(err, bv, f, r)
	}
	// AppendInto answers the Bible's own verses; checked here all the
	// same, as a passage read from them will be.
	for _, x := range dst[n:] {
		b := idx.Book(x.Book)
		if b == nil {
			return dst, problem.New(problem.NotFound, problem.BookNotFound(x.Book))
		}
		_, err := b.Span(x)
		if p, ok := problem.Passage(err); ok {
			return dst, p
		} else if err != nil {
			return dst, fmt.Errorf("locate %s in bible %d: %w", x, bv.ID, err)
		}
	}
	return dst, nil
}

// mapError is the answer to an error of mapping r from f's numbering
// into bv: a *respond.Problem for the client, or an internal error.
func (s *Routes) mapError(err error, bv *site.Bible, f From, r bible.Ref) error {
	var missing *versification.MissingError
	switch {
	case errors.As(err, &missing):
		return problem.New(problem.NotFound, problem.NoChapterIn(f.Name))
	case errors.Is(err, versification.ErrNotNumbered):
		return problem.New(problem.NotFound, problem.NotNumbered(f.Name, r))
	case errors.Is(err, bible.ErrBackwards):
		return problem.New(problem.Unacceptable, problem.BackwardsRange(r))
	case errors.Is(err, versification.ErrTooLong):
		return problem.New(problem.Unacceptable, problem.MappedTooLong(r, versification.MaxMapVerses, s.maxRangeVerses))
	}
	return fmt.Errorf("map %s from %s into bible %d: %w", r, f.Name, bv.ID, err)
}

// JoinIDs is the passage ids of refs joined by ',': the id of a passage
// of several pieces.
func JoinIDs(refs []bible.Ref) string {
	var b strings.Builder
	for i, r := range refs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(r.String())
	}
	return b.String()
}

// mappedPassage serves the passage r taken in from's numbering: the
// passage of bv that holds its text, or its pieces in order.
func (s *Routes) mappedPassage(ctx *fasthttp.RequestCtx, st *site.Site, bv *site.Bible, from From, r bible.Ref,
	v variant, private bool) {
	var rb [4]bible.Ref
	refs, err := s.Into(ctx, rb[:0], bv, from, r)
	if err != nil {
		respond.Fail(ctx, s.log, problem.Unavailable, "map passage", err)
		return
	}
	if len(refs) == 1 && refs[0].Kind() != bible.KindRange {
		s.passageRef(ctx, st, bv, refs[0], nil, v, private)
		return
	}
	html, headings, notes := v.resolve(false)
	s.composeKept(ctx, st, bv, refs, html, headings, notes, private)
}

// composeKept serves refs composed as one passage, from the composed
// cache under their canonical ids when kept there.
func (s *Routes) composeKept(ctx *fasthttp.RequestCtx, st *site.Site, bv *site.Bible, refs []bible.Ref, html, headings, notes, private bool) {
	var kb [128]byte
	key := composedKey(kb[:0], st.Build, bv.ID, []byte(JoinIDs(refs)), html, headings, notes)
	if a, ok := s.composed.Find(key); ok {
		a.ServeKept(ctx, s.composed, respond.UnsafeString(key), private)
		return
	}
	s.composed.Missed()
	s.composeRange(ctx, string(key), bv, refs, html, headings, notes, private)
}

// oneVerse reports whether r is one verse of bv's index: a verse, or a
// bridge (SIR.11.15-16, the verse SIR.11.15 of a Bible that bridges them).
func (s *Routes) oneVerse(ctx context.Context, bv *site.Bible, r bible.Ref) bool {
	if r.Kind() == bible.KindVerse {
		return true
	}
	if r.Kind() != bible.KindRange {
		return false
	}
	idx, err := bv.Index(ctx, s.packs)
	if err != nil {
		return false
	}
	b := idx.Book(r.Book)
	if b == nil {
		return false
	}
	sp, err := b.Span(r)
	return err == nil && sp.Len() == 1
}

// mappedVerse serves the verse route for a verse taken in from's
// numbering: the verse of bv that holds its text (a bridge, \v 15-16, is
// one verse of bv, served as its first number's). A verse that is several
// verses of bv (a psalm's title counted as two verses) has no one verse
// to answer: 400 names the passage to ask for instead.
func (s *Routes) mappedVerse(ctx *fasthttp.RequestCtx, bv *site.Bible, from From, book bible.BookID, rt *Route) {
	chapter, verse := respond.UnsafeString(rt.Chapter), respond.UnsafeString(rt.Verse)
	if !bible.ValidSegment(chapter) {
		respond.Invalid(ctx, problem.ChapterOrVerseID("path", "chapter_id"))
		return
	}
	if !bible.ValidSegment(verse) {
		respond.Invalid(ctx, problem.ChapterOrVerseID("path", "verse_id"))
		return
	}
	r := bible.Ref{Book: book, Chapter: chapter, Verse: verse}
	var rb [4]bible.Ref
	refs, err := s.Into(ctx, rb[:0], bv, from, r)
	if err != nil {
		respond.Fail(ctx, s.log, problem.Unavailable, "map verse", err)
		return
	}
	if len(refs) != 1 || !s.oneVerse(ctx, bv, refs[0]) {
		respond.Answer(ctx, problem.Unacceptable, problem.SeveralVerses(r, from.Name, JoinIDs(refs)))
		return
	}
	ch := bv.Chapter(book, refs[0].Chapter)
	if ch == nil {
		respond.Answer(ctx, problem.NotFound, problem.ChapterNotFound(book, refs[0].Chapter))
		return
	}
	var nb [64]byte
	s.packs.Serve(ctx, s.log, &ch.Slot, &ch.Pack, publish.AppendVerseName(nb[:0], refs[0].Verse), false, problem.VerseNotFound)
}
