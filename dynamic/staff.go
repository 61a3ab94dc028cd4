package dynamic

// The operator's staff page (docs/portal.md): accounts the operator marked
// as staff (`dynamic staff add`) see every app of every organization at
// /developers/staff and move an app between development and live. The page
// is the portal's: the same sign-in, headers and csrf values bound to the
// account. An account that is not staff gets 403 and changes nothing.

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/templates"
)

// StaffStore holds which accounts are staff and what their page lists and
// changes. dynamic/postgres implements it.
type StaffStore interface {
	// IsStaff reports whether the account is marked staff.
	IsStaff(ctx context.Context, accountID string) (bool, error)
	// MarkStaff marks the account as staff (staff) or unmarks it, and
	// reports whether that changed anything. ErrNotFound: marking an
	// account that does not exist.
	MarkStaff(ctx context.Context, accountID string, staff bool, at time.Time) (changed bool, err error)
	// StaffAccounts lists the accounts marked staff, by email.
	StaffAccounts(ctx context.Context) ([]StaffAccount, error)
	// StaffApps lists the apps of status ("" for every status), newest
	// first, at most limit, with their organization and registration.
	StaffApps(ctx context.Context, status string, limit int) ([]StaffApp, error)
	// MoveApp sets the app's status to to when it is from, in one
	// statement: ErrConflict when its status is no longer from (an owner
	// archived it, another staff member moved it); ErrNotFound: no app
	// has id.
	MoveApp(ctx context.Context, id, from, to string) error
}

// StaffAccount is one account marked staff.
type StaffAccount struct {
	ID          string
	Email       string
	DisplayName string
	MarkedAt    time.Time
}

// StaffApp is an app as the staff page lists it: with its organization's
// name and what its registration said ("" for an app the operator made).
type StaffApp struct {
	App
	OrganizationName string
	UseCase          string
	RegisteredBy     string // the registering account's email
}

// The staff page's paths: under /developers, which the edge forwards to
// dynamic as the portal's.
const (
	staffHome = "/developers/staff"
	staffMove = "/developers/staff/apps/status"
	// staffListed is how many apps the page lists at once.
	staffListed = 200
)

// staffMoves are the moves staff may make: development and live, either
// way. Archived is final (docs/portal.md), so no move leads out of it, and
// archiving is the owner's.
var staffMoves = map[string]string{
	access.StatusDevelopment: access.StatusLive,
	access.StatusLive:        access.StatusDevelopment,
}

// staffRoutes serves the staff page on the portal's sign-in and forms.
type staffRoutes struct {
	*portalRoutes
	staff StaffStore
}

func (s *staffRoutes) routes(byPath map[string]methods) {
	byPath[staffHome] = methods{"GET": s.getStaff}
	byPath[staffMove] = methods{"POST": s.postMove}
}

// staffStart is devStart for the staff page: signed in, the form's csrf
// value checked, then the account's staff mark.
func (s *staffRoutes) staffStart(ctx *fasthttp.RequestCtx, here string) (*devVisit, bool) {
	v, ok := s.devStart(ctx, here)
	if !ok {
		return nil, false
	}
	staff, err := s.staff.IsStaff(s.ctx, v.acct.ID)
	if err != nil {
		s.pageFail(ctx, err)
		return nil, false
	}
	if !staff {
		s.devError(ctx, v, http.StatusForbidden, "This page is for the platform's staff",
			"Only accounts the operator marked as staff can see every app and move apps to live. Nothing was changed.")
		return nil, false
	}
	return v, true
}

// staffFilter reads the page's status filter: development (the apps
// waiting to go live) unless another status or "all" is asked for.
func staffFilter(ctx *fasthttp.RequestCtx) string {
	switch f := param(ctx, "status"); f {
	case access.StatusLive, access.StatusArchived, "all":
		return f
	}
	return access.StatusDevelopment
}

func (s *staffRoutes) getStaff(ctx *fasthttp.RequestCtx) {
	here := staffHome
	if q := ctx.QueryArgs().String(); q != "" {
		here += "?" + q
	}
	v, ok := s.staffStart(ctx, here)
	if !ok {
		return
	}
	var notice string
	if id := strings.ToLower(param(ctx, "moved")); bible.ValidUUID(id) {
		if a, err := s.apps.App(s.ctx, id); err == nil {
			notice = a.Name + " is now " + a.Status + "; every edge follows within seconds."
		}
	}
	s.staffPage(ctx, v, http.StatusOK, staffFilter(ctx), notice)
}

func (s *staffRoutes) staffPage(ctx *fasthttp.RequestCtx, v *devVisit, status int, filter, notice string) {
	which := filter
	if which == "all" {
		which = ""
	}
	apps, err := s.staff.StaffApps(s.ctx, which, staffListed+1)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	sp := templates.StaffPage{Filter: filter, Filters: []string{access.StatusDevelopment, access.StatusLive,
		access.StatusArchived, "all"}}
	if len(apps) > staffListed {
		apps, sp.More = apps[:staffListed], true
	}
	for _, a := range apps {
		sp.Apps = append(sp.Apps, templates.StaffApp{ID: a.ID, Name: a.Name, Status: a.Status,
			Organization: a.OrganizationName, OrganizationID: a.OrganizationID, Website: a.WebsiteURL,
			UseCase: a.UseCase, RegisteredBy: a.RegisteredBy, Created: a.CreatedAt, MoveTo: staffMoves[a.Status]})
	}
	v.page.Notice = notice
	v.page.CSRF = s.formCSRF(ctx, bindPortal(v.acct.ID))
	s.page(ctx, status, "staff.html", "", func(nonce string) any {
		v.page.Nonce = nonce
		sp.PortalPage = v.page
		return sp
	})
}

// postMove moves one app from the status the page showed to the other.
// The form names both, so a page older than an owner's archiving (or
// another staff member's move) changes nothing.
func (s *staffRoutes) postMove(ctx *fasthttp.RequestCtx) {
	v, ok := s.staffStart(ctx, staffHome)
	if !ok {
		return
	}
	id := strings.ToLower(param(ctx, "app"))
	from, to := param(ctx, "from"), param(ctx, "to")
	filter := staffFilter(ctx)
	if !bible.ValidUUID(id) {
		v.page.Problem = "There is no such app. Nothing was changed."
		s.staffPage(ctx, v, http.StatusNotFound, filter, "")
		return
	}
	if want, ok := staffMoves[from]; !ok || want != to {
		v.page.Problem = "An app moves between development and live only: archived is final. Nothing was changed."
		s.staffPage(ctx, v, http.StatusUnprocessableEntity, filter, "")
		return
	}
	err := s.staff.MoveApp(s.ctx, id, from, to)
	switch {
	case errors.Is(err, ErrNotFound):
		v.page.Problem = "There is no such app. Nothing was changed."
		s.staffPage(ctx, v, http.StatusNotFound, filter, "")
	case errors.Is(err, ErrConflict):
		v.page.Problem = "That app is no longer " + from + " (its owner archived it, or someone moved it meanwhile). Nothing was changed: see its status below."
		s.staffPage(ctx, v, http.StatusConflict, filter, "")
	case err != nil:
		s.pageFail(ctx, err)
	default:
		seeOther(ctx, staffHome+"?status="+url.QueryEscape(filter)+"&moved="+id)
	}
}
