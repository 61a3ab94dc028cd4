package content

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
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
	if !html {
		headings, notes = false, false // passage rule 1
	}
	dst = append(dst, "range/"...)
	dst = append(dst, build...)
	dst = append(dst, '/')
	dst = strconv.AppendInt(dst, int64(bible), 10)
	dst = append(dst, '/')
	dst = append(dst, pid...)
	dst = append(dst, '/')
	return append(dst, publish.Variant(html, headings, notes)...)
}

// composeRange answers a verse range that was not pre-rendered by putting
// together the pre-rendered segments of its verses, and caches the answer
// under key (composedKey). The caller has looked the key up already.
func (s *Routes) composeRange(ctx *fasthttp.RequestCtx, key string, bv *site.Bible, r bible.Ref, html, headings, notes, private bool) {
	if !html {
		headings, notes = false, false // passage rule 1
	}
	res, err := s.Compose(ctx, bv, r, html, headings, notes)
	if err != nil {
		respond.Fail(ctx, s.log, respond.Unavailable, "compose", err)
		return
	}
	s.composed.Add(key, res, res.Size())
	represent.Serve(ctx, res, private)
}

// Compose puts a range together. Its error is a *respond.Problem for the client,
// or an internal error (the caller logs it and answers 503).
func (s *Routes) Compose(ctx context.Context, bv *site.Bible, r bible.Ref, html, headings, notes bool) (*represent.Resource, error) {
	idx, err := bv.Index(ctx, s.packs)
	if err != nil {
		return nil, fmt.Errorf("no index for bible %d: %w", bv.ID, err)
	}
	book := idx.Book(r.Book)
	bk := bv.Books[string(r.Book)]
	if book == nil || bk == nil {
		return nil, &respond.Problem{Kind: respond.NotFound, Msg: "Book not found."}
	}
	span, err := book.Span(r)
	var missing *bible.MissingError
	switch {
	case errors.As(err, &missing):
		if missing.Verse == "" {
			return nil, &respond.Problem{Kind: respond.NotFound, Msg: "Chapter not found."}
		}
		return nil, &respond.Problem{Kind: respond.NotFound, Msg: "Verse not found."}
	case errors.Is(err, bible.ErrBackwards):
		return nil, &respond.Problem{Kind: respond.Unacceptable, Msg: fmt.Sprintf("The passage range %s ends before it starts.", r)}
	case err != nil:
		return nil, fmt.Errorf("locate %s in bible %d: %w", r, bv.ID, err)
	}
	if n := span.Len(); n > s.maxRangeVerses {
		return nil, &respond.Problem{Kind: respond.Unacceptable, Msg: fmt.Sprintf(
			"The passage range %s spans %d verses; at most %d can be requested at once.", r, n, s.maxRangeVerses)}
	}

	var segs []bible.Segment
	var mod time.Time
	for c := span.FirstChapter; c <= span.LastChapter; c++ {
		ch := &book.Chapters[c]
		ce := bv.Chapter(r.Book, ch.ID)
		if ce == nil {
			return nil, fmt.Errorf("bible %d: chapter %s.%s in the index but not in the build", bv.ID, r.Book, ch.ID)
		}
		pv, err := s.packs.Get(ctx, ce.Pack)
		if err != nil {
			return nil, err
		}
		var verses [][]bible.Segment
		if err := pv.Pack().Decode(publish.NameSegments, &verses); err != nil || len(verses) != len(ch.Verses) {
			return nil, fmt.Errorf("pack %s: %d verses, %d segment lists (%v)", ce.Pack.Key, len(ch.Verses), len(verses), err)
		}
		from, to := span.Verses(c)
		for _, v := range verses[from : to+1] {
			segs = append(segs, v...)
		}
		if ce.Pack.Modified.After(mod) {
			mod = ce.Pack.Modified
		}
	}
	var content string
	if html {
		content = bible.ComposeHTML(segs, headings, notes)
	} else {
		content = bible.ComposeText(segs)
	}
	// The reference uses the chapter's title where its id is not a number
	// (PS2 "1_1" is Psalm "151").
	label := r
	label.Chapter = ChapterLabel(&book.Chapters[span.FirstChapter])
	label.EndChapter = ChapterLabel(&book.Chapters[span.LastChapter])
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(bible.Passage{ID: r.String(), Content: content, Reference: label.Label(book.Title, "")}); err != nil {
		return nil, err
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return compose.NewResource(body, publish.JSON, mod, compose.Kept), nil
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
