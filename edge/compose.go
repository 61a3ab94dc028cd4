package edge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
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
func (s *bibleRoutes) composeRange(ctx *fasthttp.RequestCtx, key string, bv *bibleView, r bible.Ref, html, headings, notes, private bool) {
	if !html {
		headings, notes = false, false // passage rule 1
	}
	res, err := s.compose(ctx, bv, r, html, headings, notes)
	if err != nil {
		respond.Fail(ctx, s.log, problem.Unavailable, "compose", err)
		return
	}
	s.composed.add(key, res, res.Size())
	represent.Serve(ctx, res, private)
}

// compose puts a range together. Its error is a *problem.Problem for the client,
// or an internal error (the caller logs it and answers 503).
func (s *bibleRoutes) compose(ctx context.Context, bv *bibleView, r bible.Ref, html, headings, notes bool) (*represent.Resource, error) {
	idx, err := s.bibleIndex(ctx, bv)
	if err != nil {
		return nil, fmt.Errorf("no index for bible %d: %w", bv.id, err)
	}
	book := idx.Book(r.Book)
	bk := bv.books[string(r.Book)]
	if book == nil || bk == nil {
		return nil, problem.New(problem.NotFound, problem.BookNotFound(r.Book))
	}
	span, err := book.Span(r)
	if p, ok := problem.Passage(err); ok {
		return nil, p
	} else if err != nil {
		return nil, fmt.Errorf("locate %s in bible %d: %w", r, bv.id, err)
	}
	if n := span.Len(); n > s.maxRangeVerses {
		return nil, problem.New(problem.Unacceptable, problem.RangeTooLong(r, n, s.maxRangeVerses))
	}

	var segs []bible.Segment
	var mod time.Time
	for c := span.FirstChapter; c <= span.LastChapter; c++ {
		ch := &book.Chapters[c]
		ce := bv.chapter(r.Book, ch.ID)
		if ce == nil {
			return nil, fmt.Errorf("bible %d: chapter %s.%s in the index but not in the build", bv.id, r.Book, ch.ID)
		}
		pv, err := s.packs.get(ctx, ce.Pack)
		if err != nil {
			return nil, err
		}
		var verses [][]bible.Segment
		if err := pv.pack.Decode(publish.NameSegments, &verses); err != nil || len(verses) != len(ch.Verses) {
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
	label.Chapter = chapterLabel(&book.Chapters[span.FirstChapter])
	label.EndChapter = chapterLabel(&book.Chapters[span.LastChapter])
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(bible.Passage{ID: r.String(), Content: content, Reference: label.Label(book.Title, "")}); err != nil {
		return nil, err
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return newComposedResource(body, publish.JSON, mod, composeCodecs), nil
}

func chapterLabel(c *bible.Chapter) string {
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

// codecs compress composed bodies at one pair of levels. The writers are
// pooled: a brotli writer allocates about 2 MB of hash tables and ring
// buffer, which cost more than compressing a short range or a search
// answer; a sync.Pool lets the garbage collector take idle ones back, so a
// quiet edge does not keep them.
type codecs struct{ br, gz sync.Pool }

func newCodecs(brLevel, gzLevel int) *codecs {
	c := &codecs{}
	c.br.New = func() any { return brotli.NewWriterLevel(nil, brLevel) }
	c.gz.New = func() any {
		w, _ := gzip.NewWriterLevel(nil, gzLevel) // the levels below are valid
		return w
	}
	return c
}

var (
	// Composed ranges and catalogue answers are kept long and asked for
	// again: brotli 5 compresses about as well as gzip 9 at a fraction of
	// brotli 9's cost.
	composeCodecs = newCodecs(5, 6)
	// Search answers are computed for every query not in the answer cache
	// and are about a kilobyte, where higher levels gain a few bytes for
	// several times the CPU.
	answerCodecs = newCodecs(2, 4)
)

// newComposedResource prepares a composed body like the build prepares a
// published one: identity plus each coding that is smaller, a strong ETag
// per coding in the build's form, served as ctype.
func newComposedResource(body []byte, ctype string, mod time.Time, c *codecs) *represent.Resource {
	r := new(represent.Resource)
	h := represent.SharedHead(ctype, mod)
	sum := sha256.Sum256(body)
	set := func(k int, b []byte) {
		r.Reps[k].Set(b, publish.ETag(&sum, represent.CodingNames[k]), h)
	}
	// The cache keeps these bodies for as long as the range is asked for:
	// copies of exactly their length, so the spare capacity of the
	// growing buffers goes with them.
	set(represent.CodingIdentity, bytes.Clone(body))
	if b := c.brotli(body); len(b) < len(body) {
		set(represent.CodingBrotli, b)
	}
	if b := c.gzip(body); len(b) < len(body) {
		set(represent.CodingGzip, b)
	}
	return r
}

// brotli and gzip compress body and return a copy of exactly the
// compressed length, so a cached answer holds only its bytes.
func (c *codecs) brotli(body []byte) []byte {
	var buf bytes.Buffer
	w := c.br.Get().(*brotli.Writer)
	w.Reset(&buf)
	w.Write(body) // a bytes.Buffer does not fail
	w.Close()
	w.Reset(nil)
	c.br.Put(w)
	return bytes.Clone(buf.Bytes())
}

func (c *codecs) gzip(body []byte) []byte {
	var buf bytes.Buffer
	w := c.gz.Get().(*gzip.Writer)
	w.Reset(&buf)
	w.Write(body)
	w.Close()
	w.Reset(nil)
	c.gz.Put(w)
	return bytes.Clone(buf.Bytes())
}

// variantFlags is the inverse of publish.Variant.
func variantFlags(variant string) (html, headings, notes bool) {
	switch variant {
	case "html":
		return true, false, false
	case "html-h":
		return true, true, false
	case "html-n":
		return true, false, true
	case "html-hn":
		return true, true, true
	}
	return false, false, false
}
