// Package chromiumtest drives a headless Chromium (Debian's package,
// installed by scripts/chromium.sh) over the Chrome DevTools Protocol, for
// tests of pages in a real browser: the consent page, the reader page.
package chromiumtest

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/bibleplatform/platform/internal/repotest"
)

// Browser is one page of a headless Chromium.
type Browser struct {
	t       testing.TB
	ws      *websocket.Conn
	session string
	id      int
}

// Start finds (or installs) Chromium and opens a blank page; the browser
// stops when the test ends. It fails, never skips, without Chromium. flags
// are added to Chromium's command line (a certificate to trust, say:
// --ignore-certificate-errors-spki-list=…).
func Start(t testing.TB, flags ...string) *Browser {
	t.Helper()
	out, err := exec.Command(filepath.Join(repotest.Root(t), "scripts", "chromium.sh")).Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("no Chromium: %v\n%s", err, stderr)
	}
	// The profile directory is removed by this test's own cleanup, after
	// the browser and every process it started are gone: Chromium's
	// helpers (renderer, crash handler) outlive a killed browser process
	// for a moment and still write there, which made t.TempDir's removal
	// fail the test now and then.
	profile, err := os.MkdirTemp("", "chromiumtest-")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--headless=new", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--disable-dev-shm-usage", "--remote-debugging-port=0", "--remote-allow-origins=*",
		"--hide-scrollbars", "--user-data-dir=" + profile}, flags...)
	cmd := exec.Command(strings.TrimSpace(string(out)), append(args, "about:blank")...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, to stop it whole
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(profile)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		// Helpers outside the group (none expected) get a few tries.
		for range 20 {
			if err := os.RemoveAll(profile); err == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("profile %s not removed", profile)
	})
	wsURL := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
				wsURL <- strings.TrimSpace(u)
			}
		}
	}()
	var u string
	select {
	case u = <-wsURL:
	case <-time.After(30 * time.Second):
		t.Fatal("Chromium did not start")
	}
	ws, err := websocket.Dial(u, "", "http://127.0.0.1/")
	if err != nil {
		t.Fatal(err)
	}
	ws.MaxPayloadBytes = 64 << 20
	t.Cleanup(func() { ws.Close() })
	b := &Browser{t: t, ws: ws}
	var target struct{ TargetID string }
	json.Unmarshal(b.Call("Target.createTarget", map[string]any{"url": "about:blank"}), &target)
	var att struct{ SessionID string }
	json.Unmarshal(b.Call("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &att)
	b.session = att.SessionID
	b.Call("Page.enable", nil)
	return b
}

// Call sends a command and waits for its answer, ignoring events.
func (b *Browser) Call(method string, params any) json.RawMessage {
	b.t.Helper()
	res, err := b.call(method, params)
	if err != nil {
		b.t.Fatalf("%s: %s", method, err)
	}
	return res
}

// call is Call that returns the protocol's error (a failed connection is
// still fatal).
func (b *Browser) call(method string, params any) (json.RawMessage, error) {
	b.t.Helper()
	b.id++
	msg := map[string]any{"id": b.id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if b.session != "" {
		msg["sessionId"] = b.session
	}
	if err := websocket.JSON.Send(b.ws, msg); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	b.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var res struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := websocket.JSON.Receive(b.ws, &res); err != nil {
			b.t.Fatalf("%s: %v", method, err)
		}
		if res.ID != b.id {
			continue
		}
		if res.Error != nil {
			return nil, errors.New(res.Error.Message)
		}
		return res.Result, nil
	}
}

// Navigate opens url in the page.
func (b *Browser) Navigate(url string) {
	b.t.Helper()
	b.Call("Page.navigate", map[string]any{"url": url})
}

// Eval evaluates a JavaScript expression in the page and decodes its
// value into out (awaiting it when it is a promise).
func (b *Browser) Eval(expr string, out any) {
	b.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	json.Unmarshal(b.Call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}), &r)
	if r.ExceptionDetails != nil {
		b.t.Fatalf("%s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			b.t.Fatalf("%s: result %s: %v", expr, r.Result.Value, err)
		}
	}
}

// WaitEval polls a JavaScript condition in the page for up to 15 s.
func (b *Browser) WaitEval(expr string) {
	b.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		// Between pages there may be no document yet: an exception, or a
		// page navigating away while it is asked, is "not yet", as false
		// is.
		var r struct {
			Result struct {
				Value bool `json:"value"`
			} `json:"result"`
		}
		res, err := b.call("Runtime.evaluate", map[string]any{"expression": "(() => { try { return Boolean(" + expr + "); } catch { return false; } })()", "returnByValue": true})
		if err == nil && json.Unmarshal(res, &r) == nil && r.Result.Value {
			return
		}
		if time.Now().After(deadline) {
			var where string
			b.Eval("location.href + ' ' + document.title + ' ' + (document.querySelector('[role=status]')?.textContent ?? '')", &where)
			b.t.Fatalf("timed out waiting for %s (page: %v)", expr, where)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Screenshot saves the page as a PNG at path (the whole page when full).
func (b *Browser) Screenshot(path string, full bool) {
	b.t.Helper()
	var s struct{ Data string }
	json.Unmarshal(b.Call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": full}), &s)
	png, err := base64.StdEncoding.DecodeString(s.Data)
	if err != nil || len(png) == 0 {
		b.t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// JSString quotes s as a JavaScript string literal.
func JSString(s string) string { b, _ := json.Marshal(s); return string(b) }

// AddVirtualAuthenticator gives the page a WebAuthn authenticator that
// holds discoverable credentials (passkeys) and approves every request as
// a verified user, through the DevTools WebAuthn domain.
func (b *Browser) AddVirtualAuthenticator() {
	b.t.Helper()
	b.Call("WebAuthn.enable", nil)
	b.Call("WebAuthn.addVirtualAuthenticator", map[string]any{"options": map[string]any{
		"protocol": "ctap2", "transport": "internal", "hasResidentKey": true,
		"hasUserVerification": true, "isUserVerified": true, "automaticPresenceSimulation": true,
	}})
}
