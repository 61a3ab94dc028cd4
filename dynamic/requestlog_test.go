package dynamic_test

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/dynamic"
)

// TestUnreadRequestNotLogged: requests the server cannot parse are logged
// without their bytes, which carry the edge token, App Keys and bearer
// tokens.
func TestUnreadRequestNotLogged(t *testing.T) {
	var buf lockedBuffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	srv, _, _ := plainServer(t, dynamic.Config{Log: log, AccessLog: log})
	const secret = "Bearer-secret-token-value"
	for _, raw := range []string{
		"GET /v1/highlights HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + secret + "\r\nContent-Length: abc\r\n\r\n",
		"GET /v1/highlights HTTP/1.1\r\nHost: x\r\nX-Edge-Token: " + secret + "\r\nBroken header line\r\n\r\n",
		"GET /v1/highlights HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + secret + "\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"POST /v1/highlights HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + secret + "\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n",
	} {
		c, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, raw)
		status, _ := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if !strings.HasPrefix(status, "HTTP/1.1 400 ") {
			t.Errorf("%q: %q, want 400", raw, status)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if out := buf.String(); strings.Contains(out, secret) {
		t.Errorf("the log holds a request's bytes:\n%s", out)
	}
}

// TestLargeBearerToken: a bearer token of 8 KiB, as identity providers
// issue with many claims, reaches the token check (401 invalid_token), not
// a 431 for the headers' size.
func TestLargeBearerToken(t *testing.T) {
	e := newEnv(t)
	r := e.do(req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3", bearer: "Bearer " + strings.Repeat("a", 8<<10)})
	if r.status != 401 || !strings.Contains(r.header.Get("WWW-Authenticate"), "invalid_token") {
		t.Errorf("8 KiB bearer token: %d %q %s, want 401 invalid_token", r.status, r.header.Get("WWW-Authenticate"), r.body)
	}
}
