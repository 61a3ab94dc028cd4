package dynamic_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/dynamic/accounts"
	"github.com/bibleplatform/platform/internal/chromiumtest"
)

// A passkey added on the account page signs the account in from the
// sign-in page, in Chromium with a virtual authenticator. The browser is
// on localhost: a WebAuthn relying party is a domain, never an address.
func TestPasskeyInChromium(t *testing.T) {
	s := newSignInEnv(t)
	base := strings.Replace(s.base, "127.0.0.1", "localhost", 1)
	shots := os.Getenv("SIGNIN_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	b := chromiumtest.Start(t)
	b.AddVirtualAuthenticator()
	ready := func(cond string) { b.WaitEval(`document.readyState === "complete" && (` + cond + `)`) }

	b.Navigate(base + "/auth/sign-up")
	ready(`!!document.querySelector("#name")`)
	b.Eval(`document.querySelector("#name").value = "Lydia";
		document.querySelector("#email").value = "lydia@example.test";
		document.querySelector("#password").value = "purple cloth of thyatira";
		document.querySelector("form button[type=submit]").click()`, nil)
	ready(`location.pathname === "/auth/account" && !document.querySelector("button[data-passkey]").hidden`)
	b.Eval(`document.querySelector("button[data-passkey=register]").click()`, nil)
	ready(`document.getElementById("passkey-status").textContent !== ""`)
	var status string
	b.Eval(`document.getElementById("passkey-status").textContent`, &status)
	if !strings.HasPrefix(status, "Passkey added") {
		t.Fatalf("adding a passkey: %q", status)
	}
	b.Screenshot(filepath.Join(shots, "account-passkey.png"), true)
	a, err := s.db.AccountByEmail(context.Background(), accounts.EmailKey("lydia@example.test"))
	if err != nil {
		t.Fatal(err)
	}
	if keys, err := s.db.Passkeys(context.Background(), a.ID); err != nil || len(keys) != 1 {
		t.Fatalf("passkeys stored: %d, %v", len(keys), err)
	}

	b.Eval(`document.querySelector("button[value=here]").click()`, nil)
	ready(`document.body.innerText.includes("You are signed out") && !document.querySelector("button[data-passkey]").hidden`)
	b.Screenshot(filepath.Join(shots, "sign-in-passkey.png"), true)
	b.Eval(`document.querySelector("button[data-passkey=sign-in]").click()`, nil)
	ready(`location.pathname === "/auth/account" && document.body.innerText.includes("Signed in as Lydia")`)
}
