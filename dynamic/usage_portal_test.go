package dynamic_test

import (
	"context"
	"encoding/csv"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/wire"
)

// The usage pages show what the edges reported: a developer their app's
// requests per day and Bible with its rate limit, a licensor its Bibles'
// requests per month and licensee app, as a page and as CSV.
func TestUsagePages(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	dev, publisher := browser(), browser()
	e.signUp(dev, "Dev", "dev@example.test")
	e.signUp(publisher, "Publisher", "publisher@example.test")
	licensee := e.createOrg(dev, "Licensee Ltd")
	app, _ := e.register(dev, licensee, "=HYPERLINK(evil)")
	society := e.createOrg(publisher, "Reader Society")
	if err := e.db.SetLicenseOwner(ctx, 2, society, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now().UTC()
	today, yesterday := now.Format(time.DateOnly), now.AddDate(0, 0, -1).Format(time.DateOnly)
	if _, err := e.db.AddUsage(ctx, "edge-a", 1, now, []wire.UsageCount{
		{App: app, Bible: 9002, Day: today, Requests: 12},
		{App: app, Bible: 9001, Day: today, Requests: 5}, // an open Bible: not the society's
		{App: app, Bible: 0, Day: yesterday, Requests: 3},
		{App: appID, Bible: 9003, Day: today, Requests: 7}, // the seeded app: no portal organization
	}); err != nil {
		t.Fatal(err)
	}

	r := e.doWith(dev, req{method: "GET", path: "/developers/usage?app=" + app})
	body := string(r.body)
	if r.status != 200 {
		t.Fatalf("usage page: %d %s", r.status, body)
	}
	for _, want := range []string{"Total: <strong>20</strong>", "<td>" + today + "</td><td>Bible 9002</td><td class=\"n\">12</td>",
		"<td>" + yesterday + "</td><td>no Bible read (catalogue, search, refused by a licence)</td><td class=\"n\">3</td>",
		"default rate limit", `<svg class="chart" role="img"`, ": 17 requests</title>"} {
		if !strings.Contains(body, want) {
			t.Errorf("usage page lacks %q", want)
		}
	}
	pageHeaders(t, r)
	if got := e.doWith(dev, req{method: "GET", path: "/developers/usage?app=" + appID}); got.status != 404 {
		t.Errorf("usage of an app of no organization of the account: %d, want 404", got.status)
	}

	r = e.doWith(publisher, req{method: "GET", path: "/developers/licensor?org=" + society})
	body = string(r.body)
	if r.status != 200 {
		t.Fatalf("licensor page: %d %s", r.status, body)
	}
	month := now.Format("2006-01")
	for _, want := range []string{"licence 2 (Reader Licence: Bible 9002, Bible 9003)", "Total: <strong>19</strong>",
		"<td>" + month + "</td><td>Bible 9002</td><td>=HYPERLINK(evil)</td><td>Licensee Ltd</td><td class=\"n\">12</td>",
		"<td>" + month + "</td><td>Bible 9003</td><td>Demo Reader</td><td></td><td class=\"n\">7</td>",
		`href="/developers/licensor.csv?org=` + society + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("licensor page lacks %q", want)
		}
	}
	if strings.Contains(body, "Bible 9001") {
		t.Error("the licensor page shows a Bible of another licence")
	}
	pageHeaders(t, r)

	r = e.doWith(publisher, req{method: "GET", path: "/developers/licensor.csv?org=" + society})
	if r.status != 200 || r.header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		!strings.HasPrefix(r.header.Get("Content-Disposition"), "attachment;") || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("CSV: %d %v", r.status, r.header)
	}
	rows, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"month", "bible_id", "app_id", "app", "licensee", "requests"},
		{month, "9002", app, "'=HYPERLINK(evil)", "Licensee Ltd", "12"},
		{month, "9003", appID, "Demo Reader", "", "7"},
	}
	if len(rows) != len(want) {
		t.Fatalf("CSV rows %q, want %q", rows, want)
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("CSV row %d = %q, want %q", i, rows[i], want[i])
		}
	}

	// An organization that owns no licence is told how one comes to.
	r = e.doWith(dev, req{method: "GET", path: "/developers/licensor?org=" + licensee})
	if r.status != 200 || !strings.Contains(string(r.body), "owns no licence") {
		t.Errorf("licensor page of a licensee: %d %s", r.status, r.body)
	}
	r = e.doWith(dev, req{method: "GET", path: "/developers/licensor.csv?org=" + licensee})
	if r.status != 200 || strings.Count(string(r.body), "\n") != 1 {
		t.Errorf("CSV of a licensee: %d %q, want the header alone", r.status, r.body)
	}
}

var styleNonce = regexp.MustCompile(`<style nonce="([^"]+)">`)

// pageHeaders checks a portal page's headers: a CSP whose nonce is the
// page's, no framing, no caching.
func pageHeaders(t *testing.T, r resp) {
	t.Helper()
	csp := r.header.Get("Content-Security-Policy")
	m := styleNonce.FindSubmatch(r.body)
	if m == nil {
		t.Fatal("the page has no style element with a nonce")
	}
	if !strings.Contains(csp, "'nonce-"+html.UnescapeString(string(m[1]))+"'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q does not carry the page's nonce and frame-ancestors 'none'", csp)
	}
	if r.header.Get("X-Frame-Options") != "DENY" || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", r.header)
	}
	for _, n := range styleNonce.FindAllSubmatch(r.body, -1) {
		if string(n[1]) != string(m[1]) {
			t.Error("the page's style elements carry different nonces")
		}
	}
}
