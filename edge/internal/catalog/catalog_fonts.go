package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// Catalogue handlers: fonts: collection, font, stylesheet and files.

// publicBase is the scheme and host that absolute URLs in answers start
// with: Config.PublicURL, else what the request was addressed to (a
// trusted proxy's X-Forwarded-Proto and -Host included). private is true
// in the second case: such an answer depends on the Host header, so no
// shared cache may keep it (one client's Host would reach the others); the
// edge binary therefore requires --public-url. ok is false for a Host
// header that is not a plain host[:port].
func (s *Routes) publicBase(ctx *fasthttp.RequestCtx) (base string, private, ok bool) {
	if s.publicURL != "" {
		return strings.TrimSuffix(s.publicURL, "/"), false, true
	}
	scheme := "http"
	if ctx.IsTLS() {
		scheme = "https"
	}
	host := ctx.Host()
	if s.authz.TrustedPeer(ctx) {
		if p := ctx.Request.Header.Peek(wire.HeaderForwardedProto); respond.EqualFoldASCII(p, "https") || respond.EqualFoldASCII(p, "http") {
			scheme = strings.ToLower(string(p))
		}
		if h := ctx.Request.Header.Peek(wire.HeaderForwardedHost); len(h) > 0 {
			host = h
		}
	}
	if len(host) == 0 || len(host) > 255 {
		return "", true, false
	}
	for _, b := range host {
		if !(params.Alpha(b) || '0' <= b && b <= '9' || b == '.' || b == '-' || b == ':' || b == '[' || b == ']') {
			return "", true, false
		}
	}
	return scheme + "://" + strings.ToLower(string(host)), true, true
}

type fontJSON struct {
	ID       int32         `json:"id"`
	Slug     string        `json:"slug"`
	Family   string        `json:"family"`
	Variants []variantJSON `json:"variants"`
}

type variantJSON struct {
	Weight  int          `json:"weight"`
	Style   string       `json:"style"`
	Sources []sourceJSON `json:"sources"`
}

type sourceJSON struct {
	Format string `json:"format"`
	URL    string `json:"url"`
}

func (f *fontItem) resource(base string) fontJSON {
	out := fontJSON{ID: f.id, Slug: f.slug, Family: f.family, Variants: []variantJSON{}}
	for _, v := range f.variants {
		vj := variantJSON{Weight: v.weight, Style: v.style, Sources: []sourceJSON{}}
		for _, src := range v.sources {
			vj.Sources = append(vj.Sources, sourceJSON{Format: src.format, URL: base + src.path})
		}
		out.Variants = append(out.Variants, vj)
	}
	return out
}

// answerBase is publicBase for an answer that names URLs: a Host header
// that is not a host name is answered 400 here.
func (s *Routes) answerBase(ctx *fasthttp.RequestCtx) (base string, private, ok bool) {
	if base, private, ok = s.publicBase(ctx); !ok {
		respond.Answer(ctx, problem.Unacceptable, problem.HostNotAHostName)
	}
	return base, private, ok
}

// fontWithBase is the font a path names and the base of its URLs; f is
// nil when it has answered (404, 422, or 400 for the Host header).
func (s *Routes) fontWithBase(ctx *fasthttp.RequestCtx, c *catalog, id []byte) (f *fontItem, base string, private bool) {
	if f = s.fontByPath(ctx, c, id); f == nil {
		return nil, "", false
	}
	base, private, ok := s.answerBase(ctx)
	if !ok {
		return nil, "", false
	}
	return f, base, private
}

// fontsCollection is GET /v1/fonts, by id.
func (s *Routes) fontsCollection(ctx *fasthttp.RequestCtx, c *catalog) {
	base, private, ok := s.answerBase(ctx)
	if !ok {
		return
	}
	list := make([]fontJSON, len(c.fonts))
	for i, f := range c.fonts {
		list[i] = f.resource(base)
	}
	body, err := json.Marshal(struct {
		Data []fontJSON `json:"data"`
	}{list})
	if err != nil {
		respond.Fail(ctx, s.log, problem.Internal, "encode fonts", err)
		return
	}
	serveComposed(ctx, s.composed, body, c.fontMod, private, false)
}

func (s *Routes) fontByPath(ctx *fasthttp.RequestCtx, c *catalog, id []byte) *fontItem {
	n, p := params.PathID(id)
	if p == params.IDInvalid {
		respond.Invalid(ctx, problem.NotInt32("path", "font_id"))
		return nil
	}
	f := c.fontByID[n]
	if p == params.IDNone || f == nil {
		respond.Answer(ctx, problem.NotFound, problem.FontNotFound)
	}
	return f
}

// font is GET /v1/fonts/{id}.
func (s *Routes) font(ctx *fasthttp.RequestCtx, c *catalog, id []byte) {
	f, base, private := s.fontWithBase(ctx, c, id)
	if f == nil {
		return
	}
	body, err := json.Marshal(f.resource(base))
	if err != nil {
		respond.Fail(ctx, s.log, problem.Internal, "encode font", err)
		return
	}
	serveComposed(ctx, s.composed, body, c.fontMod, private, false)
}

// fontStylesheet is GET /v1/fonts/{id}/stylesheet: one @font-face per
// variant with its woff2 file, font-display: swap so that text shows in a
// fallback font while the file loads.
func (s *Routes) fontStylesheet(ctx *fasthttp.RequestCtx, c *catalog, id []byte) {
	f, base, private := s.fontWithBase(ctx, c, id)
	if f == nil {
		return
	}
	var b strings.Builder
	for _, v := range f.variants {
		for _, src := range v.sources {
			if src.format != "woff2" {
				continue
			}
			b.WriteString("@font-face {\n")
			b.WriteString("  font-family: " + cssString(f.family) + ";\n")
			b.WriteString("  font-style: " + cssIdent(v.style) + ";\n")
			b.WriteString("  font-weight: " + strconv.Itoa(v.weight) + ";\n")
			b.WriteString("  font-display: swap;\n")
			b.WriteString("  src: url(" + cssString(base+src.path) + ") format(\"woff2\");\n")
			b.WriteString("}\n")
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	key := "catalog-css/" + hex.EncodeToString(sum[:16])
	a, hit := s.composed.Get(key)
	if !hit {
		a = compose.NewComplete([]byte(b.String()), "text/css; charset=utf-8", c.fontMod, compose.Kept)
		s.composed.Add(key, a, a.Size())
	}
	represent.Serve(ctx, a.Resource(), private)
}

// cssString quotes s as a CSS string (CSS Syntax §4.3.5 escapes).
func cssString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			b.WriteString("\\" + strconv.FormatInt(int64(r), 16) + " ")
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// cssIdent keeps a font-style keyword from the content directory safe.
func cssIdent(s string) string {
	switch s {
	case "normal", "italic", "oblique":
		return s
	}
	return "normal"
}

// fontFile serves a published font file at /v1/fonts/files/<hash>/<name>.
// The URL names the content, so the answer is immutable; a URL with an
// older hash is sent to the current one.
func (s *Routes) fontFile(ctx *fasthttp.RequestCtx, st *site.Site, rest []byte) {
	hash, name, ok := bytes.Cut(rest, []byte("/"))
	if !ok || len(name) == 0 || bytes.Contains(name, []byte("..")) {
		respond.RouteNotFound(ctx)
		return
	}
	ref, found := st.Manifest.Files[publish.FontFile("files/"+string(name))]
	if !found {
		respond.Answer(ctx, problem.NotFound, problem.FontFileNotFound)
		return
	}
	if cur := fontHash(ref); string(hash) != cur {
		ctx.Response.Header.Set("Location", fontFilesPrefix+cur+"/"+string(name))
		ctx.Response.Header.SetCanonical(respond.HdrCacheControl, represent.ValCachePublic)
		ctx.SetStatusCode(fasthttp.StatusMovedPermanently)
		return
	}
	var nb [256]byte
	entry := append(append(nb[:0], "files/"...), name...)
	s.packs.Serve(ctx, s.log, nil, &ref, entry, false, problem.FontFileNotFound)
	// A 304 carries the Cache-Control the 200 would (RFC 9110 §15.4.5), or
	// a cache that revalidates would downgrade the file to an hour.
	if st := ctx.Response.StatusCode(); st < 300 || st == fasthttp.StatusNotModified {
		ctx.Response.Header.SetCanonical(respond.HdrCacheControl, represent.ValCacheImmutable)
	}
}
