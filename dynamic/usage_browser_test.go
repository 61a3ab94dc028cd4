package dynamic_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/edge"
	"github.com/bibleplatform/platform/internal/chromiumtest"
)

// TestUsageInChromium: an app's key reads through two edges that report
// usage; in Chromium, its developer sees the requests counted on the
// app's usage page, and the publisher that owns the licence sees the
// reads of its Bible per licensee app. PORTAL_SCREENSHOTS names a
// directory to keep the screenshots in.
func TestUsageInChromium(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	base := e.srv.URL()
	shots := os.Getenv("PORTAL_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	dev, pub := browser(), browser()
	e.signUp(dev, "Priya Developer", "priya@example.test")
	org := e.createOrg(dev, "Psalter Labs")
	app, key := e.register(dev, org, "Psalm a Day")
	if r := e.post(dev, "/developers/licenses/agree", url.Values{"org": {org}, "license": {"2"}}); r.status != http.StatusSeeOther {
		t.Fatalf("agree: %d", r.status)
	}
	e.signUp(pub, "Southern Word", "society@example.test")
	society := e.createOrg(pub, "Southern Word Society")
	if err := e.db.SetLicenseOwner(ctx, 2, society, e.clock.Now()); err != nil {
		t.Fatal(err)
	}

	var edges []*testEdge
	for range 2 {
		ed := startEdge(t, e.store, base, func(c *edge.Config) { c.UsageReportInterval = 200 * time.Millisecond })
		go ed.access.Run(t.Context())
		runUsage(t, ed)
		edges = append(edges, ed)
	}
	// admitted counts the requests an edge admitted for the app: all but
	// the 401s of an edge that does not know the new key yet.
	admitted, bible9002 := 0, 0
	get := func(ed *testEdge, path string) int {
		t.Helper()
		st := throughEdge(t, http.DefaultClient, "GET", ed.url+path, key, "", "").status
		if st != http.StatusUnauthorized {
			admitted++
		}
		return st
	}
	for _, ed := range edges {
		waitFor(t, func() bool { return get(ed, "/v1/apps/"+app) == http.StatusOK })
	}
	for range 5 {
		get(edges[0], "/v1/bibles/9001/passages/JHN.3.16")
	}
	for range 3 {
		if st := get(edges[1], "/v1/bibles/9002/passages/JHN.3.16"); st == http.StatusForbidden {
			t.Fatal("the agreed licence's Bible is refused")
		}
		bible9002++
	}
	get(edges[1], "/v1/bibles?language_ranges[]=*")

	b := chromiumtest.Start(t)
	b.Call("Network.enable", map[string]any{})
	b.Call("Network.setExtraHTTPHeaders", map[string]any{"headers": map[string]string{"X-Edge-Token": edgeToken}})
	signInAs := func(c *http.Client) {
		b.Call("Network.clearBrowserCookies", map[string]any{})
		u, _ := url.Parse(base)
		for _, ck := range c.Jar.Cookies(u) {
			b.Call("Network.setCookie", map[string]any{"name": ck.Name, "value": ck.Value, "url": base})
		}
	}
	// showing loads page until its text has every one of want, for 10 s.
	showing := func(page string, want ...string) string {
		t.Helper()
		var text string
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			b.Navigate(page)
			b.WaitEval(`document.readyState === "complete"`)
			b.Eval(`document.body.innerText`, &text)
			missing := false
			for _, w := range want {
				missing = missing || !strings.Contains(text, w)
			}
			if !missing {
				return text
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s does not show %q within 10 s:\n%s", page, want, text)
			}
		}
	}

	signInAs(dev)
	showing(base+"/developers/app?app="+app, "Usage and rate limit")
	b.Eval(`document.querySelector("a[href^='/developers/usage']").click()`, nil)
	b.WaitEval(`location.pathname === "/developers/usage"`)
	text := showing(base+"/developers/usage?app="+app, "Total: "+strconv.Itoa(admitted)+" requests",
		"Bible 9001\t5", "Bible 9002\t"+strconv.Itoa(bible9002), "rate limit")
	var bars int
	b.Eval(`document.querySelectorAll("svg.chart rect.bar").length`, &bars)
	if bars != 30 {
		t.Errorf("the chart has %d bars, want 30 (one a day)", bars)
	}
	b.Screenshot(filepath.Join(shots, "portal-usage.png"), true)
	t.Logf("usage page:\n%s", text)

	signInAs(pub)
	showing(base+"/developers/licensor?org="+society, "Psalm a Day", "Psalter Labs", "Bible 9002", "Download as CSV")
	b.Screenshot(filepath.Join(shots, "portal-licensor.png"), true)
	r := e.doWith(pub, req{method: "GET", path: "/developers/licensor.csv?org=" + society})
	if want := ",9002," + app + ",Psalm a Day,Psalter Labs," + strconv.Itoa(bible9002) + "\r\n"; !strings.Contains(string(r.body), want) {
		t.Errorf("CSV %q lacks %q", r.body, want)
	}
	if strings.Contains(string(r.body), ",9001,") {
		t.Errorf("CSV shows the open Bible, which is not the society's: %q", r.body)
	}
}
