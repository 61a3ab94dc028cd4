package dynamic

// The portal's usage pages (docs/portal.md): a developer sees each app's
// requests per day and Bible and its rate limit; a licensor (an
// organization that owns a licence, `dynamic licenses owner`) sees the
// requests per month and licensee app of its licences' Bibles, and
// downloads them as CSV. Every member of the organization sees them; an
// account that is not gets the portal's 404, as for every other page.

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/templates"
)

const (
	devUsage       = "/developers/usage"
	devLicensor    = "/developers/licensor"
	devLicensorCSV = "/developers/licensor.csv"
	// usageDays is how many days an app's page shows, today included;
	// usageMonths how many months the licensor's page and CSV cover.
	usageDays   = 30
	usageMonths = 12
)

// usageRoutes adds the usage pages to byPath.
func (s *portalRoutes) usageRoutes(byPath map[string]methods) {
	byPath[devUsage] = methods{"GET": s.getUsage}
	byPath[devLicensor] = methods{"GET": s.getLicensor}
	byPath[devLicensorCSV] = methods{"GET": s.getLicensorCSV}
}

// renderUsage shows a usage page with the portal's headers and navigation.
func (s *portalRoutes) renderUsage(ctx *fasthttp.RequestCtx, v *devVisit, name string, u templates.UsagePage) {
	v.page.CSRF = s.formCSRF(ctx, bindPortal(v.acct.ID))
	s.page(ctx, http.StatusOK, name, "", func(nonce string) any {
		v.page.Nonce = nonce
		u.PortalPage = v.page
		return u
	})
}

// bibleLabel names a Bible in usage tables; 0 is the requests that read
// none.
func bibleLabel(id int32) string {
	if id == 0 {
		return "no Bible read (catalogue, search, refused by a licence)"
	}
	return "Bible " + strconv.Itoa(int(id))
}

// utcDay is t's UTC date at midnight.
func utcDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func (s *portalRoutes) getUsage(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devUsage+"?app="+url.QueryEscape(param(ctx, "app")))
	if !ok {
		return
	}
	if _, ok := s.memberApp(ctx, v, false); !ok {
		return
	}
	app, err := s.apps.App(s.ctx, v.page.App.ID)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	today := utcDay(s.now())
	first := today.AddDate(0, 0, -(usageDays - 1))
	days, err := s.usage.AppUsage(s.ctx, app.ID, first)
	if err != nil {
		s.pageFail(ctx, err)
		return
	}
	u := templates.UsagePage{Rate: rateText(app),
		Period: "The last " + strconv.Itoa(usageDays) + " days, " + first.Format(time.DateOnly) + " to " + today.Format(time.DateOnly)}
	labels, perDay := make([]string, usageDays), make([]int64, usageDays)
	for i := range usageDays {
		labels[i] = first.AddDate(0, 0, i).Format("Jan 2")
	}
	perBible := map[int32]int64{}
	for _, d := range days {
		if i := int(utcDay(d.Day).Sub(first) / (24 * time.Hour)); i >= 0 && i < usageDays {
			perDay[i] += d.Requests
		}
		perBible[d.BibleID] += d.Requests
		u.Total += d.Requests
	}
	for i := len(days) - 1; i >= 0; i-- { // newest first
		d := days[i]
		u.Rows = append(u.Rows, templates.UsageRow{Period: d.Day.UTC().Format(time.DateOnly), Bible: bibleLabel(d.BibleID), Requests: d.Requests})
	}
	for _, id := range slices.Sorted(maps.Keys(perBible)) {
		u.Totals = append(u.Totals, templates.UsageRow{Bible: bibleLabel(id), Requests: perBible[id]})
	}
	u.Chart = barChart("Requests of "+app.Name+" per day, the last "+strconv.Itoa(usageDays)+" days", "requests", labels, perDay)
	s.renderUsage(ctx, v, "portal-usage.html", u)
}

// rateText says an app's rate limit in words.
func rateText(a *App) string {
	if a.RatePerSecond <= 0 {
		return "Your app has the platform's default rate limit. Ask the operator if it needs a higher one."
	}
	t := "Your app may make " + strconv.FormatFloat(a.RatePerSecond, 'g', -1, 64) + " requests a second"
	if a.RateBurst > 0 {
		t += ", in bursts of up to " + strconv.Itoa(a.RateBurst)
	}
	return t + ", across all of the API's servers."
}

// licensorUsage loads what the licensor's page and CSV show: the licences
// the organization owns and their Bibles' monthly usage from first on.
func (s *portalRoutes) licensorUsage(ctx *fasthttp.RequestCtx, v *devVisit, first time.Time) ([]templates.UsageLicense, []UsageMonth, bool) {
	owned, err := s.usage.OwnedLicenses(s.ctx, v.page.Org.ID)
	if err != nil {
		s.pageFail(ctx, err)
		return nil, nil, false
	}
	if len(owned) == 0 {
		return nil, nil, true
	}
	lics, err := s.content.Licenses(s.ctx)
	if err != nil {
		s.pageFail(ctx, err)
		return nil, nil, false
	}
	var out []templates.UsageLicense
	var bibles []int32
	for _, l := range lics {
		if slices.Contains(owned, l.ID) {
			out = append(out, templates.UsageLicense{ID: l.ID, Name: l.Name, Bibles: l.BibleIDs})
			bibles = append(bibles, l.BibleIDs...)
		}
	}
	if len(bibles) == 0 {
		return out, nil, true
	}
	months, err := s.usage.BibleUsage(s.ctx, bibles, first)
	if err != nil {
		s.pageFail(ctx, err)
		return nil, nil, false
	}
	return out, months, true
}

// usageFirstMonth is the first month the licensor's view covers.
func (s *portalRoutes) usageFirstMonth() time.Time {
	y, m, _ := s.now().UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).AddDate(0, -(usageMonths - 1), 0)
}

func (s *portalRoutes) getLicensor(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devLicensor+"?org="+url.QueryEscape(param(ctx, "org")))
	if !ok || !s.member(ctx, v, param(ctx, "org"), false) {
		return
	}
	first := s.usageFirstMonth()
	lics, months, ok := s.licensorUsage(ctx, v, first)
	if !ok {
		return
	}
	u := templates.UsagePage{Licenses: lics,
		Period: "The last " + strconv.Itoa(usageMonths) + " months, from " + first.Format("January 2006")}
	labels, perMonth := make([]string, usageMonths), make([]int64, usageMonths)
	for i := range usageMonths {
		labels[i] = first.AddDate(0, i, 0).Format("Jan 2006")
	}
	for _, m := range months {
		y, mo, _ := m.Month.UTC().Date()
		if i := (y-first.Year())*12 + int(mo-first.Month()); i >= 0 && i < usageMonths {
			perMonth[i] += m.Requests
		}
		u.Total += m.Requests
		u.Rows = append(u.Rows, templates.UsageRow{Period: m.Month.UTC().Format("2006-01"), Bible: bibleLabel(m.BibleID),
			App: m.AppName, Licensee: m.Licensee, Requests: m.Requests})
	}
	u.Chart = barChart("Requests of the Bibles "+v.page.Org.Name+" licenses, per month", "requests", labels, perMonth)
	s.renderUsage(ctx, v, "portal-licensor.html", u)
}

// getLicensorCSV is the licensor's usage as CSV (RFC 4180), one row per
// month, Bible and app.
func (s *portalRoutes) getLicensorCSV(ctx *fasthttp.RequestCtx) {
	v, ok := s.devStart(ctx, devLicensorCSV+"?org="+url.QueryEscape(param(ctx, "org")))
	if !ok || !s.member(ctx, v, param(ctx, "org"), false) {
		return
	}
	_, months, ok := s.licensorUsage(ctx, v, s.usageFirstMonth())
	if !ok {
		return
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	w.Write([]string{"month", "bible_id", "app_id", "app", "licensee", "requests"})
	for _, m := range months {
		w.Write([]string{m.Month.UTC().Format("2006-01"), strconv.Itoa(int(m.BibleID)), m.AppID,
			csvText(m.AppName), csvText(m.Licensee), strconv.FormatInt(m.Requests, 10)})
	}
	w.Flush()
	h := &ctx.Response.Header
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="usage-%s.csv"`, v.page.Org.ID))
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	ctx.SetStatusCode(http.StatusOK)
	ctx.SetBody(buf.Bytes())
}

// csvText keeps a name a developer chose from being taken for a formula
// by the spreadsheet the licensor opens the file with (OWASP, CSV
// injection): a leading =, +, -, @, tab or carriage return gets a quote
// before it.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
