package dynamic

// The developer portal's pages (docs/portal.md): organizations, members and
// invitations, app registration, App Keys and licence agreements. Every
// page needs a signed-in account; every form carries a csrf value bound to
// that account and is refused, changing nothing, without it. An account
// sees only its own organizations; a developer sees them, an owner also
// changes them. What is not the account's gets the same 404 as what does
// not exist, so the pages do not tell which ids exist.

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic/accounts"
	"github.com/bibleplatform/platform/dynamic/portal"
	"github.com/bibleplatform/platform/templates"
)

// The portal's paths. Ids travel as query parameters (GET) and form fields
// (POST), so every route is a fixed path.
const (
	devHome       = "/developers"
	devOrgs       = "/developers/organizations"
	devOrg        = "/developers/organization"
	devRemove     = "/developers/members/remove"
	devInvite     = "/developers/invitations"
	devJoin       = "/developers/join"
	devNewApp     = "/developers/apps/new"
	devApps       = "/developers/apps"
	devApp        = "/developers/app"
	devArchive    = "/developers/apps/archive"
	devKeys       = "/developers/keys"
	devRevoke     = "/developers/keys/revoke"
	devLicenses   = "/developers/licenses"
	devAgree      = "/developers/licenses/agree"
	devWithdraw   = "/developers/licenses/withdraw"
	msgNoSuchPage = "There is no such page, or it belongs to an organization you are not a member of."
)

// portalRoutes serves the developer portal with the storage roles it
// uses: the portal's own (organizations, members, invitations, apps by
// organization), apps, keys and agreements, accounts for members' names,
// and published licences. Its developer signs in through signIn.
type portalRoutes struct {
	*pages
	signIn     *signInRoutes
	store      portal.Store
	accounts   accounts.Store
	apps       AppStore
	keys       KeyStore
	agreements AgreementStore
	content    Published
	usage      UsageStore // usage_portal.go
	// issuer is the platform's configured public origin ("": the one
	// the browser reached it at), for invitation links and the first
	// curl.
	issuer string
}

// routes adds the portal's paths to byPath.
func (s *portalRoutes) routes(byPath map[string]methods) {
	for path, m := range map[string]methods{
		devHome:     {"GET": s.getPortal},
		devOrgs:     {"POST": s.postOrganization},
		devOrg:      {"GET": s.getOrganization},
		devRemove:   {"POST": s.postRemoveMember},
		devInvite:   {"POST": s.postInvite},
		devJoin:     {"GET": s.getJoin, "POST": s.postJoin},
		devNewApp:   {"GET": s.getNewApp},
		devApps:     {"POST": s.postApp},
		devApp:      {"GET": s.getPortalApp},
		devArchive:  {"POST": s.postArchive},
		devKeys:     {"POST": s.postKey},
		devRevoke:   {"POST": s.postRevoke},
		devLicenses: {"GET": s.getPortalLicenses},
		devAgree:    {"POST": s.postAgreement(true)},
		devWithdraw: {"POST": s.postAgreement(false)},
	} {
		byPath[path] = m
	}
	s.usageRoutes(byPath)
}

// bindPortal binds the portal forms' csrf values to the account: a value
// taken from one account's page is no good in another's session.
func bindPortal(account string) []byte { return []byte("portal\x00" + account) }

// devVisit is one portal request: the account and what its page shows.
type devVisit struct {
	acct *accounts.Account
	page templates.PortalPage
}

// devStart finds the signed-in account (else sends the browser to sign in
// and back to here, a GET page) and, for a form, checks its csrf value.
func (s *portalRoutes) devStart(ctx *fasthttp.RequestCtx, here string) (*devVisit, bool) {
	if ctx.IsPost() {
		here = devHome
	}
	acct, ok := s.signIn.signedIn(ctx, here)
	if !ok {
		return nil, false
	}
	v := &devVisit{acct: acct}
	v.page.Account = acct.DisplayName
	if ctx.IsPost() && !s.csrfOK(ctx, bindPortal(acct.ID), string(ctx.PostArgs().Peek("csrf"))) {
		s.devError(ctx, v, http.StatusForbidden, "The form was not accepted",
			"The form had expired or did not come from this site's page, so nothing was changed. Go back, reload the page and try again.")
		return nil, false
	}
	return v, true
}

// render shows a portal page.
func (s *portalRoutes) render(ctx *fasthttp.RequestCtx, v *devVisit, status int, name string) {
	v.page.CSRF = s.formCSRF(ctx, bindPortal(v.acct.ID))
	s.page(ctx, status, name, "", func(nonce string) any {
		v.page.Nonce = nonce
		return v.page
	})
}

func (s *portalRoutes) devNotFound(ctx *fasthttp.RequestCtx, v *devVisit) {
	s.devError(ctx, v, http.StatusNotFound, "Not found", msgNoSuchPage)
}

// devError shows why a portal request was refused, on a page that leads
// back to the portal.
func (s *portalRoutes) devError(ctx *fasthttp.RequestCtx, v *devVisit, status int, title, msg string) {
	v.page.Title, v.page.Message = title, msg
	s.render(ctx, v, status, "portal-error.html")
}

// param is a request's id field: the query's on a GET, the form's on a
// POST.
func param(ctx *fasthttp.RequestCtx, name string) string {
	if ctx.IsPost() {
		return strings.TrimSpace(string(ctx.PostArgs().Peek(name)))
	}
	return strings.TrimSpace(string(ctx.QueryArgs().Peek(name)))
}

// member loads the organization org names for the visit, refusing (404)
// an account that is not its member, and (403) one that is not its owner
// when owner is asked for.
func (s *portalRoutes) member(ctx *fasthttp.RequestCtx, v *devVisit, org string, owner bool) bool {
	org = strings.ToLower(org)
	if !bible.ValidUUID(org) {
		s.devNotFound(ctx, v)
		return false
	}
	m, err := s.store.Membership(s.ctx, org, v.acct.ID)
	if errors.Is(err, ErrNotFound) {
		s.devNotFound(ctx, v)
		return false
	}
	if err != nil {
		s.pageFail(ctx, err)
		return false
	}
	v.page.Org = templates.PortalOrg{ID: m.ID, Name: m.Name, Role: string(m.Role)}
	v.page.Owner = m.Role == portal.Owner
	if owner && !v.page.Owner {
		s.devError(ctx, v, http.StatusForbidden, "Only an owner can do this",
			"Only an owner of "+m.Name+" can change its apps, keys, licences and members. Nothing was changed.")
		return false
	}
	return true
}

// memberApp loads the app the request names and its organization, as
// member does.
func (s *portalRoutes) memberApp(ctx *fasthttp.RequestCtx, v *devVisit, owner bool) (*portal.App, bool) {
	id := strings.ToLower(param(ctx, "app"))
	if !bible.ValidUUID(id) {
		s.devNotFound(ctx, v)
		return nil, false
	}
	a, err := s.store.PortalApp(s.ctx, id)
	if errors.Is(err, ErrNotFound) || err == nil && a.OrganizationID == "" {
		s.devNotFound(ctx, v)
		return nil, false
	}
	if err != nil {
		s.pageFail(ctx, err)
		return nil, false
	}
	if !s.member(ctx, v, a.OrganizationID, owner) {
		return nil, false
	}
	v.page.App = templates.PortalApp{ID: a.ID, Name: a.Name, Description: a.Description, Website: a.WebsiteURL,
		UseCase: a.UseCase, Status: a.Status, CallbackURLs: a.CallbackURLs, Created: a.CreatedAt}
	return a, true
}

// getPortal is the portal's home: the account's organizations and the
// form that creates one.
func (s *portalRoutes) getPortal(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devHome)
	if !ok {
		return
	}
	s.homePage(ctx, v, http.StatusOK)
}

func (s *portalRoutes) homePage(ctx *fasthttp.RequestCtx, v *devVisit, status int) {
	ms, err := s.store.Memberships(s.ctx, v.acct.ID)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	for _, m := range ms {
		v.page.Orgs = append(v.page.Orgs, templates.PortalOrg{ID: m.ID, Name: m.Name, Role: string(m.Role)})
	}
	s.render(ctx, v, status, "portal-home.html")
}

func (s *portalRoutes) postOrganization(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devHome)
	if !ok {
		return
	}
	name := strings.TrimSpace(string(ctx.PostArgs().Peek("name")))
	if err := portal.CheckOrganizationName(name); err != nil {
		v.page.Problem = err.Error()
		s.homePage(ctx, v, http.StatusUnprocessableEntity)
		return
	}
	ms, err := s.store.Memberships(s.ctx, v.acct.ID)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	if len(ms) >= portal.MaxOrganizations {
		v.page.Problem = portal.ErrManyOrgs.Error()
		s.homePage(ctx, v, http.StatusConflict)
		return
	}
	o := portal.Organization{ID: bible.NewUUID(), Name: name, CreatedAt: s.now()}
	if err := s.store.CreateOrganization(s.ctx, o, v.acct.ID); err != nil {
		s.pageFail(ctx, err)
		return
	}
	seeOther(ctx, devOrg+"?org="+o.ID)
}

func (s *portalRoutes) getOrganization(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devOrg+"?org="+url.QueryEscape(param(ctx, "org")))
	if !ok || !s.member(ctx, v, param(ctx, "org"), false) {
		return
	}
	s.orgPage(ctx, v, http.StatusOK)
}

func (s *portalRoutes) orgPage(ctx *fasthttp.RequestCtx, v *devVisit, status int) {
	org := v.page.Org.ID
	apps, err := s.store.OrganizationApps(s.ctx, org)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	for _, a := range apps {
		v.page.Apps = append(v.page.Apps, templates.PortalApp{ID: a.ID, Name: a.Name, Status: a.Status, Created: a.CreatedAt})
	}
	ms, err := s.store.Members(s.ctx, org)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	for _, m := range ms {
		v.page.Members = append(v.page.Members, templates.PortalMember{AccountID: m.AccountID, Name: m.DisplayName,
			Email: m.Email, Role: string(m.Role), Self: m.AccountID == v.acct.ID})
	}
	s.render(ctx, v, status, "portal-org.html")
}

// postRemoveMember removes a member (an owner) or leaves (any member, for
// themselves); never the last owner.
func (s *portalRoutes) postRemoveMember(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devHome)
	if !ok {
		return
	}
	who := strings.ToLower(param(ctx, "account"))
	if !s.member(ctx, v, param(ctx, "org"), who != v.acct.ID) {
		return
	}
	if !confirmed(ctx) {
		v.page.Problem = "Tick the box to confirm: a member removed loses access to the organization's apps and keys."
		s.orgPage(ctx, v, http.StatusUnprocessableEntity)
		return
	}
	err := s.store.RemoveMember(s.ctx, v.page.Org.ID, who)
	var p portal.Problem
	switch {
	case errors.As(err, &p):
		v.page.Problem = p.Error()
		s.orgPage(ctx, v, http.StatusConflict)
	case errors.Is(err, ErrNotFound) || errors.Is(err, ErrUnacceptable):
		v.page.Problem = "That account is not a member of " + v.page.Org.Name + "."
		s.orgPage(ctx, v, http.StatusUnprocessableEntity)
	case err != nil:
		s.pageFail(ctx, err)
	case who == v.acct.ID:
		seeOther(ctx, devHome)
	default:
		seeOther(ctx, devOrg+"?org="+v.page.Org.ID)
	}
}

// postInvite makes an invitation and shows its link, once.
func (s *portalRoutes) postInvite(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devHome)
	if !ok || !s.member(ctx, v, param(ctx, "org"), true) {
		return
	}
	email := strings.TrimSpace(string(ctx.PostArgs().Peek("email")))
	role, okRole := portal.ParseRole(string(ctx.PostArgs().Peek("role")))
	switch {
	case accounts.CheckProfile("-", email) != nil:
		v.page.Problem = accounts.ErrEmail.Error()
	case !okRole:
		v.page.Problem = portal.ErrRole.Error()
	}
	if v.page.Problem != "" {
		s.orgPage(ctx, v, http.StatusUnprocessableEntity)
		return
	}
	token, hash := accounts.NewSessionID()
	now := s.now()
	if err := s.store.CreateInvitation(s.ctx, portal.Invitation{Hash: hash, OrganizationID: v.page.Org.ID,
		EmailKey: accounts.EmailKey(email), Role: role, InvitedBy: v.acct.ID, CreatedAt: now,
		ExpiresAt: now.Add(portal.InvitationLifetime)}); err != nil {
		s.pageFail(ctx, err)
		return
	}
	v.page.InviteLink = strings.TrimSuffix(publicOrigin(ctx, s.issuer), "/") + devJoin + "?token=" + token
	v.page.InviteEmail, v.page.InviteRole = email, string(role)
	s.render(ctx, v, http.StatusOK, "portal-invited.html")
}

// invitation finds the open invitation the request's token names, for the
// signed-in account (its address must be the invited one).
func (s *portalRoutes) invitation(ctx *fasthttp.RequestCtx, v *devVisit) (*portal.Invitation, bool) {
	inv, err := s.store.Invitation(s.ctx, accounts.HashSessionID(param(ctx, "token")))
	switch {
	case errors.Is(err, ErrNotFound):
		s.devError(ctx, v, http.StatusNotFound, "No such invitation", "This invitation link is not right. Ask the owner for a new one.")
		return nil, false
	case err != nil:
		s.pageFail(ctx, err)
		return nil, false
	case inv.AcceptedAt != nil || !s.now().Before(inv.ExpiresAt):
		s.devError(ctx, v, http.StatusGone, "This invitation cannot be used",
			"It was accepted already or has expired. Ask the owner for a new one.")
		return nil, false
	case inv.EmailKey != accounts.EmailKey(v.acct.Email):
		s.devError(ctx, v, http.StatusForbidden, "This invitation is for another address",
			"It was made for another email address than your account's. Sign in with that account, or ask the owner to invite your address.")
		return nil, false
	}
	v.page.Org = templates.PortalOrg{ID: inv.OrganizationID, Name: inv.OrganizationName}
	v.page.InviteRole = string(inv.Role)
	return inv, true
}

func (s *portalRoutes) getJoin(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devJoin+"?token="+url.QueryEscape(param(ctx, "token")))
	if !ok {
		return
	}
	if _, ok := s.invitation(ctx, v); !ok {
		return
	}
	v.page.InviteLink = param(ctx, "token")
	s.render(ctx, v, http.StatusOK, "portal-join.html")
}

func (s *portalRoutes) postJoin(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devHome)
	if !ok {
		return
	}
	inv, ok := s.invitation(ctx, v)
	if !ok {
		return
	}
	ms, err := s.store.Memberships(s.ctx, v.acct.ID)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	if len(ms) >= portal.MaxOrganizations {
		s.devError(ctx, v, http.StatusConflict, "Too many organizations", portal.ErrManyOrgs.Error())
		return
	}
	err = s.store.AcceptInvitation(s.ctx, inv.Hash, v.acct.ID, s.now())
	if errors.Is(err, ErrNotFound) {
		s.devError(ctx, v, http.StatusGone, "This invitation cannot be used", "It was accepted already or has expired.")
		return
	}
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	seeOther(ctx, devOrg+"?org="+inv.OrganizationID)
}
