package dynamic_test

import (
	"bufio"
	"context"
	"encoding/base64"
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
	"time"

	"golang.org/x/net/websocket"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/dynamic"
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
	var files []string
	for name, r := range pages {
		got := e.do(r)
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
	out, err := exec.Command(filepath.Join(repotest.Root(t), "scripts", "chromium.sh")).Output()
	if err != nil {
		t.Fatalf("no Chromium: %v", err)
	}
	chromium := strings.TrimSpace(string(out))

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

	b := startChromium(t, chromium)
	b.call("Page.enable", nil)
	b.call("Page.navigate", map[string]any{"url": page})
	b.waitEval(`document.readyState === "complete" && !!document.querySelector("button[value=approve]")`)
	if shot := b.call("Page.captureScreenshot", map[string]any{"format": "png"}); shot != nil {
		var s struct{ Data string }
		json.Unmarshal(shot, &s)
		png, _ := base64.StdEncoding.DecodeString(s.Data)
		os.WriteFile(filepath.Join(t.TempDir(), "approval.png"), png, 0o644)
		if p := os.Getenv("APPROVAL_SCREENSHOT"); p != "" {
			os.WriteFile(p, png, 0o644)
		}
	}
	b.call("Runtime.evaluate", map[string]any{"expression": `document.querySelector("button[value=approve]").click()`})
	b.waitEval(`location.href.startsWith(` + jsString(cb.URL+"/callback") + `)`)
	mu.Lock()
	defer mu.Unlock()
	if got.Get("data_exchange_status") != "granted" || got.Get("granted_permissions") != "highlights" {
		t.Fatalf("callback got %v", got)
	}
	if r := throughEdge(t, http.DefaultClient, "GET", base+"/v1/apps/"+appID+"/permissions", key, e.token(userID), ""); !strings.Contains(string(r.body), `"highlights"`) {
		t.Errorf("permissions after approving in the browser: %d %s", r.status, r.body)
	}
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// browserSession speaks the Chrome DevTools Protocol to one page.
type browserSession struct {
	t       *testing.T
	ws      *websocket.Conn
	session string
	id      int
}

func startChromium(t *testing.T, bin string) *browserSession {
	t.Helper()
	cmd := exec.Command(bin, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-dev-shm-usage", "--remote-debugging-port=0", "--remote-allow-origins=*",
		"--user-data-dir="+t.TempDir(), "about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
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
	b := &browserSession{t: t, ws: ws}
	var target struct{ TargetID string }
	json.Unmarshal(b.call("Target.createTarget", map[string]any{"url": "about:blank"}), &target)
	var att struct{ SessionID string }
	json.Unmarshal(b.call("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &att)
	b.session = att.SessionID
	return b
}

// call sends a command and waits for its answer, ignoring events.
func (b *browserSession) call(method string, params any) json.RawMessage {
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
			b.t.Fatalf("%s: %s", method, res.Error.Message)
		}
		return res.Result
	}
}

// waitEval polls a JavaScript condition in the page for up to 15 s.
func (b *browserSession) waitEval(expr string) {
	b.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var r struct {
			Result struct {
				Value any `json:"value"`
			} `json:"result"`
		}
		json.Unmarshal(b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &r)
		if r.Result.Value == true {
			return
		}
		if time.Now().After(deadline) {
			var href struct {
				Result struct{ Value any } `json:"result"`
			}
			json.Unmarshal(b.call("Runtime.evaluate", map[string]any{"expression": "location.href + ' ' + document.title", "returnByValue": true}), &href)
			b.t.Fatalf("timed out waiting for %s (page: %v)", expr, href.Result.Value)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
