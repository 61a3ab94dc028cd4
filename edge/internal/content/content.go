// Package content answers the Bibles routes (/v1/bibles/{id}/…): a
// Bible's metadata, books, chapters, verses and passages, pre-rendered
// entries served from the pack tiers, and verse ranges composed from
// their verses' segments and kept.
package content

import (
	"bytes"
	"errors"
	"log/slog"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire/problem"
	"github.com/valyala/fasthttp"
)

// Kind is which of the Bibles routes a path names.
type Kind uint8

const (
	KindBible Kind = iota
	KindIndex
	KindBooks
	KindBook
	KindChapters
	KindChapter
	KindVerses
	KindVerse
	KindPassage
	KindMap        // /map/{passage_id}: a passage's ids in another numbering
	KindReferences // /references?query=: a citation resolved
)

// Route is a parsed /v1/bibles/… path. Its segments point into the
// request's path: parsing allocates nothing. Only the shape is checked;
// the values are checked by Serve, so that a well-shaped path with a bad
// value is 422 or 404.
type Route struct {
	Kind                        Kind
	Bible, Book, Chapter, Verse []byte
	Passage                     []byte
	// BibleID is Bible read as a path id, once, by the route's parser:
	// authz decides the licence by it and Serve looks the Bible up by it.
	BibleID    int32
	BibleParse params.ID
}

// Routes answers the Bibles routes. It holds what they read: the access
// decisions, the pack tiers, the cache of composed ranges and the bound on
// a range.
type Routes struct {
	log            *slog.Logger
	authz          *authz.Authz
	packs          *packs.Packs
	composed       *cache.LRU[*compose.Answer]
	maxRangeVerses int
}

// Config is what New needs.
type Config struct {
	Log      *slog.Logger
	Authz    *authz.Authz
	Packs    *packs.Packs
	Composed *cache.LRU[*compose.Answer] // composed ranges, by composedKey
	// MaxRangeVerses is the largest range composed (DefaultMaxRangeVerses
	// when zero).
	MaxRangeVerses int
}

// New returns the Bibles routes.
func New(cfg Config) *Routes {
	if cfg.MaxRangeVerses <= 0 {
		cfg.MaxRangeVerses = DefaultMaxRangeVerses
	}
	return &Routes{log: cfg.Log, authz: cfg.Authz, packs: cfg.Packs, composed: cfg.Composed, maxRangeVerses: cfg.MaxRangeVerses}
}

// Serve answers the Bibles routes, once the edge's gate has let the
// request in and authz has decided it (rd: the app, and its licence for
// the Bible the path names).
func (s *Routes) Serve(ctx *fasthttp.RequestCtx, rd authz.Reading, st *site.Site, rt *Route) {
	id, p := rt.BibleID, rt.BibleParse
	if p == params.IDInvalid {
		respond.Invalid(ctx, problem.NotInt32("path", "bible_id_path"))
		return
	}
	bv := st.Bibles[id]
	if p == params.IDNone || bv == nil {
		respond.Answer(ctx, problem.NotFound, problem.BiblePathNotFound(string(rt.Bible)))
		return
	}
	switch rt.Kind {
	case KindPassage:
		s.passage(ctx, rd, st, bv, rt.Passage)
		return
	case KindMap:
		s.mapIDs(ctx, st, bv, rt.Passage)
		return
	case KindReferences:
		s.references(ctx, bv)
		return
	}
	var ref *publish.PackRef
	var slot *packs.Slot
	var name string
	switch rt.Kind {
	case KindBible, KindIndex, KindBooks:
		ref = &bv.Entry.Pack
		name = publish.NameBible
		if rt.Kind == KindIndex {
			name = publish.NameIndex
		}
		if rt.Kind == KindBooks {
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
		book, ok := bible.ParseBookID(respond.UnsafeString(rt.Book))
		if !ok {
			respond.Invalid(ctx, problem.Length(3, "path", "book_id"))
			return
		}
		if rt.Kind == KindVerse {
			q := readQuery(ctx)
			from, mapped, ok := s.readFrom(ctx, st, &q)
			if !ok {
				return
			}
			if mapped {
				s.mappedVerse(ctx, bv, from, book, rt)
				return
			}
		}
		bk := bv.Books[string(book)]
		if bk == nil {
			respond.Answer(ctx, problem.NotFound, problem.BookNotFound(book))
			return
		}
		if rt.Kind == KindBook || rt.Kind == KindChapters {
			ref, name = &bk.Entry.Pack, publish.NameBook
			if rt.Kind == KindChapters {
				name = publish.NameChapters
			}
			break
		}
		if !bible.ValidSegment(respond.UnsafeString(rt.Chapter)) {
			respond.Invalid(ctx, problem.ChapterOrVerseID("path", "chapter_id"))
			return
		}
		ch := bv.Chapter(book, respond.UnsafeString(rt.Chapter))
		if ch == nil {
			respond.Answer(ctx, problem.NotFound, problem.ChapterNotFound(book, string(rt.Chapter)))
			return
		}
		ref, slot = &ch.Pack, &ch.Slot
		switch rt.Kind {
		case KindChapter:
			name = publish.NameChapter
		case KindVerses:
			name = publish.NameVerses
		case KindVerse:
			if !bible.ValidSegment(respond.UnsafeString(rt.Verse)) {
				respond.Invalid(ctx, problem.ChapterOrVerseID("path", "verse_id"))
				return
			}
			var nb [64]byte
			s.packs.Serve(ctx, s.log, slot, ref, publish.AppendVerseName(nb[:0], respond.UnsafeString(rt.Verse)), false, problem.VerseNotFound)
			return
		}
	}
	var nb [64]byte
	s.packs.Serve(ctx, s.log, slot, ref, append(nb[:0], name...), false, problem.NotFound.Text())
}

// passage serves /v1/bibles/{id}/passages/{passage_id}.
func (s *Routes) passage(ctx *fasthttp.RequestCtx, rd authz.Reading, st *site.Site, bv *site.Bible, pid []byte) {
	private := !rd.Open
	q := readQuery(ctx)
	v, ok := readVariant(ctx, &q)
	if !ok {
		return
	}

	from, mapped, ok := s.readFrom(ctx, st, &q)
	if !ok {
		return
	}
	// A range composed before is found by the id as sent, before any
	// parsing. Only valid ids were composed, so a hit is valid too.
	var kb [128]byte
	var key []byte
	if !mapped && (bytes.IndexByte(pid, '-') >= 0 || bytes.IndexByte(pid, ',') >= 0) {
		html, headings, notes := v.resolve(false)
		key = composedKey(kb[:0], st.Build, bv.ID, pid, html, headings, notes)
		if a, ok := s.composed.Find(key); ok {
			if rd.Licensed {
				a.ServeKept(ctx, s.composed, respond.UnsafeString(key), private)
			} else {
				respond.NotLicensed(ctx, bv.ID)
			}
			return
		}
	}
	// r holds substrings of the request's path: it is used within this
	// request only (what the composed cache keeps is built anew).
	r, err := bible.ParseRef(respond.UnsafeString(pid))
	if err != nil {
		if bytes.IndexByte(pid, ',') >= 0 && s.list(ctx, rd, st, bv, from, mapped, pid, key, v, private) {
			return
		}
		if s.meant(ctx, bv, string(pid)) {
			return
		}
		var bad *bible.ParseError
		errors.As(err, &bad)
		respond.Invalid(ctx, problem.PassageID(bad, "path", "passage_id_path"))
		return
	}
	if !rd.Licensed {
		respond.NotLicensed(ctx, bv.ID)
		return
	}
	if mapped {
		s.mappedPassage(ctx, st, bv, from, r, v, private)
		return
	}
	s.passageRef(ctx, st, bv, r, key, v, private)
}

// passageRef serves the passage r of bv; key is its composed-range key
// when r is a range.
func (s *Routes) passageRef(ctx *fasthttp.RequestCtx, st *site.Site, bv *site.Bible, r bible.Ref, key []byte,
	v variant, private bool) {
	if r.Kind() == bible.KindRange {
		s.composed.Missed()
		html, headings, notes := v.resolve(false)
		s.composeRange(ctx, string(key), bv, []bible.Ref{r}, html, headings, notes, private)
		return
	}
	intro := r.Kind() == bible.KindIntro
	variant := publish.Variant(v.resolve(intro || r.Verse == ""))
	// A chapter's passage is found by the chapter alone; the book is
	// looked up for an introduction, or to tell which of the two is
	// missing.
	var ch *site.Chapter
	if !intro {
		ch = bv.Chapter(r.Book, r.Chapter)
	}
	var ref *publish.PackRef
	var slot *packs.Slot
	verse := r.Verse
	if ch != nil {
		ref, slot = &ch.Pack, &ch.Slot
	} else {
		bk := bv.Books[string(r.Book)]
		if bk == nil {
			respond.Answer(ctx, problem.NotFound, problem.BookNotFound(r.Book))
			return
		}
		if !intro {
			respond.Answer(ctx, problem.NotFound, problem.ChapterNotFound(r.Book, r.Chapter))
			return
		}
		ref, verse = &bk.Entry.Pack, bible.IntroChapter
	}
	var nb [64]byte
	s.packs.Serve(ctx, s.log, slot, ref, publish.AppendPassageName(nb[:0], verse, variant), private, problem.PassageNotFound)
}

// query holds the query parameters the passage routes read, by index
// (queryFormat…), read in one pass over the query (readQuery).
type query [queryNames][]byte

const (
	queryFormat = iota
	queryHeadings
	queryNotes
	queryFromBible
	queryFromScheme
	queryNames
)

var queryName = [queryNames]string{
	queryFormat:     "format",
	queryHeadings:   "include_headings",
	queryNotes:      "include_notes",
	queryFromBible:  "from_bible_id",
	queryFromScheme: "from_versification",
}

// readQuery reads the passage routes' query parameters.
func readQuery(ctx *fasthttp.RequestCtx) (q query) {
	respond.QueryOf(ctx).PeekAll(queryName[:], q[:])
	return q
}

// variant is a passage's format and include toggles as the request gave
// them (readVariant); resolve says what the passage is rendered with.
type variant struct {
	html, headings, notes bool
	hSet, nSet            bool // whether the toggles were given
}

// resolve applies the spec's passage rules to v, for a passage that is a
// whole chapter or an introduction (whole) or not: a whole one defaults
// to headings and notes where the toggles were not given (rule 2), and
// format=text has neither (rule 1). Every passage route resolves its
// toggles here.
func (v variant) resolve(whole bool) (html, headings, notes bool) {
	headings, notes = v.headings, v.notes
	if whole {
		headings, notes = headings || !v.hSet, notes || !v.nSet
	}
	if !v.html {
		headings, notes = false, false
	}
	return v.html, headings, notes
}

// readVariant reads a passage's format and include toggles from q; ok is
// false when it has answered 422.
func readVariant(ctx *fasthttp.RequestCtx, q *query) (v variant, ok bool) {
	switch f := q[queryFormat]; {
	case len(f) == 0, string(f) == "text":
	case string(f) == "html":
		v.html = true
	default:
		respond.Invalid(ctx, problem.OneOf([]string{"text", "html"}, "query", "format"))
		return
	}
	if v.headings, v.hSet, ok = params.Bool(q[queryHeadings]); !ok {
		respond.Invalid(ctx, problem.NotBool("query", "include_headings"))
		return
	}
	if v.notes, v.nSet, ok = params.Bool(q[queryNotes]); !ok {
		respond.Invalid(ctx, problem.NotBool("query", "include_notes"))
	}
	return
}
