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

// In Chromium: the approval page opened while signed in as another
// account says so and offers to switch; switching signs the right user in
// and brings the page back. Also the plain continue step
// (require_user_interaction) and the page for a refused authorization
// request. Each page is saved as a PNG (SIGNIN_SCREENSHOTS).
func TestSwitchAccountInChromium(t *testing.T) {
	s := newSignInEnv(t)
	user, other := s.account(userID), s.account(otherUser)
	shots := os.Getenv("SIGNIN_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	b := chromiumtest.Start(t)
	ready := func(cond string) { b.WaitEval(`document.readyState === "complete" && (` + cond + `)`) }
	text := func() string {
		var v string
		b.Eval(`document.body.innerText`, &v)
		return v
	}
	signIn := func(email string) {
		ready(`location.pathname === "/auth/sign-in" && !!document.querySelector("#password")`)
		b.Eval(`document.querySelector("#email").value = `+chromiumtest.JSString(email)+`;
			document.querySelector("#password").value = `+chromiumtest.JSString(testPassword)+`;
			document.querySelector("form button[type=submit]").click()`, nil)
	}

	b.Navigate(s.base + "/auth/sign-in")
	signIn(other.Email)
	ready(`location.pathname === "/auth/account"`)

	r := throughEdge(t, http.DefaultClient, "POST", s.base+"/data-exchange/token", signInKey, s.env.token(userID), `{"requested_permissions":["highlights"]}`)
	var tok struct{ Token string }
	r.json(t, &tok)
	b.Navigate(s.base + "/data-exchange?token=" + url.QueryEscape(tok.Token) + "&x-svc-app-key=" + signInKey)
	ready(`document.body.innerText.includes("This request is for another account")`)
	b.Screenshot(filepath.Join(shots, "switch.png"), true)
	b.Eval(`document.querySelector("form button[type=submit]").click()`, nil)
	signIn(user.Email)
	ready(`!!document.querySelector("button[value=approve]")`)
	b.Screenshot(filepath.Join(shots, "approval.png"), true)
	if got := text(); !strings.Contains(got, "Allow Demo Reader to access your data?") {
		t.Fatalf("after switching: %s", got)
	}

	_, challenge := pkce()
	q := authorizeParams(challenge)
	q.Set("require_user_interaction", "true")
	b.Navigate(s.base + "/auth/authorize?" + q.Encode())
	ready(`!!document.querySelector("button[value=approve]")`)
	b.Screenshot(filepath.Join(shots, "continue.png"), true)
	if got := text(); !strings.Contains(got, "Continue to Demo Reader?") {
		t.Errorf("continue step: %s", got)
	}

	q.Set("redirect_uri", redirectURI+"/other")
	b.Navigate(s.base + "/auth/authorize?" + q.Encode())
	ready(`document.body.innerText.includes("This sign-in cannot go on")`)
	b.Screenshot(filepath.Join(shots, "authorize-error.png"), true)
}
