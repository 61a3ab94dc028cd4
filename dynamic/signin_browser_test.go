package dynamic_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/internal/chromiumtest"
	"github.com/bibleplatform/platform/internal/repotest"
)

// startExample builds and starts examples/signin against the platform at
// base, on a free port, and returns its URL.
func startExample(t *testing.T, base string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "signin")
	build := exec.Command("go", "build", "-o", bin, "./examples/signin")
	build.Dir = repotest.Root(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the example: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	url := "http://" + addr
	cmd := exec.Command(bin, "--listen", addr, "--platform", base, "--app-key", signInKey,
		"--redirect-uri", url+"/callback", "--bible", "9001", "--passage", "JHN.3.16")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatal("the example app did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The whole sign-in, in Chromium, through the edge: sign up with a
// password on the platform's page, sign out, then sign in to the example
// app (examples/signin) with requested_permissions=highlights, approve, and
// let the app exchange the code, write a highlight, refresh its tokens and
// write again with the new access token. Each page is saved as a PNG
// (SIGNIN_SCREENSHOTS names a directory to keep them).
func TestSignInExampleInChromium(t *testing.T) {
	s := newSignInEnv(t)
	example := startExample(t, s.base)
	// Building the example took real time; the provider stamps tokens
	// with the real clock.
	s.clock.Add(time.Since(s.clock.Now()))
	if err := s.db.SetRedirectURIs(t.Context(), appID, []string{example + "/callback"}); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("SIGNIN_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	shot := func(b *chromiumtest.Browser, name string) { b.Screenshot(filepath.Join(shots, name+".png"), true) }
	ready := func(b *chromiumtest.Browser, cond string) {
		b.WaitEval(`document.readyState === "complete" && (` + cond + `)`)
	}
	text := func(b *chromiumtest.Browser) string {
		var v string
		b.Eval(`document.body.innerText`, &v)
		return v
	}

	b := chromiumtest.Start(t)
	// Sign up with a password.
	b.Navigate(s.base + "/auth/sign-up")
	ready(b, `!!document.querySelector("#name")`)
	shot(b, "sign-up")
	b.Eval(`document.querySelector("#name").value = "Ruth Reader";
		document.querySelector("#email").value = "ruth@example.test";
		document.querySelector("#password").value = "gleaning in the fields";
		document.querySelector("form button[type=submit]").click()`, nil)
	ready(b, `location.pathname === "/auth/account"`)
	shot(b, "account")
	if !strings.Contains(text(b), "Signed in as Ruth Reader") {
		t.Fatalf("account page: %s", text(b))
	}
	b.Eval(`document.querySelector("button[value=here]").click()`, nil)
	ready(b, `location.pathname === "/auth/sign-out" && document.body.innerText.includes("You are signed out")`)

	// Sign in to the example app.
	b.Navigate(example + "/")
	ready(b, `!!document.querySelector("#sign-in")`)
	b.Eval(`document.querySelector("#sign-in").click()`, nil)
	ready(b, `location.pathname === "/auth/sign-in" && !!document.querySelector("#password")`)
	shot(b, "sign-in")
	b.Eval(`document.querySelector("#email").value = "ruth@example.test";
		document.querySelector("#password").value = "gleaning in the fields";
		document.querySelector("form button[type=submit]").click()`, nil)
	ready(b, `!!document.querySelector("button[value=approve]")`)
	shot(b, "consent")
	if got := text(b); !strings.Contains(got, "Allow Demo Reader to access your data?") || !strings.Contains(got, "highlights") {
		t.Fatalf("consent page: %s", got)
	}
	b.Eval(`document.querySelector("button[value=approve]").click()`, nil)
	ready(b, `location.href.startsWith(`+chromiumtest.JSString(example+"/")+`) && document.body.innerText.includes("Signed in as")`)
	if got := text(b); !strings.Contains(got, "Ruth Reader") || !strings.Contains(got, "granted permissions: highlights") {
		t.Fatalf("example after sign-in: %s", got)
	}
	highlight := func(want int) {
		t.Helper()
		b.Eval(`document.querySelector("form[action='/highlight'] button").click()`, nil)
		ready(b, `document.body.innerText.includes("POST /v1/highlights")`)
		if got := text(b); !strings.Contains(got, "POST /v1/highlights (JHN.3.16): "+strconv.Itoa(want)) {
			t.Fatalf("highlight: want %d: %s", want, got)
		}
	}
	highlight(201)
	shot(b, "example")
	b.Eval(`document.querySelector("form[action='/refresh'] button").click()`, nil)
	ready(b, `document.body.innerText.includes("Tokens refreshed.")`)
	highlight(409) // the same highlight again, with the refreshed token: already there
}
