package dynamic

// The portal's licences: every licence with its Bibles, and an owner's
// agreement for the organization, given or withdrawn (docs/portal.md).

import (
	"html/template"
	"net/http"
	"net/url"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/dynamic/portal"
	"github.com/bibleplatform/platform/templates"
)

func (s *portalRoutes) getPortalLicenses(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devLicenses+"?org="+url.QueryEscape(param(ctx, "org")))
	if !ok || !s.member(ctx, v, param(ctx, "org"), false) {
		return
	}
	s.licensesPage(ctx, v, http.StatusOK)
}

func (s *portalRoutes) licensesPage(ctx *fasthttp.RequestCtx, v *devVisit, status int) {
	lics, err := s.content.Licenses(s.ctx)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	agreed, err := s.store.OrganizationAgreements(s.ctx, v.page.Org.ID)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	byLicense := map[int]portal.Agreement{}
	for _, a := range agreed {
		byLicense[a.LicenseID] = a
	}
	names := map[string]string{}
	for _, l := range lics {
		pl := templates.PortalLicense{ID: l.ID, Name: l.Name, Version: l.Version, Open: l.Open, Bibles: l.BibleIDs,
			// The licence text is the published build's, which checks every
			// licence's HTML (build/licensehtml: text, tables, http(s) and
			// mailto links, closed tags only); the page's CSP runs no script.
			Text: template.HTML(l.HTML)}
		if a, ok := byLicense[l.ID]; ok {
			pl.AgreedAt = &a.AgreedAt
			pl.AgreedBy = s.accountName(names, a.AccountID)
		}
		v.page.Licenses = append(v.page.Licenses, pl)
	}
	s.render(ctx, v, status, "portal-licenses.html")
}

// accountName is how an agreement's account is shown: its display name,
// or its id when it is gone.
func (s *portalRoutes) accountName(cache map[string]string, id string) string {
	if n, ok := cache[id]; ok {
		return n
	}
	n := id
	if a, err := s.accounts.Account(s.ctx, id); err == nil {
		n = a.DisplayName
	}
	cache[id] = n
	return n
}

// postAgreement agrees to (agree) or withdraws from a licence for the
// organization. The agreement records the account as its developer, which
// the spec's licence resource shows as svc_user_id with agreed_dt.
func (s *portalRoutes) postAgreement(agree bool) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		v, ok := s.devStart(ctx, devHome)
		if !ok || !s.member(ctx, v, param(ctx, "org"), true) {
			return
		}
		id, err := strconv.Atoi(param(ctx, "license"))
		lics, lerr := s.content.Licenses(s.ctx)
		if lerr != nil {
			s.pageFail(ctx, lerr)
			return
		}
		var lic *License
		for i := range lics {
			if err == nil && lics[i].ID == id {
				lic = &lics[i]
			}
		}
		switch {
		case lic == nil:
			v.page.Problem = "There is no such licence."
		case lic.Open:
			v.page.Problem = "Licence " + lic.Name + " is open: it needs no agreement."
		}
		if v.page.Problem != "" {
			s.licensesPage(ctx, v, http.StatusUnprocessableEntity)
			return
		}
		if agree {
			err = s.agreements.Agree(s.ctx, Agreement{LicenseID: id, OrganizationID: v.page.Org.ID, DeveloperID: v.acct.ID,
				AgreedAt: s.now()})
		} else {
			err = s.store.Withdraw(s.ctx, v.page.Org.ID, id)
		}
		if err != nil {
			s.pageFail(ctx, err)
			return
		}
		seeOther(ctx, devLicenses+"?org="+v.page.Org.ID)
	}
}
