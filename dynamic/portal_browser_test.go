package dynamic_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/internal/chromiumtest"
)

// TestPortalInChromium signs up, creates an organization, registers an app
// and reads its key from the page, in Chromium, without JavaScript of the
// pages' own (there is none); then the key works at an edge. Chromium
// sends the edge token itself, as the edge adds it to what it forwards.
// PORTAL_SCREENSHOTS names a directory to keep the screenshots in.
func TestPortalInChromium(t *testing.T) {
	e := newEnv(t)
	base := e.srv.URL()
	shots := os.Getenv("PORTAL_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	b := chromiumtest.Start(t)
	b.Call("Network.enable", map[string]any{})
	b.Call("Network.setExtraHTTPHeaders", map[string]any{"headers": map[string]string{"X-Edge-Token": edgeToken}})
	shot := func(name string) { b.Screenshot(filepath.Join(shots, "portal-"+name+".png"), true) }
	ready := func(cond string) { b.WaitEval(`document.readyState === "complete" && (` + cond + `)`) }
	text := func() string {
		var v string
		b.Eval(`document.body.innerText`, &v)
		return v
	}
	fill := func(fields map[string]string) {
		for id, v := range fields {
			b.Eval(`document.querySelector(`+chromiumtest.JSString("#"+id)+`).value = `+chromiumtest.JSString(v), nil)
		}
	}

	b.Navigate(base + "/developers")
	ready(`location.pathname === "/auth/sign-in"`)
	b.Navigate(base + "/auth/sign-up?return=%2Fdevelopers")
	ready(`!!document.querySelector("#name")`)
	fill(map[string]string{"name": "Priya Developer", "email": "priya@example.test", "password": "apps for the psalms"})
	b.Eval(`document.querySelector("form button[type=submit]").click()`, nil)
	ready(`location.pathname === "/developers" && !!document.querySelector("#name")`)
	shot("home")

	fill(map[string]string{"name": "Psalter Labs"})
	b.Eval(`document.querySelector("form[action='/developers/organizations'] button").click()`, nil)
	ready(`location.pathname === "/developers/organization"`)
	shot("organization")
	if got := text(); !strings.Contains(got, "Psalter Labs") || !strings.Contains(got, "owner") {
		t.Fatalf("organization page: %s", got)
	}

	b.Eval(`document.querySelector("a[href^='/developers/apps/new']").click()`, nil)
	ready(`location.pathname === "/developers/apps/new" && !!document.querySelector("#use_case")`)
	// A callback URL with a fragment is refused, the form kept.
	fill(map[string]string{"name": "Psalm a Day", "description": "One psalm each morning.",
		"website": "https://psalter.example", "use_case": "Shows a daily psalm with the reader's highlights.",
		"callbacks": "https://psalter.example/callback#top"})
	b.Eval(`document.querySelector("form[action='/developers/apps'] button").click()`, nil)
	ready(`!!document.querySelector(".problem")`)
	shot("register-problem")
	if got := text(); !strings.Contains(got, "fragment") {
		t.Fatalf("registration with a fragment: %s", got)
	}
	fill(map[string]string{"callbacks": "https://psalter.example/callback"})
	b.Eval(`document.querySelector("form[action='/developers/apps'] button").click()`, nil)
	ready(`!!document.querySelector("#app-key")`)
	shot("key")
	var key, curl string
	b.Eval(`document.querySelector("#app-key").innerText`, &key)
	b.Eval(`document.querySelector("#first-curl").innerText`, &curl)
	if !strings.HasPrefix(key, "bpk_") || !strings.Contains(curl, "X-SVC-App-Key: "+key) {
		t.Fatalf("key %q, curl %q", key, curl)
	}

	b.Eval(`document.querySelector("a[href^='/developers/app?']").click()`, nil)
	ready(`location.pathname === "/developers/app"`)
	shot("app")
	if got := text(); !strings.Contains(got, "development") || !strings.Contains(got, key[:8]) {
		t.Fatalf("app page: %s", got)
	}
	var org string
	b.Eval(`new URLSearchParams(document.querySelector("nav a[href^='/developers/organization']").search).get("org")`, &org)
	b.Eval(`document.querySelector("nav a[href^='/developers/organization']").click()`, nil)
	ready(`location.pathname === "/developers/organization"`)
	b.Eval(`document.querySelector("a[href^='/developers/licenses']").click()`, nil)
	ready(`location.pathname === "/developers/licenses"`)
	shot("licenses")
	// The key from the page works at an edge: the open Bible's text is
	// readable, the licensed one's refused until the owner agrees.
	orgApps, err := e.db.OrganizationApps(t.Context(), org)
	if err != nil || len(orgApps) != 1 {
		t.Fatalf("apps %v %v", orgApps, err)
	}
	ed := startEdge(t, e.store, base, nil)
	go ed.access.Run(t.Context())
	passage := func(bible string) int {
		return throughEdge(t, http.DefaultClient, "GET", ed.url+"/v1/bibles/"+bible+"/passages/JHN.3.16", key, "", "").status
	}
	waitFor(t, func() bool {
		return throughEdge(t, http.DefaultClient, "GET", ed.url+"/v1/apps/"+orgApps[0].ID, key, "", "").status == 200
	})
	if got := passage("9001"); got == http.StatusForbidden || got == http.StatusUnauthorized {
		t.Errorf("open Bible's passage: %d", got)
	}
	if got := passage("9002"); got != http.StatusForbidden {
		t.Errorf("licensed Bible's passage before agreeing: %d, want 403", got)
	}
	b.Eval(`document.querySelector("form[action='/developers/licenses/agree'] button").click()`, nil)
	ready(`location.pathname === "/developers/licenses" && document.body.innerText.includes("Agreed ")`)
	shot("licenses-agreed")
	// The test build has no text packs: past the licence check the
	// answer is not 403, whatever the store then lacks.
	waitFor(t, func() bool { return passage("9002") != http.StatusForbidden })
	t.Logf("after agreeing: open %d, licensed %d", passage("9001"), passage("9002"))

	// Rotation: a second key from the app page; revoking the first makes
	// it 401 at the edge.
	b.Navigate(base + "/developers/app?app=" + orgApps[0].ID)
	ready(`!!document.querySelector("form[action='/developers/keys'] button")`)
	b.Eval(`document.querySelector("form[action='/developers/keys'] button").click()`, nil)
	ready(`!!document.querySelector("#app-key")`)
	var key2 string
	b.Eval(`document.querySelector("#app-key").innerText`, &key2)
	b.Navigate(base + "/developers/app?app=" + orgApps[0].ID)
	ready(`document.querySelectorAll("form[action='/developers/keys/revoke']").length === 2`)
	shot("app-two-keys")
	b.Eval(`document.querySelector("form[action='/developers/keys/revoke'] input[name=confirm]").click()`, nil)
	b.Eval(`document.querySelector("form[action='/developers/keys/revoke'] button").click()`, nil)
	// The page says "revoked" in its note before the form is sent: wait
	// for one revoke form left.
	ready(`location.pathname === "/developers/app" && document.querySelectorAll("form[action='/developers/keys/revoke']").length === 1`)
	waitFor(t, func() bool {
		return throughEdge(t, http.DefaultClient, "GET", ed.url+"/v1/apps/"+orgApps[0].ID, key, "", "").status == http.StatusUnauthorized &&
			throughEdge(t, http.DefaultClient, "GET", ed.url+"/v1/apps/"+orgApps[0].ID, key2, "", "").status == 200
	})

	// An invitation: its link, shown once; another account opens it and
	// joins as a developer, who sees the organization without its forms.
	b.Navigate(base + "/developers/organization?org=" + org)
	ready(`!!document.querySelector("#email")`)
	fill(map[string]string{"email": "sam@example.test"})
	b.Eval(`document.querySelector("form[action='/developers/invitations'] button").click()`, nil)
	ready(`!!document.querySelector("#invite-link")`)
	shot("invited")
	var link string
	b.Eval(`document.querySelector("#invite-link").innerText`, &link)
	link = link[strings.Index(link, "/developers/join"):]
	b.Navigate(base + link)
	ready(`document.body.innerText.includes("another address")`)
	shot("join-wrong-account")
	b.Call("Network.clearBrowserCookies", map[string]any{})
	b.Navigate(base + "/auth/sign-up?return=" + url.QueryEscape(link))
	ready(`!!document.querySelector("#name")`)
	fill(map[string]string{"name": "Sam Colleague", "email": "sam@example.test", "password": "a colleague joins"})
	b.Eval(`document.querySelector("form button[type=submit]").click()`, nil)
	ready(`location.pathname === "/developers/join" && !!document.querySelector("form[action='/developers/join'] button")`)
	shot("join")
	b.Eval(`document.querySelector("form[action='/developers/join'] button").click()`, nil)
	ready(`location.pathname === "/developers/organization"`)
	shot("organization-developer")
	if got := text(); !strings.Contains(got, "Your role: developer") || strings.Contains(got, "Register an app") {
		t.Errorf("the developer's organization page: %s", got)
	}
	b.Navigate(base + "/developers/apps/new?org=" + org)
	ready(`document.body.innerText.includes("Only an owner")`)
	shot("forbidden")
}
