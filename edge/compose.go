package edge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
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
func (s *Server) composeRange(ctx *fasthttp.RequestCtx, key string, bv *bibleView, r bible.Ref, html, headings, notes, private bool) {
	if !html {
		headings, notes = false, false // passage rule 1
	}
	res, status, msg := s.compose(ctx, bv, r, html, headings, notes)
	if res == nil {
		switch status {
		case fasthttp.StatusNotFound:
			notFoundMsg(ctx, msg)
		case fasthttp.StatusBadRequest:
			badRequest(ctx, msg)
		default:
			message(ctx, status, "Content is temporarily unavailable; retry shortly.")
		}
		return
	}
	s.composed.add(key, res, res.size())
	serveResource(ctx, res, private)
}

func (s *Server) compose(ctx context.Context, bv *bibleView, r bible.Ref, html, headings, notes bool) (*resource, int, string) {
	idx, err := s.bibleIndex(ctx, bv)
	if err != nil {
		s.log.Error("compose: no index", "bible", bv.id, "err", err)
		return nil, fasthttp.StatusServiceUnavailable, ""
	}
	book := idx.Book(r.Book)
	bk := bv.books[string(r.Book)]
	if book == nil || bk == nil {
		return nil, fasthttp.StatusNotFound, "Book not found."
	}
	c1, v1 := findVerse(book, r.Chapter, r.Verse)
	c2, v2 := findVerse(book, r.EndChapter, r.EndVerse)
	if c1 < 0 || c2 < 0 {
		return nil, fasthttp.StatusNotFound, "Chapter not found."
	}
	if v1 < 0 || v2 < 0 {
		return nil, fasthttp.StatusNotFound, "Verse not found."
	}
	if c2 < c1 || c2 == c1 && v2 < v1 {
		return nil, fasthttp.StatusBadRequest, fmt.Sprintf("The passage range %s ends before it starts.", r)
	}
	n := 0
	for c := c1; c <= c2; c++ {
		from, to := 0, len(book.Chapters[c].Verses)-1
		if c == c1 {
			from = v1
		}
		if c == c2 {
			to = v2
		}
		n += to - from + 1
	}
	if n > s.cfg.MaxRangeVerses {
		return nil, fasthttp.StatusBadRequest, fmt.Sprintf(
			"The passage range %s spans %d verses; at most %d can be requested at once.", r, n, s.cfg.MaxRangeVerses)
	}

	var segs []bible.Segment
	var mod time.Time
	var cc *resource
	for c := c1; c <= c2; c++ {
		ch := &book.Chapters[c]
		ce := bk.chapters[ch.ID]
		if ce == nil {
			s.log.Error("compose: chapter in index but not in build", "bible", bv.id, "book", r.Book, "chapter", ch.ID)
			return nil, fasthttp.StatusServiceUnavailable, ""
		}
		pv, err := s.packs.get(ctx, ce.Pack)
		if err != nil {
			s.log.Error("compose: cannot load pack", "pack", ce.Pack.Key, "err", err)
			return nil, fasthttp.StatusServiceUnavailable, ""
		}
		raw, ok := pv.raw(publish.NameSegments)
		var verses [][]bible.Segment
		if ok {
			err = json.Unmarshal(raw, &verses)
		}
		if !ok || err != nil || len(verses) != len(ch.Verses) {
			s.log.Error("compose: bad segments", "pack", ce.Pack.Key, "found", ok, "err", err,
				"verses", len(ch.Verses), "segments", len(verses))
			return nil, fasthttp.StatusServiceUnavailable, ""
		}
		from, to := 0, len(verses)-1
		if c == c1 {
			from = v1
		}
		if c == c2 {
			to = v2
		}
		for _, v := range verses[from : to+1] {
			segs = append(segs, v...)
		}
		if ce.Pack.Modified.After(mod) {
			mod = ce.Pack.Modified
		}
		if cc == nil {
			cc = pv.res[publish.PassageName("", publish.Variant(html, headings, notes))]
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
	label.Chapter = chapterLabel(&book.Chapters[c1])
	label.EndChapter = chapterLabel(&book.Chapters[c2])
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(bible.Passage{ID: r.String(), Content: content, Reference: label.Label(book.Title, "")}); err != nil {
		s.log.Error("compose: encode", "err", err)
		return nil, fasthttp.StatusInternalServerError, ""
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	ccv := ""
	if cc != nil {
		ccv = string(cc.ccPublic)
	}
	return newComposedResource(body, ccv, mod, composeCodecs), 0, ""
}

func findVerse(b *bible.Book, chapter, verse string) (int, int) {
	for i := range b.Chapters {
		if b.Chapters[i].ID == chapter {
			return i, b.Chapters[i].VerseIndex(verse)
		}
	}
	return -1, -1
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
// per coding in the build's form.
func newComposedResource(body []byte, cc string, mod time.Time, c *codecs) *resource {
	pub, priv := cacheControls(cc)
	r := &resource{ctype: []byte(publish.JSON), ccPublic: []byte(pub), ccPrivate: []byte(priv)}
	r.setModified(mod)
	sum := sha256.Sum256(body)
	tag := hex.EncodeToString(sum[:12])
	set := func(k int, etag string, b []byte) {
		r.reps[k] = rep{etag: etag, etagB: []byte(etag), body: b}
		r.avail |= 1 << k
	}
	// The cache keeps these bodies for as long as the range is asked for:
	// copies of exactly their length, so the spare capacity of the
	// growing buffers goes with them.
	set(codingIdentity, `"`+tag+`"`, bytes.Clone(body))
	if b := c.brotli(body); len(b) < len(body) {
		set(codingBr, `"`+tag+`-br"`, b)
	}
	if b := c.gzip(body); len(b) < len(body) {
		set(codingGzip, `"`+tag+`-gz"`, b)
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
