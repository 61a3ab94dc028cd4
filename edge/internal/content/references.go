package content

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/citation"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire/problem"
)

// Resolved is the answer of /v1/bibles/{id}/references: a citation as
// people write it, read into the Bible's passage ids.
type Resolved struct {
	Query     string   `json:"query"`
	ID        string   `json:"id"`  // the ids joined by ','
	IDs       []string `json:"ids"` // one per passage, in the citation's order
	Reference string   `json:"reference"`
}

// cite is a Bible's citation resolver with the index it checks against.
type cite struct {
	resolver *citation.Resolver
	index    *bible.Index
}

// resolver returns the Bible's citation resolver, made from its index
// and language the first time and kept with the build.
func (s *Routes) resolver(ctx context.Context, bv *site.Bible) (*cite, error) {
	return site.Make(&bv.Cite, func() (*cite, error) {
		idx, err := bv.Index(ctx, s.packs)
		if err != nil {
			return nil, fmt.Errorf("no index for bible %d: %w", bv.ID, err)
		}
		r, err := s.packs.Entry(ctx, nil, &bv.Entry.Pack, []byte(publish.NameBible))
		if err != nil {
			return nil, err
		}
		if r == nil || !r.Has(represent.CodingIdentity) {
			return nil, fmt.Errorf("bible %d: pack has no bible entry", bv.ID)
		}
		var meta bible.Bible
		if err := publish.DecodeEntry(publish.NameBible, r.Reps[represent.CodingIdentity].Body(), &meta); err != nil {
			return nil, fmt.Errorf("bible %d: %w", bv.ID, err)
		}
		books := make([]citation.Book, len(idx.Books))
		for i, b := range idx.Books {
			books[i] = citation.Book{ID: b.ID, Names: []string{b.Title, b.FullTitle, b.Abbreviation}, Chapters: len(b.Chapters)}
		}
		return &cite{resolver: citation.NewResolver(meta.LanguageTag, books, nil), index: idx}, nil
	})
}

// resolve reads a citation against bv.
func (s *Routes) resolve(ctx context.Context, bv *site.Bible, q string) (citation.Resolved, error) {
	c, err := s.resolver(ctx, bv)
	if err != nil {
		return citation.Resolved{}, err
	}
	return c.resolver.Resolve(q, citation.IndexLengths{Index: c.index})
}

// references serves /v1/bibles/{id}/references?query=…. Like the index,
// it reads ids only, so it needs no licence to the Bible.
func (s *Routes) references(ctx *fasthttp.RequestCtx, bv *site.Bible) {
	q := string(ctx.QueryArgs().Peek("query"))
	if q == "" {
		respond.Invalid(ctx, problem.Missing("query", "query"))
		return
	}
	res, err := s.resolve(ctx, bv, q)
	var bad *citation.Error
	switch {
	case errors.As(err, &bad):
		respond.Invalid(ctx, problem.CitationUnread(bad.Part, bad.Reason, "query", "query"))
		return
	case err != nil:
		respond.Fail(ctx, s.log, problem.Unavailable, "resolve citation", err)
		return
	}
	s.writeJSON(ctx, Resolved{Query: q, ID: JoinIDs(res.Passages), IDs: res.IDs(), Reference: res.Reference}, bv.Entry.Pack.Modified)
}

// meant answers a passage id that is no USFM id (JHN.3.16) but a
// reference as people write it ("John 3:16"): 404 naming the id meant,
// when the resolver reads one. ok is false when it reads none. Only an id
// with a character USFM ids never hold (a space, ':', ',', …) is read: a
// malformed USFM id ("JHN-3") stays the 422 it is.
func (s *Routes) meant(ctx *fasthttp.RequestCtx, bv *site.Bible, pid string) bool {
	if !strings.ContainsFunc(pid, notUSFM) {
		return false
	}
	res, err := s.resolve(ctx, bv, pid)
	if err != nil || len(res.Passages) == 0 {
		return false
	}
	respond.Answer(ctx, problem.NotFound, problem.MeantPassage(pid, res.Reference, JoinIDs(res.Passages)))
	return true
}

// notUSFM reports whether c is a character no USFM passage id holds.
func notUSFM(c rune) bool {
	return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_')
}
