package edge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/publish"
)

// Catalogue paths (docs/catalogue.md).
var (
	pathBibles        = []byte("/v1/bibles")
	pathLanguages     = []byte("/v1/languages")
	pathOrganizations = []byte("/v1/organizations")
	pathFonts         = []byte("/v1/fonts")
	pathVOTD          = []byte("/v1/verse_of_the_days")
)

type catRoute uint8

const (
	catNone catRoute = iota
	catBibles
	catLanguages
	catLanguage
	catOrganizations
	catOrganization
	catOrganizationBibles
	catFonts
	catFont
	catFontStylesheet
	catFontFile
	catVOTDs
	catVOTD
)

// parseCatalogPath recognises a catalogue path and returns its route and
// its one parameter (a language, organization, font id or day; the file
// path for font files). ok is false for a path that is not the
// catalogue's; a catalogue prefix with an unknown shape is catNone with ok.
func parseCatalogPath(p []byte) (r catRoute, param []byte, ok bool) {
	sub := func(prefix []byte) ([]byte, bool) {
		if len(p) > len(prefix) && bytes.HasPrefix(p, prefix) && p[len(prefix)] == '/' {
			return p[len(prefix)+1:], true
		}
		return nil, false
	}
	switch {
	case bytes.Equal(p, pathBibles):
		return catBibles, nil, true
	case bytes.Equal(p, pathLanguages):
		return catLanguages, nil, true
	case bytes.Equal(p, pathOrganizations):
		return catOrganizations, nil, true
	case bytes.Equal(p, pathFonts):
		return catFonts, nil, true
	case bytes.Equal(p, pathVOTD):
		return catVOTDs, nil, true
	}
	if rest, ok := sub(pathLanguages); ok {
		if len(rest) == 0 || bytes.IndexByte(rest, '/') >= 0 {
			return catNone, nil, true
		}
		return catLanguage, rest, true
	}
	if rest, ok := sub(pathOrganizations); ok {
		id, tail, _ := bytes.Cut(rest, []byte("/"))
		switch {
		case len(id) == 0:
			return catNone, nil, true
		case tail == nil && bytes.IndexByte(rest, '/') < 0:
			return catOrganization, id, true
		case string(tail) == "bibles":
			return catOrganizationBibles, id, true
		}
		return catNone, nil, true
	}
	if bytes.HasPrefix(p, []byte(fontFilesPrefix)) {
		return catFontFile, p[len(fontFilesPrefix):], true
	}
	if rest, ok := sub(pathFonts); ok {
		id, tail, _ := bytes.Cut(rest, []byte("/"))
		switch {
		case len(id) == 0:
			return catNone, nil, true
		case bytes.IndexByte(rest, '/') < 0:
			return catFont, id, true
		case string(tail) == "stylesheet":
			return catFontStylesheet, id, true
		}
		return catNone, nil, true
	}
	if rest, ok := sub(pathVOTD); ok {
		if len(rest) == 0 || bytes.IndexByte(rest, '/') >= 0 {
			return catNone, nil, true
		}
		return catVOTD, rest, true
	}
	return catNone, nil, false
}

// catalogue serves the catalogue routes; it reports false when path is not
// one of them. Checks run in the edge's order (docs/edge.md): shape, method,
// App Key, status and rate limit, values.
func (s *Server) catalogue(ctx *fasthttp.RequestCtx, path []byte) bool {
	r, param, ok := parseCatalogPath(path)
	if !ok {
		return false
	}
	if r == catNone {
		notFound(ctx)
		return true
	}
	if !ctx.IsGet() && !ctx.IsHead() {
		methodNotAllowed(ctx, "GET, HEAD")
		return true
	}
	t := s.access.Load()
	st := s.site.Load()
	if t == nil || st == nil {
		message(ctx, fasthttp.StatusServiceUnavailable, "This edge is starting and has no content yet.")
		return true
	}
	if r == catFontFile {
		// Browsers fetch font files from a stylesheet's url(), which
		// cannot carry a header: the files are public (docs/catalogue.md).
		s.fontFile(ctx, st, param)
		return true
	}
	key := ctx.Request.Header.Peek(hdrAppKey)
	if r == catFontStylesheet && len(key) == 0 {
		// The spec's one query-parameter key (Authentication 4): a page
		// links the stylesheet with <link href>, which sends no header.
		key = ctx.QueryArgs().Peek("app_key")
	}
	app := s.authorize(ctx, key, t)
	if app == nil {
		return true
	}
	c, err := s.catalogOf(ctx, st)
	if err != nil {
		s.log.Error("cannot build the catalogues", "build", st.build, "err", err)
		message(ctx, fasthttp.StatusServiceUnavailable, "The catalogue is temporarily unavailable; retry shortly.")
		return true
	}
	switch r {
	case catBibles:
		s.biblesCollection(ctx, c, t, app)
	case catLanguages:
		s.languages(ctx, c)
	case catLanguage:
		s.language(ctx, c, param)
	case catOrganizations:
		s.organizations(ctx, c)
	case catOrganization:
		s.organization(ctx, c, param)
	case catOrganizationBibles:
		s.organizationBibles(ctx, c, param)
	case catFonts:
		s.fontsCollection(ctx, c)
	case catFont:
		s.font(ctx, c, param)
	case catFontStylesheet:
		s.fontStylesheet(ctx, c, param)
	case catVOTDs:
		s.votdCalendar(ctx, c)
	case catVOTD:
		s.votd(ctx, c, param)
	}
	return true
}

// serveComposed serves a body composed from the catalogue with the edge's
// HTTP semantics. Encoded forms are cached by the hash of the body, so the
// same answer is compressed once however it was asked for.
func (s *Server) serveComposed(ctx *fasthttp.RequestCtx, body []byte, mod time.Time, private, byLanguage bool) {
	s.serveComposedAs(ctx, "", body, mod, private, byLanguage)
}

// serveComposedAs is serveComposed that also remembers the answer under a
// request key (see requestKey), for answers that cost more to compose than
// to look up.
func (s *Server) serveComposedAs(ctx *fasthttp.RequestCtx, reqKey string, body []byte, mod time.Time, private, byLanguage bool) {
	sum := sha256.Sum256(body)
	key := "catalog/" + hex.EncodeToString(sum[:16])
	res, ok := s.composed.get(key)
	if !ok {
		res = newCatalogResource(bytes.Clone(body), catalogCache, mod)
		s.composed.add(key, res, res.size())
	}
	if reqKey != "" {
		// The resource is shared with the content key: count only the
		// entry itself.
		s.composed.add(reqKey, res, int64(len(reqKey))+64)
	}
	serveResource(ctx, res, private)
	if byLanguage {
		ctx.Response.Header.SetCanonical(hdrVary, valVaryLanguage)
	}
}

// requestKey names a successful answer by everything it depends on: the
// build, the path and query as sent, and the negotiated locales. Only
// answers that were served are stored under it, so a hit needs no
// validation: the same request was valid before.
func requestKey(ctx *fasthttp.RequestCtx, c *catalog, prefs lang.Preferences) string {
	return "catalog-req/" + c.build + "/" + string(ctx.Path()) + "?" + string(ctx.URI().QueryString()) +
		"\x00" + strings.Join(prefs.Locales(), ",")
}

// serveRemembered serves an answer stored under a request key.
func (s *Server) serveRemembered(ctx *fasthttp.RequestCtx, reqKey string, byLanguage bool) bool {
	res, ok := s.composed.get(reqKey)
	if !ok {
		return false
	}
	serveResource(ctx, res, false)
	if byLanguage {
		ctx.Response.Header.SetCanonical(hdrVary, valVaryLanguage)
	}
	return true
}

var valVaryLanguage = []byte("Accept-Encoding, Accept-Language")

// noContent is the spec's 204: nothing matches, no body.
func noContent(ctx *fasthttp.RequestCtx, private bool) {
	cc, priv := cacheControls(catalogCache)
	if private {
		cc = priv
	}
	ctx.Response.Header.Set("Cache-Control", cc)
	ctx.SetStatusCode(fasthttp.StatusNoContent)
	ctx.Response.ResetBody()
}

// --- Bibles ---

// biblesCollection is GET /v1/bibles (spec, Bibles): the Bibles in the
// first language range that has any, by id.
func (s *Server) biblesCollection(ctx *fasthttp.RequestCtx, c *catalog, t *accessTable, app *appEntry) {
	args := ctx.QueryArgs()
	rawRanges := args.PeekMulti("language_ranges[]")
	if len(rawRanges) == 0 {
		invalid(ctx, "query", "language_ranges[]", "Field required", "missing")
		return
	}
	ranges := make([]string, len(rawRanges))
	for i, r := range rawRanges {
		if !lang.ValidRange(string(r)) {
			badRequest(ctx, "The language range "+strconv.Quote(string(r))+" may hold only letters, digits, hyphens and *.")
			return
		}
		ranges[i] = string(r)
	}
	all, _, ok := parseBool(args.Peek("all_available"))
	if !ok || args.Has("all_available") && len(args.Peek("all_available")) == 0 {
		invalid(ctx, "query", "all_available", "Input should be a valid boolean", "bool_parsing")
		return
	}
	licence, hasLicence := int32(0), args.Has("license_id")
	if hasLicence {
		if licence, ok = parseInt32(args.Peek("license_id")); !ok {
			invalid(ctx, "query", "license_id", "Input should be a valid 32-bit integer", "int_parsing")
			return
		}
	}
	// Without all_available the list depends on the app's licences, so it
	// is private to the app and its tokens are bound to it.
	who := ""
	if !all {
		who = app.id
	}
	qh := queryHash("bibles", c.build, strings.Join(ranges, "\x00"), strconv.FormatBool(all),
		strconv.FormatBool(hasLicence), strconv.Itoa(int(licence)), who)
	p, ok := s.parsePage(ctx, bibleFields, qh)
	if !ok {
		return
	}
	var match []*bibleItem
	for _, r := range ranges {
		for _, b := range c.bibles {
			if !all && !t.licensed(app, b.id) {
				continue
			}
			if hasLicence && b.licenseID != int(licence) {
				continue
			}
			if lang.MatchRange(r, b.tag) {
				match = append(match, b)
			}
		}
		if len(match) > 0 {
			break // the first range that has Bibles answers
		}
	}
	if len(match) == 0 {
		noContent(ctx, !all)
		return
	}
	s.serveBibles(ctx, c, match, p, qh, !all)
}

func (s *Server) serveBibles(ctx *fasthttp.RequestCtx, c *catalog, list []*bibleItem, p page, qh [8]byte, private bool) {
	from, to, next := p.window(len(list))
	var e envelope
	e.begin()
	var mod time.Time
	for _, b := range list[from:to] {
		e.item(p, len(bibleFields), func(i int) []byte { return b.frags[i] })
		if b.mod.After(mod) {
			mod = b.mod
		}
	}
	s.serveComposed(ctx, e.end(s.nextToken(next, qh), len(list), true), mod, private, false)
}

func (s *Server) nextToken(next int, qh [8]byte) string {
	if next < 0 {
		return ""
	}
	return s.tokens().issue(next, qh)
}

// --- Languages ---

// languages is GET /v1/languages: by id in byte order, or with country in
// the order of speakers in that country.
func (s *Server) languages(ctx *fasthttp.RequestCtx, c *catalog) {
	prefs := lang.ParsePreferences(string(ctx.Request.Header.Peek("Accept-Language")))
	reqKey := requestKey(ctx, c, prefs)
	if s.serveRemembered(ctx, reqKey, true) {
		ctx.Response.Header.Set("Content-Language", prefs.Locale())
		return
	}
	args := ctx.QueryArgs()
	country := ""
	if args.Has("country") {
		cc := args.Peek("country")
		if len(cc) != 2 || !isAlpha(cc[0]) || !isAlpha(cc[1]) {
			invalid(ctx, "query", "country", "Input should be an ISO 3166 two-letter country code", "string_pattern_mismatch")
			return
		}
		country = strings.ToUpper(string(cc))
	}
	avail, _, ok := parseBool(args.Peek("bibles_available"))
	if !ok || args.Has("bibles_available") && len(args.Peek("bibles_available")) == 0 {
		invalid(ctx, "query", "bibles_available", "Input should be a valid boolean", "bool_parsing")
		return
	}
	qh := queryHash("languages", c.build, country, strconv.FormatBool(avail))
	p, ok := s.parsePage(ctx, languageFields, qh)
	if !ok {
		return
	}
	list := c.languages
	if country != "" {
		list = nil
		for _, id := range lang.Prominent(country) {
			if it := c.langByID[id]; it != nil {
				list = append(list, it)
			}
		}
	}
	if avail {
		var keep []*langItem
		for _, it := range list {
			if it.bible != 0 {
				keep = append(keep, it)
			}
		}
		list = keep
	}
	from, to, next := p.window(len(list))
	var e envelope
	e.begin()
	for _, it := range list[from:to] {
		e.item(p, len(languageFields), langFrag(it, prefs))
	}
	ctx.Response.Header.Set("Content-Language", prefs.Locale())
	s.serveComposedAs(ctx, reqKey, e.end(s.nextToken(next, qh), len(list), true), c.mod, false, true)
}

// langFrag gives a language's fields, the request-dependent ones included.
func langFrag(it *langItem, prefs lang.Preferences) func(i int) []byte {
	return func(i int) []byte {
		switch i {
		case langFieldDisplayNames:
			return it.displayNames()
		case langFieldLocalizedName:
			if n := lang.LocalizedName(it.lang, prefs); n != "" {
				return fieldFragOf("localized_name", n)
			}
			return []byte(`"localized_name":null`)
		}
		return it.frags[i]
	}
}

// language is GET /v1/languages/{id}: a non-canonical id redirects (301)
// to the canonical one (spec, Languages).
func (s *Server) language(ctx *fasthttp.RequestCtx, c *catalog, id []byte) {
	canon, err := lang.Canonical(string(id))
	if err != nil {
		notFoundMsg(ctx, "Language not found.")
		return
	}
	if canon != string(id) {
		loc := "/v1/languages/" + canon
		if q := ctx.URI().QueryString(); len(q) > 0 {
			loc += "?" + string(q)
		}
		ctx.Response.Header.Set("Location", loc)
		ctx.Response.Header.Set("Cache-Control", catalogCache)
		ctx.SetContentType(jsonType)
		ctx.SetStatusCode(fasthttp.StatusMovedPermanently)
		b, _ := json.Marshal(struct {
			Message string `json:"message"`
		}{"The canonical id of this language is " + canon + "."})
		ctx.SetBody(b)
		return
	}
	it := c.langByID[canon]
	if it == nil {
		notFoundMsg(ctx, "Language not found.")
		return
	}
	prefs := lang.ParsePreferences(string(ctx.Request.Header.Peek("Accept-Language")))
	ctx.Response.Header.Set("Content-Language", prefs.Locale())
	reqKey := requestKey(ctx, c, prefs)
	if s.serveRemembered(ctx, reqKey, true) {
		return
	}
	body := appendObject(nil, page{}, len(languageFields), langFrag(it, prefs))
	s.serveComposedAs(ctx, reqKey, body, c.mod, false, true)
}

const jsonType = "application/json; charset=utf-8"

func isAlpha(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// --- Organizations ---

// orgPrefs is the request's Accept-Language priority list, English when it
// names none (spec, Organizations: "header Accept-Language (default en)"),
// so that without the header an organization with an English name answers
// in English rather than in its primary language.
func orgPrefs(ctx *fasthttp.RequestCtx) []string {
	prefs := lang.ParsePreferences(string(ctx.Request.Header.Peek("Accept-Language"))).Locales()
	if len(prefs) == 0 {
		return []string{"en"}
	}
	return prefs
}

// contentLanguage is the Content-Language of the organization shown in
// language l: its name's language, and its description's too when that
// one fell back to another (RFC 9110 §8.5 allows a list), so that the
// header never claims one language for text in two.
func (o *orgItem) contentLanguage(l string) string {
	if len(o.descriptions) == 0 {
		return l
	}
	if d := chooseLanguage(o.descriptions, []string{l}, o.primary); d != l {
		return l + ", " + d
	}
	return l
}

// orgFrag gives an organization's fields in language l.
func orgFrag(o *orgItem, l string) func(i int) []byte {
	return func(i int) []byte {
		switch i {
		case orgFieldName:
			name, _, _ := o.text(l)
			return fieldFragOf("name", name)
		case orgFieldDescription:
			_, desc, ok := o.text(l)
			if !ok {
				return nil
			}
			return fieldFragOf("description", desc)
		}
		return o.frags[i]
	}
}

// organizations is GET /v1/organizations, by id.
func (s *Server) organizations(ctx *fasthttp.RequestCtx, c *catalog) {
	args := ctx.QueryArgs()
	var filter map[string]bool
	rawIDs := args.PeekMulti("bible_ids[]")
	norm := make([]string, 0, len(rawIDs))
	if len(rawIDs) > 0 {
		filter = map[string]bool{}
		for _, r := range rawIDs {
			id, ok := parseInt32(r)
			if !ok {
				invalid(ctx, "query", "bible_ids[]", "Input should be a valid 32-bit integer", "int_parsing")
				return
			}
			norm = append(norm, strconv.Itoa(int(id)))
			if b := c.bibleByID[id]; b != nil && b.org != "" {
				filter[b.org] = true
			}
		}
	}
	qh := queryHash("organizations", c.build, strings.Join(norm, ","))
	p, ok := s.parsePage(ctx, orgFields, qh)
	if !ok {
		return
	}
	list := c.orgs
	if filter != nil {
		list = nil
		for _, o := range c.orgs {
			if filter[o.id] {
				list = append(list, o)
			}
		}
	}
	prefs := orgPrefs(ctx)
	from, to, next := p.window(len(list))
	var e envelope
	e.begin()
	// The list names a Content-Language only when every organization on
	// the page is shown in the same languages.
	same := ""
	for i, o := range list[from:to] {
		l := chooseLanguage(o.names, prefs, o.primary)
		if cl := o.contentLanguage(l); i == 0 {
			same = cl
		} else if cl != same {
			same = ""
		}
		e.item(p, len(orgFields), orgFrag(o, l))
	}
	if same != "" {
		ctx.Response.Header.Set("Content-Language", same)
	}
	s.serveComposed(ctx, e.end(s.nextToken(next, qh), len(list), false), c.orgMod, false, true)
}

func (s *Server) orgByPath(ctx *fasthttp.RequestCtx, c *catalog, id []byte) *orgItem {
	if !bible.ValidUUID(id) {
		invalid(ctx, "path", "organization_id", "Input should be a valid UUID", "uuid_parsing")
		return nil
	}
	o := c.orgByID[strings.ToLower(string(id))]
	if o == nil {
		notFoundMsg(ctx, "Organization not found.")
	}
	return o
}

// organization is GET /v1/organizations/{id}, in the language negotiated
// with Accept-Language, else its primary language (spec, Organization).
func (s *Server) organization(ctx *fasthttp.RequestCtx, c *catalog, id []byte) {
	o := s.orgByPath(ctx, c, id)
	if o == nil {
		return
	}
	l := chooseLanguage(o.names, orgPrefs(ctx), o.primary)
	body := appendObject(nil, page{}, len(orgFields), orgFrag(o, l))
	ctx.Response.Header.Set("Content-Language", o.contentLanguage(l))
	s.serveComposed(ctx, body, c.orgMod, false, true)
}

// organizationBibles is GET /v1/organizations/{id}/bibles: every published
// Bible of the organization, by id (metadata, which every app may read).
func (s *Server) organizationBibles(ctx *fasthttp.RequestCtx, c *catalog, id []byte) {
	o := s.orgByPath(ctx, c, id)
	if o == nil {
		return
	}
	qh := queryHash("organization-bibles", c.build, o.id)
	p, ok := s.parsePage(ctx, bibleFields, qh)
	if !ok {
		return
	}
	list := []*bibleItem{}
	for _, b := range c.bibles {
		if b.org == o.id {
			list = append(list, b)
		}
	}
	s.serveBibles(ctx, c, list, p, qh, false)
}

// --- Fonts ---

// publicBase is the scheme and host that absolute URLs in answers start
// with: Config.PublicURL, else what the request was addressed to (a
// trusted proxy's X-Forwarded-Proto and -Host included). private is true
// in the second case: such an answer depends on the Host header, so no
// shared cache may keep it (one client's Host would reach the others); the
// edge binary therefore requires --public-url. ok is false for a Host
// header that is not a plain host[:port].
func (s *Server) publicBase(ctx *fasthttp.RequestCtx) (base string, private, ok bool) {
	if s.cfg.PublicURL != "" {
		return strings.TrimSuffix(s.cfg.PublicURL, "/"), false, true
	}
	scheme := "http"
	if ctx.IsTLS() {
		scheme = "https"
	}
	host := ctx.Host()
	if s.trustedPeer(ctx) {
		if p := ctx.Request.Header.Peek("X-Forwarded-Proto"); equalFoldASCII(p, "https") || equalFoldASCII(p, "http") {
			scheme = strings.ToLower(string(p))
		}
		if h := ctx.Request.Header.Peek("X-Forwarded-Host"); len(h) > 0 {
			host = h
		}
	}
	if len(host) == 0 || len(host) > 255 {
		return "", true, false
	}
	for _, b := range host {
		if !(isAlpha(b) || '0' <= b && b <= '9' || b == '.' || b == '-' || b == ':' || b == '[' || b == ']') {
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

// fontsCollection is GET /v1/fonts, by id.
func (s *Server) fontsCollection(ctx *fasthttp.RequestCtx, c *catalog) {
	base, private, ok := s.publicBase(ctx)
	if !ok {
		badRequest(ctx, "The Host header is not a host name.")
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
		s.log.Error("encode fonts", "err", err)
		message(ctx, fasthttp.StatusInternalServerError, "Internal error.")
		return
	}
	s.serveComposed(ctx, body, c.fontMod, private, false)
}

func (s *Server) fontByPath(ctx *fasthttp.RequestCtx, c *catalog, id []byte) *fontItem {
	n, p := parsePathID(id)
	if p == idInvalid {
		invalid(ctx, "path", "font_id", "Input should be a valid 32-bit integer", "int_parsing")
		return nil
	}
	f := c.fontByID[n]
	if p == idNone || f == nil {
		notFoundMsg(ctx, "Font not found.")
	}
	return f
}

// font is GET /v1/fonts/{id}.
func (s *Server) font(ctx *fasthttp.RequestCtx, c *catalog, id []byte) {
	f := s.fontByPath(ctx, c, id)
	if f == nil {
		return
	}
	base, private, ok := s.publicBase(ctx)
	if !ok {
		badRequest(ctx, "The Host header is not a host name.")
		return
	}
	body, err := json.Marshal(f.resource(base))
	if err != nil {
		s.log.Error("encode font", "font", f.id, "err", err)
		message(ctx, fasthttp.StatusInternalServerError, "Internal error.")
		return
	}
	s.serveComposed(ctx, body, c.fontMod, private, false)
}

// fontStylesheet is GET /v1/fonts/{id}/stylesheet: one @font-face per
// variant with its woff2 file, font-display: swap so that text shows in a
// fallback font while the file loads.
func (s *Server) fontStylesheet(ctx *fasthttp.RequestCtx, c *catalog, id []byte) {
	f := s.fontByPath(ctx, c, id)
	if f == nil {
		return
	}
	base, private, ok := s.publicBase(ctx)
	if !ok {
		badRequest(ctx, "The Host header is not a host name.")
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
	res, hit := s.composed.get(key)
	if !hit {
		res = newCatalogResource([]byte(b.String()), catalogCache, c.fontMod)
		res.ctype = []byte("text/css; charset=utf-8")
		s.composed.add(key, res, res.size())
	}
	serveResource(ctx, res, private)
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
func (s *Server) fontFile(ctx *fasthttp.RequestCtx, st *site, rest []byte) {
	hash, name, ok := bytes.Cut(rest, []byte("/"))
	if !ok || len(name) == 0 || bytes.Contains(name, []byte("..")) {
		notFound(ctx)
		return
	}
	ref, found := st.manifest.Files["fonts/files/"+string(name)]
	if !found {
		notFoundMsg(ctx, "Font file not found.")
		return
	}
	if cur := fontHash(ref); string(hash) != cur {
		ctx.Response.Header.Set("Location", fontFilesPrefix+cur+"/"+string(name))
		ctx.Response.Header.Set("Cache-Control", catalogCache)
		ctx.SetStatusCode(fasthttp.StatusMovedPermanently)
		return
	}
	var nb [256]byte
	entry := append(append(nb[:0], "files/"...), name...)
	s.serveEntry(ctx, ref, entry, false, "Font file not found.")
	// A 304 carries the Cache-Control the 200 would (RFC 9110 §15.4.5), or
	// a cache that revalidates would downgrade the file to an hour.
	if st := ctx.Response.StatusCode(); st < 300 || st == fasthttp.StatusNotModified {
		ctx.Response.Header.SetCanonical(hdrCacheControl, valImmutable)
	}
}

var valImmutable = []byte("public, max-age=31536000, immutable")

// --- Verse of the day ---

// votdCalendar is GET /v1/verse_of_the_days: the site pack's own entry,
// served as published.
func (s *Server) votdCalendar(ctx *fasthttp.RequestCtx, c *catalog) {
	if c.site == nil {
		s.serveComposed(ctx, []byte(`{"data":[]}`), c.mod, false, false)
		return
	}
	var nb [64]byte
	s.serveEntry(ctx, *c.site, append(nb[:0], publish.NameVerseOfDays...), false, "No verse-of-the-day calendar is published.")
}

// votd is GET /v1/verse_of_the_days/{day}, day 1..366 in canonical form
// (404 outside it, for a day the calendar leaves out, or for "+1" and
// "001"; 422 for a day that is not a number).
func (s *Server) votd(ctx *fasthttp.RequestCtx, c *catalog, day []byte) {
	n, p := parsePathID(day)
	if p == idInvalid {
		invalid(ctx, "path", "day", "Input should be a valid integer", "int_parsing")
		return
	}
	if p == idNone {
		notFoundMsg(ctx, "No such day: days are 1 to 366, written without sign or leading zero.")
		return
	}
	res := c.votdDay[int(n)]
	if res == nil {
		notFoundMsg(ctx, "No verse of the day for day "+strconv.Itoa(int(n))+"; days are 1 to 366.")
		return
	}
	serveResource(ctx, res, false)
}
