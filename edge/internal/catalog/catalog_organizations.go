package catalog

import (
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/paging"
	"github.com/bibleplatform/platform/edge/internal/params"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/wire/problem"
)

// Catalogue handlers: organizations (GET /v1/organizations…).

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
func (s *Routes) organizations(ctx *fasthttp.RequestCtx, c *catalog) {
	args := ctx.QueryArgs()
	var filter map[string]bool
	rawIDs := args.PeekMulti("bible_ids[]")
	norm := make([]string, 0, len(rawIDs))
	if len(rawIDs) > 0 {
		filter = map[string]bool{}
		for _, r := range rawIDs {
			id, ok := params.Int32(r)
			if !ok {
				respond.Invalid(ctx, problem.NotInt32("query", "bible_ids[]"))
				return
			}
			norm = append(norm, strconv.Itoa(int(id)))
			if b := c.bibleByID[id]; b != nil && b.org != "" {
				filter[b.org] = true
			}
		}
	}
	qh := paging.QueryHash("organizations", c.build, strings.Join(norm, ","))
	p, ok := paging.Parse(ctx, s.pageTokens, orgFields, qh)
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
	from, to, next := p.Window(len(list))
	var e paging.Envelope
	e.Begin()
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
		e.Item(p, len(orgFields), orgFrag(o, l))
	}
	serveComposed(ctx, s.composed, e.End(s.nextToken(next, qh), len(list), false), c.orgMod, false, true)
	if same != "" {
		ctx.Response.Header.Set("Content-Language", same)
	}
}

func (s *Routes) orgByPath(ctx *fasthttp.RequestCtx, c *catalog, id []byte) *orgItem {
	if !bible.ValidUUID(id) {
		respond.Invalid(ctx, problem.NotUUID("path", "organization_id"))
		return nil
	}
	o := c.orgByID[strings.ToLower(string(id))]
	if o == nil {
		respond.Answer(ctx, problem.NotFound, problem.OrgNotFound)
	}
	return o
}

// organization is GET /v1/organizations/{id}, in the language negotiated
// with Accept-Language, else its primary language (spec, Organization).
func (s *Routes) organization(ctx *fasthttp.RequestCtx, c *catalog, id []byte) {
	o := s.orgByPath(ctx, c, id)
	if o == nil {
		return
	}
	l := chooseLanguage(o.names, orgPrefs(ctx), o.primary)
	body := paging.AppendObject(nil, paging.Page{}, len(orgFields), orgFrag(o, l))
	serveComposed(ctx, s.composed, body, c.orgMod, false, true)
	ctx.Response.Header.Set("Content-Language", o.contentLanguage(l))
}

// organizationBibles is GET /v1/organizations/{id}/bibles: every published
// Bible of the organization, by id (metadata, which every app may read).
func (s *Routes) organizationBibles(ctx *fasthttp.RequestCtx, c *catalog, id []byte) {
	o := s.orgByPath(ctx, c, id)
	if o == nil {
		return
	}
	qh := paging.QueryHash("organization-bibles", c.build, o.id)
	p, ok := paging.Parse(ctx, s.pageTokens, bibleFields, qh)
	if !ok {
		return
	}
	list := []*bibleItem{}
	for _, b := range c.bibles {
		if b.org == o.id {
			list = append(list, b)
		}
	}
	s.serveBibles(ctx, c, list, p, qh, false, "")
}
