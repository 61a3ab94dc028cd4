package edge

import (
	"bytes"
	"errors"
	"log/slog"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire/problem"
	"github.com/valyala/fasthttp"
)

// bibleRoutes answers the Bibles routes (/v1/bibles/{id}/…): a Bible's
// metadata, books, chapters, verses and passages. It holds what they
// read: the access decisions, the pack tiers, the cache of composed
// ranges and the bound on a range.
type bibleRoutes struct {
	log            *slog.Logger
	authz          *authz.Authz
	packs          *packs
	composed       *lru[*represent.Resource]
	maxRangeVerses int
}

// serve answers the Bibles routes, once admitGET has let the request in.
func (s *bibleRoutes) serve(ctx *fasthttp.RequestCtx, adm *authz.Admission, t *authz.Table, st *site, rt *route) {
	app := s.authz.Authorize(ctx, adm, t, authz.KeyHeader)
	if app == nil {
		return
	}
	id, p := parsePathID(rt.bible)
	if p == idInvalid {
		respond.Invalid(ctx, problem.NotInt32("path", "bible_id_path"))
		return
	}
	bv := st.bibles[id]
	if p == idNone || bv == nil {
		respond.Answer(ctx, problem.NotFound, problem.BiblePathNotFound(string(rt.bible)))
		return
	}
	if rt.kind == routePassage {
		s.passage(ctx, t, app, st, bv, rt.passage)
		return
	}
	var ref *publish.PackRef
	var slot *packSlot
	var name string
	switch rt.kind {
	case routeBible, routeIndex, routeBooks:
		ref = &bv.entry.Pack
		name = publish.NameBible
		if rt.kind == routeIndex {
			name = publish.NameIndex
		}
		if rt.kind == routeBooks {
			name = publish.NameBooks
			if c := ctx.QueryArgs().Peek("canon"); len(c) > 0 {
				canon, ok := bible.ParseCanon(string(c))
				if !ok {
					respond.Invalid(ctx, problem.OneOf([]string{"new_testament", "old_testament", "deuterocanon"}, "query", "canon"))
					return
				}
				name = publish.BooksName(canon)
			}
		}
	default:
		book, ok := bible.ParseBookID(respond.UnsafeString(rt.book))
		if !ok {
			respond.Invalid(ctx, problem.Length(3, "path", "book_id"))
			return
		}
		bk := bv.books[string(book)]
		if bk == nil {
			respond.Answer(ctx, problem.NotFound, problem.BookNotFound(book))
			return
		}
		if rt.kind == routeBook || rt.kind == routeChapters {
			ref, name = &bk.entry.Pack, publish.NameBook
			if rt.kind == routeChapters {
				name = publish.NameChapters
			}
			break
		}
		if !bible.ValidSegment(respond.UnsafeString(rt.chapter)) {
			respond.Invalid(ctx, problem.ChapterOrVerseID("path", "chapter_id"))
			return
		}
		ch := bv.chapter(book, respond.UnsafeString(rt.chapter))
		if ch == nil {
			respond.Answer(ctx, problem.NotFound, problem.ChapterNotFound(book, string(rt.chapter)))
			return
		}
		ref, slot = &ch.Pack, &ch.pack
		switch rt.kind {
		case routeChapter:
			name = publish.NameChapter
		case routeVerses:
			name = publish.NameVerses
		case routeVerse:
			if !bible.ValidSegment(respond.UnsafeString(rt.verse)) {
				respond.Invalid(ctx, problem.ChapterOrVerseID("path", "verse_id"))
				return
			}
			var nb [64]byte
			s.packs.serve(ctx, s.log, slot, ref, publish.AppendVerseName(nb[:0], respond.UnsafeString(rt.verse)), false, problem.VerseNotFound)
			return
		}
	}
	var nb [64]byte
	s.packs.serve(ctx, s.log, slot, ref, append(nb[:0], name...), false, problem.NotFound.Text())
}

// serve answers with one entry of one pack (404 with missing when there is
// none, 503 when the pack cannot be loaded); name is built by the caller in
// a stack buffer so that the lookup does not allocate. slot, when not nil,
// is where the pack is kept for its next requests (a chapter's).
func (p *packs) serve(ctx *fasthttp.RequestCtx, log *slog.Logger, slot *packSlot, ref *publish.PackRef, name []byte, private bool, missing problem.Text) {
	res, err := p.entry(ctx, slot, ref, name)
	if err != nil {
		respond.Fail(ctx, log, problem.Unavailable, "cannot load pack", err)
		return
	}
	if res == nil {
		respond.Answer(ctx, problem.NotFound, missing)
		return
	}
	represent.Serve(ctx, res, private)
}

// passage serves /v1/bibles/{id}/passages/{passage_id}.
func (s *bibleRoutes) passage(ctx *fasthttp.RequestCtx, t *authz.Table, app *authz.App, st *site, bv *bibleView, pid []byte) {
	private := !t.IsOpen(bv.id)
	args := ctx.QueryArgs()
	html := false
	switch f := args.Peek("format"); {
	case len(f) == 0, string(f) == "text":
	case string(f) == "html":
		html = true
	default:
		respond.Invalid(ctx, problem.OneOf([]string{"text", "html"}, "query", "format"))
		return
	}
	headings, hSet, ok := parseBool(args.Peek("include_headings"))
	if !ok {
		respond.Invalid(ctx, problem.NotBool("query", "include_headings"))
		return
	}
	notes, nSet, ok := parseBool(args.Peek("include_notes"))
	if !ok {
		respond.Invalid(ctx, problem.NotBool("query", "include_notes"))
		return
	}

	// A range composed before is found by the id as sent, before any
	// parsing. Only valid ids were composed, so a hit is valid too.
	var kb [128]byte
	var key []byte
	if bytes.IndexByte(pid, '-') >= 0 {
		key = composedKey(kb[:0], st.build, bv.id, pid, html, headings, notes)
		if res, ok := s.composed.find(key); ok {
			if t.CheckLicence(ctx, app, bv.id) {
				represent.Serve(ctx, res, private)
			}
			return
		}
	}
	// r holds substrings of the request's path: it is used within this
	// request only (what the composed cache keeps is built anew).
	r, err := bible.ParseRef(respond.UnsafeString(pid))
	if err != nil {
		var bad *bible.ParseError
		errors.As(err, &bad)
		respond.Invalid(ctx, problem.PassageID(bad, "path", "passage_id_path"))
		return
	}
	if !t.CheckLicence(ctx, app, bv.id) {
		return
	}
	if r.Kind() == bible.KindRange {
		s.composed.missed()
		s.composeRange(ctx, string(key), bv, r, html, headings, notes, private)
		return
	}
	intro := r.Kind() == bible.KindIntro
	// Whole chapters and introductions default to headings and notes
	// (passage rule 2); format=text ignores both (rule 1).
	if intro || r.Verse == "" {
		if !hSet {
			headings = true
		}
		if !nSet {
			notes = true
		}
	}
	variant := publish.Variant(html, headings, notes)
	// A chapter's passage is found by the chapter alone; the book is
	// looked up for an introduction, or to tell which of the two is
	// missing.
	var ch *chapterView
	if !intro {
		ch = bv.chapter(r.Book, r.Chapter)
	}
	var ref *publish.PackRef
	var slot *packSlot
	verse := r.Verse
	if ch != nil {
		ref, slot = &ch.Pack, &ch.pack
	} else {
		bk := bv.books[string(r.Book)]
		if bk == nil {
			respond.Answer(ctx, problem.NotFound, problem.BookNotFound(r.Book))
			return
		}
		if !intro {
			respond.Answer(ctx, problem.NotFound, problem.ChapterNotFound(r.Book, r.Chapter))
			return
		}
		ref, verse = &bk.entry.Pack, bible.IntroChapter
	}
	var nb [64]byte
	s.packs.serve(ctx, s.log, slot, ref, publish.AppendPassageName(nb[:0], verse, variant), private, problem.PassageNotFound)
}

// parseBool reads a boolean query parameter the way the reference service
// (FastAPI) does; set is false when absent.
func parseBool(b []byte) (v, set, ok bool) {
	if len(b) == 0 {
		return false, false, true
	}
	switch {
	case respond.EqualFoldASCII(b, "true"), respond.EqualFoldASCII(b, "1"), respond.EqualFoldASCII(b, "yes"), respond.EqualFoldASCII(b, "on"):
		return true, true, true
	case respond.EqualFoldASCII(b, "false"), respond.EqualFoldASCII(b, "0"), respond.EqualFoldASCII(b, "no"), respond.EqualFoldASCII(b, "off"):
		return false, true, true
	}
	return false, false, false
}
