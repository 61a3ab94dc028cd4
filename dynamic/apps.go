package dynamic

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/wire/problem"
)

// appRoutes serves /v1/apps/{app_id}, its permissions and /v1/licenses
// with the storage roles they read.
type appRoutes struct {
	*requests
	apps       AppStore
	grants     GrantStore
	agreements AgreementStore
	content    Published
}

// getApp answers GET /v1/apps/{app_id} with the app's public summary.
func (ap *appRoutes) getApp(ctx *fasthttp.RequestCtx, _ caller) {
	id := pathValue(ctx, "app_id")
	if !bible.ValidUUID(id) {
		validation(ctx, problem.NotUUID("path", "app_id"))
		return
	}
	a, err := ap.apps.App(ap.ctx, strings.ToLower(id))
	if errors.Is(err, ErrNotFound) {
		err = problem.New(problem.NotFound, problem.NoApp(id))
	}
	if err != nil {
		ap.fail(ctx, err)
		return
	}
	writeJSON(ctx, http.StatusOK, map[string]string{"app_id": a.ID, "name": a.Name,
		"description": a.Description, "website_url": a.WebsiteURL, "status": a.Status})
}

// getPermissions answers GET /v1/apps/{app_id}/permissions: what the user
// granted the calling app, [] when nothing. Only the app itself may ask.
func (ap *appRoutes) getPermissions(ctx *fasthttp.RequestCtx, c caller) {
	user, ok := ap.user(ctx)
	if !ok {
		return
	}
	id := pathValue(ctx, "app_id")
	if !bible.ValidUUID(id) {
		validation(ctx, problem.NotUUID("path", "app_id"))
		return
	}
	if strings.ToLower(id) != c.AppID {
		ap.fail(ctx, problem.New(problem.Forbidden, problem.OwnPermissionsOnly))
		return
	}
	perms, err := ap.grants.Grants(ap.ctx, user, c.AppID)
	if err != nil {
		ap.fail(ctx, err)
		return
	}
	writeJSON(ctx, http.StatusOK, map[string][]string{"permissions": perms})
}

// licenseOut is the spec's License object.
type licenseOut struct {
	ID             int     `json:"id"`
	Name           string  `json:"name"`
	Version        int     `json:"version"`
	OrganizationID string  `json:"organization_id"`
	HTML           string  `json:"html"`
	BibleIDs       []int32 `json:"bible_ids"`
	URI            string  `json:"uri"`
	AgreedDT       string  `json:"agreed_dt,omitempty"`
	SvcUserID      string  `json:"svc_user_id,omitempty"`
}

// getLicenses answers GET /v1/licenses (spec, Licenses): all licences by
// default; with developer_id only those the developer agreed to, or with
// all_available=true all of them with the developer's agreement where
// present; with bible_id only the licence that Bible is published under.
func (ap *appRoutes) getLicenses(ctx *fasthttp.RequestCtx, _ caller) {
	q := ctx.QueryArgs()
	var ds []detail
	var bibleID int32
	hasBible := q.Has("bible_id")
	if hasBible {
		n, err := strconv.ParseInt(string(q.Peek("bible_id")), 10, 32)
		if err != nil {
			ds = append(ds, problem.NotInt32("query", "bible_id"))
		}
		bibleID = int32(n)
	}
	dev := string(q.Peek("developer_id"))
	if q.Has("developer_id") && !bible.ValidUUID(dev) {
		ds = append(ds, problem.NotUUID("query", "developer_id"))
	}
	all := false
	if q.Has("all_available") {
		b, err := strconv.ParseBool(string(q.Peek("all_available")))
		if err != nil {
			ds = append(ds, problem.NotBool("query", "all_available"))
		}
		all = b
	}
	if ds != nil {
		validation(ctx, ds...)
		return
	}
	lics, err := ap.content.Licenses(ap.ctx)
	if err != nil {
		ap.fail(ctx, err)
		return
	}
	agreed := map[int]Agreement{}
	if dev != "" {
		as, err := ap.agreements.DeveloperAgreements(ap.ctx, strings.ToLower(dev))
		if err != nil {
			ap.fail(ctx, err)
			return
		}
		for _, a := range as {
			if prev, ok := agreed[a.LicenseID]; !ok || a.AgreedAt.Before(prev.AgreedAt) {
				agreed[a.LicenseID] = a
			}
		}
	}
	out := []licenseOut{}
	for _, l := range lics {
		a, ok := agreed[l.ID]
		if dev != "" && !all && !ok {
			continue
		}
		if hasBible && !slices.Contains(l.BibleIDs, bibleID) {
			continue
		}
		o := licenseOut{ID: l.ID, Name: l.Name, Version: l.Version, OrganizationID: l.OrganizationID,
			HTML: l.HTML, BibleIDs: l.BibleIDs, URI: l.URI}
		if o.BibleIDs == nil {
			o.BibleIDs = []int32{}
		}
		if ok {
			o.AgreedDT = a.AgreedAt.UTC().Format(time.RFC3339)
			o.SvcUserID = a.DeveloperID
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		// Nothing matches: 204, not an error (spec, Errors).
		noContent(ctx, http.StatusNoContent)
		return
	}
	writeJSON(ctx, http.StatusOK, map[string][]licenseOut{"data": out})
}
