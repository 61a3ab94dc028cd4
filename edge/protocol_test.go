package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bibleplatform/platform/wire"
)

// syncBuffer is a log destination the server's goroutines share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// openTestEdge opens an edge as cmd/edge does (Open: the real fasthttp
// server on a loopback TCP port) over the shared store and an access file
// of the test snapshot; mod adjusts the configuration first.
func openTestEdge(t *testing.T, mod func(*Config)) *Server {
	t.Helper()
	store, _ := sharedStore(t)
	dir := t.TempDir()
	cfg := Config{Store: store, Access: writeAccessFile(t, dir), AccessCache: filepath.Join(dir, "cache.json")}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Open(context.Background(), "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// writeAccessFile writes the test snapshot into dir as an access file.
func writeAccessFile(t *testing.T, dir string) string {
	t.Helper()
	b, err := json.Marshal(testSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "access.json")
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// rawExchange writes req on a new TCP connection to addr and returns what
// came back until the server closed the connection or a second passed.
func rawExchange(t *testing.T, addr, req string) (answer string, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(time.Second))
	b, err := io.ReadAll(c)
	var ne net.Error
	timedOut := errors.As(err, &ne) && ne.Timeout()
	return string(b), !timedOut
}

// A request that fails to parse is never logged with its bytes: they
// carry the App Key and the user's bearer token.
func TestUnparsableRequestNotLogged(t *testing.T) {
	var logs syncBuffer
	srv := openTestEdge(t, func(c *Config) { c.Log = slog.New(slog.NewTextHandler(&logs, nil)) })
	const bearer = "eyJhbGciOiJSUzI1NiJ9.secret-bearer-token"
	for _, req := range []string{
		"GET /v1/bibles HTTP/1.1\r\nHost: a\r\nX-SVC-App-Key: " + keyDemo + "\r\nAuthorization: Bearer " + bearer + "\r\nX-Bad: \x01\r\n\r\n",
		"GET /v1/bibles HTTP/1.1\r\nHost: a\r\nX-SVC-App-Key: " + keyDemo + "\r\nAuthorization: Bearer " + bearer + "\r\nno colon here\r\n\r\n",
		"GET /v1/bibles HTTP/1.1\r\nHost: a\r\nX-SVC-App-Key: " + keyDemo + "\r\nAuthorization: Bearer " + bearer + "\r\nTransfer-Encoding: gzip\r\n\r\n",
	} {
		answer, _ := rawExchange(t, srv.Addr(), req)
		if !strings.HasPrefix(answer, "HTTP/1.1 400") {
			t.Errorf("answer to %q = %q, want 400", req, answer)
		}
	}
	srv.Close()
	got := logs.String()
	if !strings.Contains(got, "http server") {
		t.Fatalf("the server logged nothing of the unparsable requests:\n%s", got)
	}
	for _, secret := range []string{keyDemo, bearer} {
		if strings.Contains(got, secret) {
			t.Errorf("the log carries %q:\n%s", secret, got)
		}
	}
}

// A bearer token of several KB, as identity providers issue, reaches
// dynamic instead of a 431.
func TestLargeBearerTokenForwarded(t *testing.T) {
	up := &upstream{}
	ts := httptest.NewServer(up)
	defer ts.Close()
	srv := openTestEdge(t, func(c *Config) { c.DynamicURL, c.EdgeToken = ts.URL, "edge-secret" })
	token := strings.Repeat("x", 6000)
	req, _ := http.NewRequest("GET", "http://"+srv.Addr()+"/v1/licenses", nil)
	req.Header.Set("X-SVC-App-Key", keyDemo)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("GET with a 6 KB bearer token = %d, want dynamic's 201", resp.StatusCode)
	}
	// The edge's own requests to dynamic (trending) reach it too.
	seen, uris := up.got()
	forwarded := 0
	for i, u := range uris {
		if u == "/v1/licenses" {
			forwarded++
			if got := seen[i].Get("Authorization"); got != "Bearer "+token {
				t.Errorf("dynamic got an Authorization of %d bytes, want %d", len(got), len("Bearer "+token))
			}
		}
	}
	if forwarded != 1 {
		t.Errorf("dynamic got %d requests for /v1/licenses, want 1", forwarded)
	}
}

// A request with both Content-Length and Transfer-Encoding is answered
// 400 with Connection: close, and the connection is closed (RFC 9112
// §6.3): what follows on it cannot be told from the body. The request
// that follows the chunked body here is never answered.
func TestAmbiguousFramingClosesConnection(t *testing.T) {
	srv := openTestEdge(t, nil)
	next := "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"
	for _, req := range []string{
		"POST /v1/highlights HTTP/1.1\r\nHost: a\r\nX-SVC-App-Key: " + keyDemo + "\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + next,
		"POST /v1/highlights HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 40\r\n\r\n0\r\n\r\n" + next,
	} {
		answer, closed := rawExchange(t, srv.Addr(), req)
		if !strings.HasPrefix(answer, "HTTP/1.1 400") || !strings.Contains(answer, "\r\nConnection: close\r\n") {
			t.Errorf("answer to %q =\n%s\nwant 400 with Connection: close", req, answer)
		}
		if !closed {
			t.Errorf("connection still open after %q", req)
		}
		if n := strings.Count(answer, "HTTP/1.1 "); n != 1 {
			t.Errorf("%d answers on the connection, want 1:\n%s", n, answer)
		}
	}
	// Either field alone is served as before.
	answer, _ := rawExchange(t, srv.Addr(), "GET /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	if !strings.HasPrefix(answer, "HTTP/1.1 200") {
		t.Errorf("a plain request after them: %q", answer)
	}
}

// An edge whose token dynamic refuses says so in its log and on /readyz,
// not as an edge still starting.
func TestEdgeTokenRejectedNamed(t *testing.T) {
	dyn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(wire.AppendFault(nil, wire.FaultInvalidEdgeToken))
	}))
	defer dyn.Close()
	var logs syncBuffer
	srv := openTestEdge(t, func(c *Config) {
		c.Access, c.AccessCache, c.EdgeToken = dyn.URL+"/internal/access", "", "wrong"
		c.Poll = 50 * time.Millisecond
		c.Log = slog.New(slog.NewTextHandler(&logs, nil))
	})
	resp, err := http.Get("http://" + srv.Addr() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(body), "edge token rejected by dynamic") {
		t.Errorf("/readyz = %d %q, want 503 naming the rejected edge token", resp.StatusCode, body)
	}
	if !strings.Contains(logs.String(), "edge token rejected by dynamic") {
		t.Errorf("the log does not name the rejected edge token:\n%s", logs.String())
	}
}

// A forwarded request carries the id of the edge's access-log line as
// X-Request-Id, never the client's.
func TestGatewayRequestID(t *testing.T) {
	up := &upstream{}
	ts := httptest.NewServer(up)
	defer ts.Close()
	var logs syncBuffer
	e := newTestEdge(t, func(c *Config) {
		c.DynamicURL, c.EdgeToken = ts.URL, "edge-secret"
		c.AccessLog = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	resp, _ := e.do(t, "POST", "/v1/highlights", demo, "X-Request-Id: forged", "x-request-id: forged-too")
	if resp.StatusCode != 201 {
		t.Fatalf("POST = %d, want dynamic's 201", resp.StatusCode)
	}
	seen, _ := up.got()
	got := seen[0].Values("X-Request-Id")
	var line struct {
		ID   uint64 `json:"id"`
		Path string `json:"path"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(logs.String())), &line); err != nil || line.Path != "/v1/highlights" {
		t.Fatalf("access log %q: %v", logs.String(), err)
	}
	if want := strconv.FormatUint(line.ID, 10); len(got) != 1 || got[0] != want {
		t.Errorf("X-Request-Id upstream = %q, want [%s] (the access log's id)", got, want)
	}
}
