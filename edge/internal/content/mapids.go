package content

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/wire/problem"
)

// MapFrom is the "from" of a map answer: the passage as asked, and whose
// numbering it was taken in.
type MapFrom struct {
	ID            string `json:"id"`
	Versification string `json:"versification"`
	BibleID       int32  `json:"bible_id,omitempty"`
}

// MapAnswer is the answer of /v1/bibles/{id}/map/{passage_id}: the
// passage ids of the Bible that hold the text of the passage as another
// numbering names it.
type MapAnswer struct {
	ID            string   `json:"id"`  // the ids joined by ','
	IDs           []string `json:"ids"` // one per run, in order
	Reference     string   `json:"reference"`
	Versification string   `json:"versification"` // the Bible's own
	From          MapFrom  `json:"from"`
}

// mapIDs serves /v1/bibles/{id}/map/{passage_id}. Like the index, it
// reads ids only, so it needs no licence to the Bible.
func (s *Routes) mapIDs(ctx *fasthttp.RequestCtx, st *site.Site, bv *site.Bible, pid []byte) {
	q := readQuery(ctx)
	from, set, ok := s.readFrom(ctx, st, &q)
	if !ok {
		return
	}
	if !set {
		respond.Invalid(ctx, problem.Missing("query", "from_bible_id"))
		return
	}
	r, ok := parsePassageID(ctx, pid)
	if !ok {
		return
	}
	refs, err := s.Into(ctx, nil, bv, from, r)
	if err != nil {
		respond.Fail(ctx, s.log, problem.Unavailable, "map ids", err)
		return
	}
	idx, to, err := s.numbering(ctx, bv)
	if err != nil {
		respond.Fail(ctx, s.log, problem.Unavailable, "map ids", err)
		return
	}
	a := MapAnswer{ID: JoinIDs(refs), Reference: references(idx, refs), Versification: schemeName(to),
		From: MapFrom{ID: r.String(), Versification: from.Name, BibleID: from.Bible}}
	for _, x := range refs {
		a.IDs = append(a.IDs, x.String())
	}
	s.writeJSON(ctx, a, bv.Entry.Pack.Modified)
}

// references names refs as people read them, with the Bible's book
// titles, joined by "; ".
func references(idx *bible.Index, refs []bible.Ref) string {
	labels := make([]string, 0, len(refs))
	for _, r := range refs {
		title := string(r.Book)
		if b := idx.Book(r.Book); b != nil {
			title = b.Title
		}
		labels = append(labels, r.Label(title, ""))
	}
	return strings.Join(labels, "; ")
}

// writeJSON answers v, computed from the build, as JSON with the edge's
// HTTP semantics (ETag, conditional requests, encodings), modified at mod.
func (s *Routes) writeJSON(ctx *fasthttp.RequestCtx, v any, mod time.Time) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		respond.Fail(ctx, s.log, problem.Unavailable, "encode", fmt.Errorf("encode %T: %w", v, err))
		return
	}
	compose.Serve(ctx, s.composed, "", bytes.TrimSuffix(buf.Bytes(), []byte("\n")), mod, represent.CachePublic, false)
}
