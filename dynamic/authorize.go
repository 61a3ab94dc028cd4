package dynamic

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"github.com/bibleplatform/platform/dynamic/oauth"
	"github.com/bibleplatform/platform/templates"
	"github.com/bibleplatform/platform/wire/problem"
)

// providerHandler serves one of the provider's routes (op's net/http
// handlers) under the server's run context rather than fasthttp's
// RequestCtx (see Server.ctx).
func (s *signInRoutes) providerHandler(h http.Handler) fasthttp.RequestHandler {
	return fasthttpadaptor.NewFastHTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithoutCancel(s.ctx)))
	}))
}

// browserErrors shows op's plain-text refusals on the browser routes
// (a client or redirect URI that is not known good, where OAuth 2.0 says
// not to redirect) as the platform's error page, with its headers.
func (s *signInRoutes) browserErrors(h fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		h(ctx)
		if ctx.Response.StatusCode() != http.StatusBadRequest ||
			!strings.HasPrefix(string(ctx.Response.Header.ContentType()), "text/plain") {
			return
		}
		why := strings.TrimSpace(string(ctx.Response.Body()))
		ctx.Response.ResetBody()
		s.errorPage(ctx, http.StatusBadRequest, "This sign-in cannot go on", why)
	}
}

// getContinue is the step between /auth/authorize and /auth/callback: the
// user signs in (or is), then agrees to what the app asks when there is
// anything to ask or the app wants a click (require_user_interaction).
func (s *signInRoutes) getContinue(ctx *fasthttp.RequestCtx) {
	id := string(ctx.QueryArgs().Peek("id"))
	req, ok := s.continueRequest(ctx, id)
	if !ok {
		return
	}
	acct, ok := s.signedIn(ctx, oauth.ContinuePath+"?id="+url.QueryEscape(id))
	if !ok {
		return
	}
	var missing []string
	for _, p := range req.RequestedPermissions {
		ok, err := s.grants.has(s.ctx, acct.ID, req.AppID, p)
		if err != nil {
			s.pageFail(ctx, err)
			return
		}
		if !ok {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 && !req.RequireInteraction {
		s.completeSignIn(ctx, id, acct.ID, req.RequestedPermissions)
		return
	}
	a, err := s.apps.App(s.ctx, req.AppID)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	perms := make([]templates.Permission, 0, len(missing))
	for _, p := range missing {
		perms = append(perms, templates.Permission{Name: p, Description: permissionText[p]})
	}
	csrf := s.formCSRF(ctx, bindContinue(id))
	switchCSRF := s.formCSRF(ctx, bindSignOut)
	self := oauth.ContinuePath + "?id=" + url.QueryEscape(id)
	s.page(ctx, http.StatusOK, "continue.html", formTarget(req.RedirectURI), func(nonce string) any {
		return templates.ContinuePage{Nonce: nonce, Action: self, CSRF: csrf, AppName: a.Name,
			AccountName: acct.DisplayName, AccountEmail: acct.Email, Permissions: perms,
			SwitchCSRF: switchCSRF, Return: self}
	})
}

// continueRequest loads the authorization request a continue page is for,
// answering with an error page when there is none to continue.
func (s *signInRoutes) continueRequest(ctx *fasthttp.RequestCtx, id string) (*oauth.AuthRequest, bool) {
	if s.provider == nil {
		refuse(ctx, problem.NotFound, problem.NoRoute)
		return nil, false
	}
	req, err := s.provider.Request(s.ctx, id)
	if err != nil {
		s.errorPage(ctx, http.StatusBadRequest, "This sign-in has expired",
			"This sign-in request has expired or was already completed. Return to the app and sign in again.")
		return nil, false
	}
	return req, true
}

// postContinue takes the user's answer: approval records the grants (as
// the data-exchange flow does) and completes the request; cancel sends
// access_denied to the app.
func (s *signInRoutes) postContinue(ctx *fasthttp.RequestCtx) {
	id := string(ctx.QueryArgs().Peek("id"))
	req, ok := s.continueRequest(ctx, id)
	if !ok {
		return
	}
	form := ctx.PostArgs()
	if !s.csrfOK(ctx, bindContinue(id), string(form.Peek("csrf"))) {
		s.errorPage(ctx, http.StatusBadRequest, "The form had expired",
			"Nothing was shared. Return to the app and sign in again.")
		return
	}
	acct, ok := s.signedIn(ctx, oauth.ContinuePath+"?id="+url.QueryEscape(id))
	if !ok {
		return
	}
	switch string(form.Peek("decision")) {
	case "approve":
		if len(req.RequestedPermissions) > 0 {
			if err := s.grants.store.Grant(s.ctx, acct.ID, req.AppID, req.RequestedPermissions, s.now()); err != nil {
				s.pageFail(ctx, err)
				return
			}
		}
		s.completeSignIn(ctx, id, acct.ID, req.RequestedPermissions)
	case "cancel":
		s.providerHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.provider.Deny(w, r, req)
		}))(ctx)
	default:
		s.errorPage(ctx, http.StatusBadRequest, "No answer", "The form carried no decision. Go back and choose.")
	}
}

// completeSignIn records who signed in and what they granted, and sends
// the browser to /auth/callback, which redirects to the app with the code.
func (s *signInRoutes) completeSignIn(ctx *fasthttp.RequestCtx, id, account string, granted []string) {
	if err := s.provider.Complete(s.ctx, id, account, slices.Clone(granted)); err != nil {
		s.pageFail(ctx, err)
		return
	}
	seeOther(ctx, oauth.CallbackURL(id))
}
