package content

import (
	"bytes"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/authz"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/wire/problem"
)

// MaxListPieces bounds the passages of a list id (JHN.3.16,JHN.3.18-20):
// each is at least a verse, and a passage holds at most
// DefaultMaxRangeVerses.
const MaxListPieces = DefaultMaxRangeVerses

// list serves a passage id that is a list of passage ids joined by ','
// (each a verse, a chapter or a range): one passage whose content keeps
// the pieces apart, at most maxRangeVerses verses in all. It answers
// false, having written nothing, when a piece is no passage id, so that
// the caller reads the whole as a citation or refuses it. key is the
// composed-cache key of the id as sent ("" with from).
func (s *Routes) list(ctx *fasthttp.RequestCtx, rd authz.Reading, st *site.Site, bv *site.Bible,
	from From, mapped bool, pid, key []byte, v variant, private bool) bool {
	n := bytes.Count(pid, []byte{','}) + 1
	if n > MaxListPieces {
		respond.Invalid(ctx, problem.ListTooLong(MaxListPieces, "path", "passage_id_path"))
		return true
	}
	refs := make([]bible.Ref, 0, n)
	for part := range bytes.SplitSeq(pid, []byte{','}) {
		r, err := bible.ParseRef(string(part))
		if err != nil {
			return false
		}
		if r.Kind() == bible.KindIntro {
			respond.Invalid(ctx, problem.NoIntroHere("path", "passage_id_path"))
			return true
		}
		refs = append(refs, r)
	}
	if !rd.Licensed {
		respond.NotLicensed(ctx, bv.ID)
		return true
	}
	html, headings, notes := v.resolve(false)
	if mapped {
		var out []bible.Ref
		for _, r := range refs {
			var err error
			if out, err = s.Into(ctx, out, bv, from, r); err != nil {
				respond.Fail(ctx, s.log, problem.Unavailable, "map passage", err)
				return true
			}
		}
		s.composeKept(ctx, st, bv, out, html, headings, notes, private)
		return true
	}
	s.composed.Missed()
	s.composeRange(ctx, string(key), bv, refs, html, headings, notes, private)
	return true
}
