package dynamic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/internal/chromiumtest"
	"github.com/bibleplatform/platform/internal/repotest"
)

// vnuVersion pins the Nu Html Checker (the W3C validator) from npm.
const vnuVersion = "26.9.27"

// vnu returns the validator's jar, installing it into .cache/vnu on first
// use. It needs java and npm; it fails, never skips, without them.
func vnu(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repotest.Root(t), ".cache", "vnu-"+vnuVersion)
	jar := filepath.Join(dir, "node_modules", "vnu-jar", "build", "dist", "vnu.jar")
	if _, err := os.Stat(jar); err == nil {
		return jar
	}
	if out, err := exec.Command("npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", dir,
		"vnu-jar@"+vnuVersion).CombinedOutput(); err != nil {
		t.Fatalf("install the HTML validator: %v: %s", err, out)
	}
	return jar
}

// The approval page and the error page are valid HTML by the W3C's own
// checker.
func TestPagesAreValidHTML(t *testing.T) {
	jar := vnu(t)
	e := newEnv(t)
	dir := t.TempDir()
	pages := map[string]req{
		"approval.html": {method: "GET", path: "/data-exchange?token=" + url.QueryEscape(e.newToken(userID)) + "&x-svc-app-id=" + appID},
		"error.html":    {method: "GET", path: "/data-exchange?token=unknown"},
	}
	pages["signin.html"] = req{method: "GET", path: "/auth/sign-in?return=%2Fauth%2Faccount"}
	pages["signup.html"] = req{method: "GET", path: "/auth/sign-up"}
	pages["account.html"] = req{method: "GET", path: "/auth/account"}
	b := e.signedIn(userID)
	var files []string
	for name, r := range pages {
		got := e.doWith(b, r)
		if !strings.HasPrefix(got.header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %s", name, got.status, got.header.Get("Content-Type"))
		}
		f := filepath.Join(dir, name)
		os.WriteFile(f, got.body, 0o644)
		files = append(files, f)
	}
	cmd := exec.Command("java", append([]string{"-jar", jar, "--format", "json", "--also-check-css"}, files...)...)
	out, _ := cmd.CombinedOutput() // exit status 1 means messages: judged below
	var res struct {
		Messages []struct {
			Type, SubType, Message, URL string
			LastLine                    int
		}
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("validator output %q: %v", out, err)
	}
	for _, m := range res.Messages {
		if m.Type == "error" || m.SubType == "warning" || m.Type == "non-document-error" {
			t.Errorf("%s:%d: %s: %s", filepath.Base(m.URL), m.LastLine, m.Type, m.Message)
		}
	}
}

// A real browser (headless Chromium) opens the approval page through the
// edge, clicks Approve, and is redirected to the app's callback, which
// receives the grant; the page's CSP (form-action) lets the redirect
// through and nothing on the page needs JavaScript.
func TestApprovalInChromium(t *testing.T) {
	var mu sync.Mutex
	var got url.Values
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r) // the browser also asks for /favicon.ico
			return
		}
		mu.Lock()
		got = r.URL.Query()
		mu.Unlock()
		fmt.Fprint(w, "<!DOCTYPE html><title>back in the app</title><p>done</p>")
	}))
	defer cb.Close()

	e := newEnv(t)
	ctx := context.Background()
	if err := e.db.UpsertApp(ctx, dynamic.App{ID: appID, Name: "Demo Reader", WebsiteURL: "https://reader.example",
		Status: "live", OrganizationID: orgID, CallbackURL: cb.URL + "/callback"}); err != nil {
		t.Fatal(err)
	}
	const key = "bpk_browser_test"
	h := access.HashKey([]byte(key))
	if _, err := e.db.AddKey(ctx, appID, h[:], "bpk_brow"); err != nil {
		t.Fatal(err)
	}
	base := e.withEdge()
	waitFor(t, func() bool {
		return throughEdge(t, http.DefaultClient, "GET", base+"/v1/apps/"+appID, key, "", "").status == 200
	})
	r := throughEdge(t, http.DefaultClient, "POST", base+"/data-exchange/token", key, e.token(userID), `{"requested_permissions":["highlights"]}`)
	var tok struct{ Token string }
	r.json(t, &tok)
	page := base + "/data-exchange?token=" + url.QueryEscape(tok.Token) + "&x-svc-app-key=" + key

	a := e.account(userID)
	b := chromiumtest.Start(t)
	b.Navigate(page)
	// Not signed in yet: the page sends the browser to sign in first, and
	// back to the same request after.
	signInChromium(b, a.Email, testPassword)
	b.WaitEval(`document.readyState === "complete" && !!document.querySelector("button[value=approve]")`)
	shot := filepath.Join(t.TempDir(), "approval.png")
	if p := os.Getenv("APPROVAL_SCREENSHOT"); p != "" {
		shot = p
	}
	b.Screenshot(shot, false)
	b.Eval(`document.querySelector("button[value=approve]").click()`, nil)
	b.WaitEval(`location.href.startsWith(` + chromiumtest.JSString(cb.URL+"/callback") + `)`)
	mu.Lock()
	defer mu.Unlock()
	if got.Get("data_exchange_status") != "granted" || got.Get("granted_permissions") != "highlights" {
		t.Fatalf("callback got %v", got)
	}
	if r := throughEdge(t, http.DefaultClient, "GET", base+"/v1/apps/"+appID+"/permissions", key, e.token(userID), ""); !strings.Contains(string(r.body), `"highlights"`) {
		t.Errorf("permissions after approving in the browser: %d %s", r.status, r.body)
	}
}

// signInChromium fills in and sends the sign-in form the browser shows.
func signInChromium(b *chromiumtest.Browser, email, password string) {
	b.WaitEval(`document.readyState === "complete" && location.pathname === "/auth/sign-in" && !!document.querySelector("#password")`)
	b.Eval(`document.querySelector("#email").value = `+chromiumtest.JSString(email)+`;
		document.querySelector("#password").value = `+chromiumtest.JSString(password)+`;
		document.querySelector("form button[type=submit]").click()`, nil)
}
