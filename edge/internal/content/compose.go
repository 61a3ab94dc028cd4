package content

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire/problem"
)

// DefaultMaxRangeVerses is the largest verse range the edge composes: a
// little more than the longest chapter (Psalm 119, 176 verses), so any
// chapter-sized reading works, while a request for a whole book (which a
// client should fetch chapter by chapter) is refused with 400 before any
// work is done.
const DefaultMaxRangeVerses = 200

// composedKey appends the composed-range cache key of a request to dst:
// the build, the Bible, the passage id as sent and the variant. Keying by
// the id as sent rather than the canonical one lets a hit skip parsing the
// reference; a range spelled two ways (JHN.3.16-4.2, jhn.3.16-JHN.4.2) is
// composed and kept once per spelling, with the same bytes and ETags. The
// id is one path segment, so it holds no '/' and the key is unambiguous.
func composedKey(dst []byte, build string, bible int32, pid []byte, html, headings, notes bool) []byte {
	dst = append(dst, "range/"...)
	dst = append(dst, build...)
	dst = append(dst, '/')
	dst = strconv.AppendInt(dst, int64(bible), 10)
	dst = append(dst, '/')
	dst = append(dst, pid...)
	dst = append(dst, '/')
	return append(dst, publish.Variant(html, headings, notes)...)
}

// composeRange answers a verse range (or a list of passages) that was not
// pre-rendered by putting together the pre-rendered segments of its
// verses, and caches the answer under key (composedKey). The caller has
// looked the key up already. The request that composes it gets it as a
// search answer's does (compose.Answer.ServeNew): in its own coding only,
// and as it is when it fits in one packet uncompressed; most ranges of a
// large catalogue are asked for once, and one asked for again gets its
// codings then.
func (s *Routes) composeRange(ctx *fasthttp.RequestCtx, key string, bv *site.Bible, refs []bible.Ref, html, headings, notes, private bool) {
	body, mod, err := s.passageBody(ctx, bv, refs, html, headings, notes)
	if err != nil {
		respond.Fail(ctx, s.log, problem.Unavailable, "compose", err)
		return
	}
	a := compose.NewAnswer(body, publish.JSON, mod, compose.Quick)
	a.ServeNew(ctx, private)
	s.composed.Add(key, a, a.Size())
}

// Compose puts a range together, in every coding. Its error is a
// *problem.Problem for the client, or an internal error (the caller logs
// it and answers 503).
func (s *Routes) Compose(ctx context.Context, bv *site.Bible, r bible.Ref, html, headings, notes bool) (*represent.Resource, error) {
	body, mod, err := s.passageBody(ctx, bv, []bible.Ref{r}, html, headings, notes)
	if err != nil {
		return nil, err
	}
	return compose.NewResource(body, publish.JSON, mod, compose.Quick), nil
}

// passageBody is the JSON body of the passages refs put together as one
// passage, in order (passageOf), a slice of exactly its length, and when
// its newest chapter was published.
//
// The chapters' segments it reads are borrowed (packs.Packs.Borrow): a
// range's chapter is mostly one no range asked for lately, and its
// segments (19 KiB on average) held on their first read were a quarter
// of what the scale mix allocated. They are given back once the body is
// copied out: a passage's strings are segments' own where it has one.
func (s *Routes) passageBody(ctx context.Context, bv *site.Bible, refs []bible.Ref, html, headings, notes bool) ([]byte, time.Time, error) {
	var loans []*packs.Loan
	defer func() { s.giveBack(loans) }()
	p, mod, err := s.passageOf(ctx, bv, refs, html, headings, notes, &loans)
	if err != nil {
		return nil, mod, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, mod, err
	}
	// The cache keeps the body as long as the range is asked for: no
	// spare capacity.
	return bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), mod, nil
}

// giveBack gives back the entries an answer borrowed (chapterSegments)
// once its body is made.
func (s *Routes) giveBack(loans []*packs.Loan) {
	for _, l := range loans {
		s.packs.GiveBack(l)
	}
}

// passageOf is the passages refs put together as one passage, in order:
// its id is theirs joined by ',', its reference theirs joined by "; ",
// and its content keeps the pieces apart (a blank line between them in
// text; each piece's own paragraphs in HTML). At most maxRangeVerses
// verses in all. Its error is Compose's. It says too when its newest
// chapter was published. The chapters' segments are borrowed, their
// loans added to *loans (chapterSegments).
func (s *Routes) passageOf(ctx context.Context, bv *site.Bible, refs []bible.Ref, html, headings, notes bool, loans *[]*packs.Loan) (bible.Passage, time.Time, error) {
	var mod time.Time
	idx, err := bv.Index(ctx, s.packs)
	if err != nil {
		return bible.Passage{}, mod, fmt.Errorf("no index for bible %d: %w", bv.ID, err)
	}
	var content, labels []string
	total := 0
	for _, r := range refs {
		p, err := s.piece(ctx, bv, idx, r, &total, loans)
		if err != nil {
			return bible.Passage{}, mod, err
		}
		if html {
			content = append(content, bible.ComposeHTML(p.segs, headings, notes))
		} else {
			content = append(content, bible.ComposeText(p.segs))
		}
		labels = append(labels, p.label)
		if p.mod.After(mod) {
			mod = p.mod
		}
	}
	sep := "\n\n" // paragraphs are one line apart
	if html {
		sep = ""
	}
	return bible.Passage{ID: JoinIDs(refs), Content: strings.Join(content, sep), Reference: strings.Join(labels, "; ")}, mod, nil
}

// piece is one passage of a composed answer.
type piece struct {
	segs  []bible.Segment
	label string
	mod   time.Time
}

// piece reads the segments of r (a verse, range or chapter) from its
// chapters' packs, adding its verses to *total, which may not pass
// maxRangeVerses. The chapters' segments are borrowed (chapterSegments).
func (s *Routes) piece(ctx context.Context, bv *site.Bible, idx *bible.Index, r bible.Ref, total *int, loans *[]*packs.Loan) (piece, error) {
	book := idx.Book(r.Book)
	bk := bv.Books[string(r.Book)]
	if book == nil || bk == nil {
		return piece{}, problem.New(problem.NotFound, problem.BookNotFound(r.Book))
	}
	span, err := book.Span(r)
	if p, ok := problem.Passage(err); ok {
		return piece{}, p
	} else if err != nil {
		return piece{}, fmt.Errorf("locate %s in bible %d: %w", r, bv.ID, err)
	}
	n := span.Len()
	if *total+n > s.maxRangeVerses {
		return piece{}, problem.New(problem.Unacceptable, problem.RangeTooLong(r, *total+n, s.maxRangeVerses))
	}
	*total += n

	var p piece
	for c := span.FirstChapter; c <= span.LastChapter; c++ {
		from, to := span.Verses(c)
		var mod time.Time
		p.segs, _, mod, err = s.chapterSegments(ctx, p.segs, nil, bv, book, c, from, to, loans)
		if err != nil {
			return piece{}, err
		}
		if mod.After(p.mod) {
			p.mod = mod
		}
	}
	// The reference uses the chapter's title where its id is not a number
	// (PS2 "1_1" is Psalm "151").
	label := r
	label.Chapter = ChapterLabel(&book.Chapters[span.FirstChapter])
	label.EndChapter = ChapterLabel(&book.Chapters[span.LastChapter])
	if !r.IsRange() {
		label.EndChapter = ""
	}
	p.label = label.Label(book.Title, "")
	return p, nil
}

// chapterSegments appends the segments of verses from to to (places in
// the chapter) of chapter c of book (its place in the book's index) to
// dst, read from the chapter's pack, and where each verse ends to ends
// (appendSegments); it says when the pack was published. The segments'
// strings are the entry's bytes, borrowed (packs.Packs.Borrow): its loan
// is added to *loans, for the caller to give back (giveBack) once nothing
// reads them or what was made from them without a copy.
func (s *Routes) chapterSegments(ctx context.Context, dst []bible.Segment, ends []int, bv *site.Bible, book *bible.Book, c, from, to int, loans *[]*packs.Loan) ([]bible.Segment, []int, time.Time, error) {
	ch := &book.Chapters[c]
	ce := bv.Chapter(book.ID, ch.ID)
	if ce == nil {
		return dst, ends, time.Time{}, fmt.Errorf("bible %d: chapter %s.%s in the index but not in the build", bv.ID, book.ID, ch.ID)
	}
	// By entry, not by pack: a range should not bring its chapters whole
	// into memory (packs.Packs.Entry).
	r, l, err := s.packs.Borrow(ctx, &ce.Slot, &ce.Pack, []byte(publish.NameSegments), nil)
	if l != nil {
		*loans = append(*loans, l)
	}
	if err != nil {
		return dst, ends, time.Time{}, err
	}
	if r == nil || !r.Has(represent.CodingIdentity) {
		return dst, ends, time.Time{}, fmt.Errorf("pack %s: no segments", ce.Pack.Key)
	}
	out, outEnds, n, err := appendSegments(dst, ends, r.Reps[represent.CodingIdentity].Body(), from, to)
	if err != nil || n != len(ch.Verses) {
		return dst, ends, time.Time{}, fmt.Errorf("pack %s: %d verses, %d segment lists (%v)", ce.Pack.Key, len(ch.Verses), n, err)
	}
	return out, outEnds, ce.Pack.Modified, nil
}

// ChapterLabel is how a chapter is named in a passage's reference: its
// number, or its title where its id is not a number.
func ChapterLabel(c *bible.Chapter) string {
	for i := 0; i < len(c.ID); i++ {
		if c.ID[i] < '0' || c.ID[i] > '9' {
			if c.Title != "" {
				return c.Title
			}
			break
		}
	}
	return c.ID
}
