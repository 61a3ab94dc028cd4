package dynamic_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/internal/chromiumtest"
)

// TestStaffPageInChromium: in Chromium, without JavaScript of the page's
// own, an account that is not staff is refused the staff page; marked as
// staff, it moves an app to live, which the access snapshot the edges
// follow carries; a page older than the owner's archiving changes nothing
// and says why. PORTAL_SCREENSHOTS names a directory to keep the
// screenshots in.
func TestStaffPageInChromium(t *testing.T) {
	e := newEnv(t)
	base := e.srv.URL()
	shots := os.Getenv("PORTAL_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	owner := browser()
	e.signUp(owner, "Olive", "olive@example.test")
	org := e.createOrg(owner, "Olive Apps")
	app, _ := e.register(owner, org, "Olive Reader")
	second, _ := e.register(owner, org, "Olive Plans")

	b := chromiumtest.Start(t)
	b.Call("Network.enable", map[string]any{})
	b.Call("Network.setExtraHTTPHeaders", map[string]any{"headers": map[string]string{"X-Edge-Token": edgeToken}})
	shot := func(name string) { b.Screenshot(filepath.Join(shots, "staff-"+name+".png"), true) }
	ready := func(cond string) { b.WaitEval(`document.readyState === "complete" && (` + cond + `)`) }
	text := func() string {
		var v string
		b.Eval(`document.body.innerText`, &v)
		return v
	}
	moveButton := func(app string) string {
		return `document.querySelector("#app-` + app + ` form[action='/developers/staff/apps/status'] button")`
	}

	b.Navigate(base + "/auth/sign-up?return=" + url.QueryEscape("/developers/staff"))
	ready(`!!document.querySelector("#name")`)
	for id, v := range map[string]string{"name": "Stella Staff", "email": "stella@example.test", "password": "moving apps to live"} {
		b.Eval(`document.querySelector(`+chromiumtest.JSString("#"+id)+`).value = `+chromiumtest.JSString(v), nil)
	}
	b.Eval(`document.querySelector("form button[type=submit]").click()`, nil)
	ready(`location.pathname === "/developers/staff" && document.body.innerText.includes("for the platform's staff")`)
	shot("refused")

	a, err := e.db.AccountByEmail(t.Context(), "stella@example.test")
	if err != nil {
		t.Fatal(err)
	}
	e.markStaff(a.ID)
	b.Navigate(base + "/developers/staff")
	ready(`!!` + moveButton(app))
	shot("development")
	if got := text(); !strings.Contains(got, "Olive Apps") || !strings.Contains(got, "olive@example.test") {
		t.Errorf("staff page: %s", got)
	}

	b.Eval(moveButton(app)+`.click()`, nil)
	ready(`document.body.innerText.includes("Olive Reader is now live")`)
	shot("moved")
	e.edgeApp(app, func(a access.App) bool { return a.Status == access.StatusLive })

	// The owner archives the other app after the staff page was loaded:
	// its form still says development, and the move is refused.
	if r := e.post(owner, "/developers/apps/archive", url.Values{"app": {second}, "confirm": {"yes"}}); r.status != 303 {
		t.Fatalf("archive: %d", r.status)
	}
	b.Eval(moveButton(second)+`.click()`, nil)
	ready(`!!document.querySelector(".problem")`)
	shot("stale")
	if got := text(); !strings.Contains(got, "no longer development") || !strings.Contains(got, "Nothing was changed") {
		t.Errorf("stale move: %s", got)
	}
	if a, _ := e.db.App(t.Context(), second); a.Status != access.StatusArchived {
		t.Errorf("the archived app is %s", a.Status)
	}

	b.Navigate(base + "/developers/staff?status=all")
	ready(`!!` + moveButton(app))
	shot("all")
	if got := text(); !strings.Contains(got, "Back to development") || !strings.Contains(got, "Demo Reader") {
		t.Errorf("all apps: %s", got)
	}
}
