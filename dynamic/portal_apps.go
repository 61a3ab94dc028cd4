package dynamic

// The portal's apps: registration, the app page, App Keys (a new one shown
// once, rotation, revocation) and archiving (docs/portal.md).

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic/portal"
	"github.com/bibleplatform/platform/templates"
)

func (s *portalRoutes) getNewApp(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devNewApp+"?org="+url.QueryEscape(param(ctx, "org")))
	if !ok || !s.member(ctx, v, param(ctx, "org"), true) {
		return
	}
	s.render(ctx, v, http.StatusOK, "portal-newapp.html")
}

// postApp registers an app in development and shows its first key.
func (s *portalRoutes) postApp(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devHome)
	if !ok || !s.member(ctx, v, param(ctx, "org"), true) {
		return
	}
	f := ctx.PostArgs()
	v.page.Form = templates.PortalAppForm{Name: string(f.Peek("name")), Description: string(f.Peek("description")),
		Website: string(f.Peek("website")), UseCase: string(f.Peek("use_case")), Callbacks: string(f.Peek("callbacks"))}
	form, err := portal.ParseAppForm(v.page.Form.Name, v.page.Form.Description, v.page.Form.Website,
		v.page.Form.UseCase, v.page.Form.Callbacks, CheckRedirectURI)
	app := App{ID: bible.NewUUID(), Name: form.Name, Description: form.Description, WebsiteURL: form.WebsiteURL,
		Status: access.StatusDevelopment, OrganizationID: v.page.Org.ID}
	for _, u := range form.CallbackURLs {
		if httpURL(u) {
			app.CallbackURL = u
			break
		}
	}
	if err == nil && app.Validate() != nil {
		err = portal.ErrWebsite
	}
	if err == nil {
		apps, lerr := s.store.OrganizationApps(s.ctx, app.OrganizationID)
		if lerr != nil {
			s.pageFail(ctx, lerr)
			return
		}
		if len(apps) >= portal.MaxApps {
			err = portal.ErrManyApps
		}
	}
	if err != nil {
		if len(v.page.Form.Name) > portal.MaxName*4 {
			// A name no one could have meant is not shown back whole.
			v.page.Form.Name = ""
		}
		v.page.Problem = err.Error()
		s.render(ctx, v, http.StatusUnprocessableEntity, "portal-newapp.html")
		return
	}
	if err := s.store.RegisterApp(s.ctx, portal.Registration{AppID: app.ID, OrganizationID: app.OrganizationID,
		Name: app.Name, Description: app.Description, WebsiteURL: app.WebsiteURL, UseCase: form.UseCase,
		CallbackURLs: form.CallbackURLs, ConsentCallback: app.CallbackURL, RegisteredBy: v.acct.ID, At: s.now()}); err != nil {
		s.pageFail(ctx, err)
		return
	}
	v.page.App = templates.PortalApp{ID: app.ID, Name: app.Name}
	s.issueKey(ctx, v)
}

// issueKey mints a key for the visit's app and shows it, once, with the
// first request to make with it.
func (s *portalRoutes) issueKey(ctx *fasthttp.RequestCtx, v *devVisit) {
	key, _, err := IssueKey(s.ctx, s.keys, v.page.App.ID)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	v.page.NewKey = key
	v.page.Curl = FirstCurl(publicOrigin(ctx, s.issuer), key, s.openPassage())
	s.render(ctx, v, http.StatusOK, "portal-key.html")
}

// FirstCurl is the first request a developer makes with a new key: a
// passage of an open Bible ("9001/passages/JHN.3.16", which every key
// reads), or without one the Bibles of every language.
func FirstCurl(origin, key, passage string) string {
	origin = strings.TrimSuffix(origin, "/")
	if passage == "" {
		return fmt.Sprintf("curl --globoff -H 'X-SVC-App-Key: %s' \\\n  '%s/v1/bibles?language_ranges[]=*'", key, origin)
	}
	return fmt.Sprintf("curl -H 'X-SVC-App-Key: %s' \\\n  '%s/v1/bibles/%s?format=text'", key, origin, passage)
}

// openPassage is the passage FirstCurl reads: John 3:16 of the open Bible
// with the lowest id, or its first verse when it lacks John; "" when no
// Bible is open or the content cannot be read.
func (s *portalRoutes) openPassage() string {
	lics, err := s.content.Licenses(s.ctx)
	if err != nil {
		return ""
	}
	var open []int32
	for _, l := range lics {
		if l.Open {
			open = append(open, l.BibleIDs...)
		}
	}
	slices.Sort(open)
	for _, id := range open {
		x, err := s.content.Index(s.ctx, id)
		if err != nil {
			continue
		}
		first := ""
		for _, b := range x.Books {
			for _, c := range b.Chapters {
				for _, v := range c.Verses {
					if v.PassageID == "JHN.3.16" {
						return fmt.Sprintf("%d/passages/%s", id, v.PassageID)
					}
					if first == "" {
						first = v.PassageID
					}
				}
			}
		}
		if first != "" {
			return fmt.Sprintf("%d/passages/%s", id, first)
		}
	}
	return ""
}

func (s *portalRoutes) getPortalApp(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devApp+"?app="+url.QueryEscape(param(ctx, "app")))
	if !ok {
		return
	}
	if _, ok := s.memberApp(ctx, v, false); !ok {
		return
	}
	s.appPage(ctx, v, http.StatusOK)
}

func (s *portalRoutes) appPage(ctx *fasthttp.RequestCtx, v *devVisit, status int) {
	keys, err := s.keys.Keys(s.ctx, v.page.App.ID)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	for _, k := range keys {
		v.page.Keys = append(v.page.Keys, templates.PortalKey{ID: k.ID, Hint: k.Hint, Created: k.CreatedAt, Revoked: k.RevokedAt})
	}
	s.render(ctx, v, status, "portal-app.html")
}

// ownedLiveApp is the app of an owner's form, refused when archived.
func (s *portalRoutes) ownedLiveApp(ctx *fasthttp.RequestCtx) (*devVisit, bool) {
	v, ok := s.devStart(ctx, devHome)
	if !ok {
		return nil, false
	}
	a, ok := s.memberApp(ctx, v, true)
	if !ok {
		return nil, false
	}
	if a.Status == access.StatusArchived {
		v.page.Problem = portal.ErrArchived.Error()
		s.appPage(ctx, v, http.StatusConflict)
		return nil, false
	}
	return v, true
}

func (s *portalRoutes) postKey(ctx *fasthttp.RequestCtx) {
	v, ok := s.ownedLiveApp(ctx)
	if !ok {
		return
	}
	keys, err := s.keys.Keys(s.ctx, v.page.App.ID)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	active := 0
	for _, k := range keys {
		if k.RevokedAt == nil {
			active++
		}
	}
	if active >= portal.MaxActiveKeys {
		v.page.Problem = portal.ErrTooManyKeys.Error()
		s.appPage(ctx, v, http.StatusConflict)
		return
	}
	s.issueKey(ctx, v)
}

func (s *portalRoutes) postRevoke(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devHome)
	if !ok {
		return
	}
	if _, ok := s.memberApp(ctx, v, true); !ok {
		return
	}
	id, _ := strconv.ParseInt(param(ctx, "key"), 10, 64)
	keys, err := s.keys.Keys(s.ctx, v.page.App.ID)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	found := false
	for _, k := range keys {
		found = found || k.ID == id && k.RevokedAt == nil
	}
	if !found {
		v.page.Problem = "That key is not an active key of this app."
		s.appPage(ctx, v, http.StatusUnprocessableEntity)
		return
	}
	if !confirmed(ctx) {
		v.page.Problem = "Tick the box to confirm: a revoked key stops working at every edge within seconds, for good."
		s.appPage(ctx, v, http.StatusUnprocessableEntity)
		return
	}
	if err := s.keys.RevokeKey(s.ctx, id, s.now()); err != nil {
		s.pageFail(ctx, err)
		return
	}
	seeOther(ctx, devApp+"?app="+v.page.App.ID)
}

// confirmed reports whether a form that removes something for good came
// with its confirmation box ticked: no such act is one click.
func confirmed(ctx *fasthttp.RequestCtx) bool {
	return string(ctx.PostArgs().Peek("confirm")) == "yes"
}

func (s *portalRoutes) postArchive(ctx *fasthttp.RequestCtx) {
	v, ok := s.ownedLiveApp(ctx)
	if !ok {
		return
	}
	if !confirmed(ctx) {
		v.page.Problem = "Tick the box to confirm: archiving cannot be undone."
		s.appPage(ctx, v, http.StatusUnprocessableEntity)
		return
	}
	if err := s.apps.SetAppStatus(s.ctx, v.page.App.ID, access.StatusArchived); err != nil {
		s.pageFail(ctx, err)
		return
	}
	seeOther(ctx, devApp+"?app="+v.page.App.ID)
}
