package dynamic_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/edge"
	"github.com/bibleplatform/platform/publish"
)

// withEdge starts a real edge in process in front of e's dynamic server,
// fed by its /internal/access long poll, and returns the edge's base URL.
func (e *env) withEdge() string {
	ed := startEdge(e.t, e.store, e.srv.URL(), func(cfg *edge.Config) { cfg.DynamicTimeout = 30 * time.Second })
	go ed.access.Run(e.t.Context())
	return ed.url
}

type testEdge struct {
	srv    *edge.Server
	access *edge.AccessWatcher
	url    string
}

// startEdge starts a real edge in process over store, in front of the
// dynamic service at dynamicURL, with mod's changes to its configuration.
// Its access watcher (access) has read the first snapshot but does not run:
// a test that needs access changes runs it. Search reports and trending
// refreshes are left to the test too.
func startEdge(t *testing.T, store publish.Store, dynamicURL string, mod func(*edge.Config)) *testEdge {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := edge.Config{Store: store, Log: log, DynamicURL: dynamicURL, EdgeToken: edgeToken,
		DefaultRate: access.Rate{PerSecond: 1000, Burst: 1000}}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := edge.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	src, err := edge.NewAccessSource(dynamicURL+"/internal/access", edgeToken)
	if err != nil {
		t.Fatal(err)
	}
	aw := &edge.AccessWatcher{Source: src, Server: srv, Log: log, Interval: 100 * time.Millisecond}
	if err := aw.Init(ctx); err != nil {
		t.Fatal(err)
	}
	bw := &edge.BuildWatcher{Store: store, Server: srv, Interval: time.Second, Log: log}
	if err := bw.Check(ctx); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fs := &fasthttp.Server{Handler: srv.Handler, NoDefaultContentType: true}
	go fs.Serve(ln)
	t.Cleanup(func() { fs.Shutdown() })
	return &testEdge{srv: srv, access: aw, url: "http://" + ln.Addr().String()}
}

func throughEdge(t *testing.T, c *http.Client, method, u, key, bearer, body string) resp {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, _ := http.NewRequest(method, u, rd)
	if key != "" {
		r.Header.Set("X-SVC-App-Key", key)
	}
	if bearer != "" {
		r.Header.Set("Authorization", "Bearer "+bearer)
	}
	if strings.HasPrefix(body, "{") {
		r.Header.Set("Content-Type", "application/json")
	} else if body != "" {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{res.StatusCode, res.Header, b}
}

// A key revoked in PostgreSQL is refused by a running edge within 5 s.
func TestRevokedKeyRefusedByEdge(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const key = "bpk_revoke_me"
	h := access.HashKey([]byte(key))
	if _, err := e.db.AddKey(ctx, appID, h[:], "bpk_revo"); err != nil {
		t.Fatal(err)
	}
	base := e.withEdge()
	// The key reaches the edge through the long poll.
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := throughEdge(t, http.DefaultClient, "GET", base+"/v1/apps/"+appID, key, "", "")
		if r.status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("issued key not accepted by the edge: %d %s", r.status, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	revoked := time.Now()
	if err := e.db.RevokeKeyHash(ctx, h[:], revoked); err != nil {
		t.Fatal(err)
	}
	for {
		r := throughEdge(t, http.DefaultClient, "GET", base+"/v1/apps/"+appID, key, "", "")
		if r.status == 401 {
			t.Logf("revoked key refused after %v", time.Since(revoked))
			return
		}
		if time.Since(revoked) > 5*time.Second {
			t.Fatalf("revoked key still answered %d after 5 s", r.status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The whole consent flow through the edge: the app creates a token with
// its key and the user's bearer token, the browser opens the page naming
// the app in the query, approves, lands on the callback, and the app may
// then write highlights.
func TestConsentFlowThroughEdge(t *testing.T) {
	e := newEnv(t)
	const key = "bpk_consent_flow"
	h := access.HashKey([]byte(key))
	if _, err := e.db.AddKey(context.Background(), appID, h[:], "bpk_cons"); err != nil {
		t.Fatal(err)
	}
	base := e.withEdge()
	waitFor(t, func() bool {
		return throughEdge(t, http.DefaultClient, "GET", base+"/v1/apps/"+appID, key, "", "").status == 200
	})
	user := e.token(userID)
	hl := post(9001, "JHN.3.16-17", "ffcc00", rid(7))
	if r := throughEdge(t, http.DefaultClient, "POST", base+"/v1/highlights", key, user, hl); r.status != 403 {
		t.Fatalf("before consent: %d %s", r.status, r.body)
	}
	r := throughEdge(t, http.DefaultClient, "POST", base+"/data-exchange/token", key, user, `{"requested_permissions":["highlights"]}`)
	if r.status != 201 {
		t.Fatalf("token: %d %s", r.status, r.body)
	}
	var tok struct{ Token string }
	r.json(t, &tok)
	b := e.signedIn(userID)
	page := throughEdge(t, b, "GET", base+"/data-exchange?token="+url.QueryEscape(tok.Token)+"&x-svc-app-key="+key, "", "", "")
	if page.status != 200 {
		t.Fatalf("page: %d %s", page.status, page.body)
	}
	action := strings.ReplaceAll(string(formAction.FindSubmatch(page.body)[1]), "&amp;", "&")
	csrf := string(csrfField.FindSubmatch(page.body)[1])
	done := throughEdge(t, b, "POST", base+"/data-exchange"+action, "", "",
		url.Values{"csrf": {csrf}, "decision": {"approve"}}.Encode())
	q := callbackParams(t, done)
	if q.Get("data_exchange_status") != "granted" || q.Get("granted_permissions") != "highlights" {
		t.Fatalf("callback %v", q)
	}
	if r := throughEdge(t, http.DefaultClient, "POST", base+"/v1/highlights", key, user, hl); r.status != 201 {
		t.Fatalf("after consent: %d %s", r.status, r.body)
	}
	r = throughEdge(t, http.DefaultClient, "GET", base+"/v1/highlights?bible_id=9001&passage_id=JHN.3", key, user, "")
	if r.status != 200 || strings.Count(string(r.body), "ffcc00") != 2 {
		t.Errorf("read through the edge: %d %s", r.status, r.body)
	}
	if r := throughEdge(t, http.DefaultClient, "DELETE", base+"/v1/highlights/JHN.3?bible_id=9001", key, user, ""); r.status != 204 || len(r.body) != 0 {
		t.Errorf("delete through the edge: %d %q", r.status, r.body)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
