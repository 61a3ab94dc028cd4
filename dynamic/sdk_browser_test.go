package dynamic_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/edge"
	"github.com/bibleplatform/platform/internal/chromiumtest"
	"github.com/bibleplatform/platform/internal/repotest"
)

// localhostCert is a self-signed certificate for localhost and 127.0.0.1,
// and the base64 SHA-256 of its public key, which Chromium is told to trust.
func localhostCert(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	spki := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, base64.StdEncoding.EncodeToString(spki[:])
}

// writeKeyPair writes cert and its key as PEM files, as an operator hands
// them to the edge.
func writeKeyPair(t *testing.T, cert tls.Certificate) (certFile, keyFile string) {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// sdkModules is acceptance/js/node_modules, installed with npm ci (the
// pinned @youversion/platform-core and zod) unless it was.
func sdkModules(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repotest.Root(t), "acceptance", "js")
	mods := filepath.Join(dir, "node_modules")
	if err := repotest.NPMCI(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	return mods
}

// sdkPage is an app's page that runs the official client's sign-in,
// unmodified: signIn() sends the browser to the platform, and on the way
// back handleAuthCallback() exchanges the code and refreshTokens()
// refreshes.
const sdkPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>SDK sign-in</title>
<script type="importmap">{"imports":{"@youversion/platform-core":"/sdk/index.js","zod":"/zod/index.js"}}</script>
<script type="module">
import { YouVersionPlatformConfiguration as C, YouVersionAPIUsers as U } from "@youversion/platform-core";
C.appKey = %q;
C.apiHost = %q;
window.signIn = () => U.signIn(location.origin + "/callback", ["profile", "email"]);
try {
  const r = await U.handleAuthCallback();
  if (r) {
    window.result = {access: r.accessToken, sub: r.yvpUserId, name: r.name, email: r.email};
    const next = await U.refreshTokens();
    window.result.refreshed = next ? next.accessToken : "";
  }
} catch (e) {
  window.failure = String(e);
}
window.ready = true;
</script></head><body><p>SDK sign-in</p></body></html>`

// The official JavaScript client (@youversion/platform-core 1.28.0, as
// the acceptance suite pins it) signs in against the edge over TLS,
// unmodified, in Chromium: the demo account signs in on the platform's
// page, the client exchanges the code, reads the ID token and refreshes;
// the token it got then writes and reads a highlight (Authorization:
// Bearer; the client's own highlights helper puts the token in the URL,
// which the platform does not accept).
func TestOfficialClientSignsIn(t *testing.T) {
	mods := sdkModules(t)
	s := newSignInEnv(t)
	a := s.account(userID)

	// A real edge terminating TLS itself, configured as --tls-cert,
	// --tls-key and --tls-listen configure it, with a certificate made
	// here that Chromium is told to trust.
	cert, spki := localhostCert(t)
	certFile, keyFile := writeKeyPair(t, cert)
	tlsEdge, err := edge.New(edge.Config{Store: s.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		DynamicURL: s.srv.URL(), EdgeToken: edgeToken, Access: s.srv.URL() + "/internal/access",
		DefaultRate: access.Rate{PerSecond: 1000, Burst: 1000}, IDOnlyRate: access.Rate{PerSecond: 1000, Burst: 1000},
		DynamicTimeout: 30 * time.Second, TLSCertFile: certFile, TLSKeyFile: keyFile, TLSAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tlsEdge.Open(t.Context(), "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tlsEdge.Close() })
	apiHost := strings.Replace(tlsEdge.TLSAddr(), "127.0.0.1", "localhost", 1)

	mux := http.NewServeMux()
	mux.Handle("/sdk/", http.StripPrefix("/sdk/", http.FileServer(http.Dir(filepath.Join(mods, "@youversion", "platform-core", "dist")))))
	mux.Handle("/zod/", http.StripPrefix("/zod/", http.FileServer(http.Dir(filepath.Join(mods, "zod")))))
	page := fmt.Sprintf(sdkPage, signInKey, apiHost)
	serve := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}
	mux.HandleFunc("/{$}", serve)
	mux.HandleFunc("/callback", serve)
	app := httptest.NewServer(mux)
	defer app.Close()
	appURL := strings.Replace(app.URL, "127.0.0.1", "localhost", 1)
	if err := s.db.SetRedirectURIs(t.Context(), appID, []string{appURL + "/callback"}); err != nil {
		t.Fatal(err)
	}

	b := chromiumtest.Start(t, "--ignore-certificate-errors-spki-list="+spki)
	b.Navigate(appURL + "/")
	b.WaitEval(`window.ready === true`)
	b.Eval(`window.signIn()`, nil)
	b.WaitEval(`document.readyState === "complete" && location.pathname === "/auth/sign-in" && !!document.querySelector("#password")`)
	b.Eval(`document.querySelector("#email").value = `+chromiumtest.JSString(a.Email)+`;
		document.querySelector("#password").value = `+chromiumtest.JSString(testPassword)+`;
		document.querySelector("form button[type=submit]").click()`, nil)
	b.WaitEval(`location.pathname === "/callback" && window.ready === true`)
	var got struct {
		Failure string
		Result  struct{ Access, Refreshed, Sub, Name, Email string }
	}
	var raw string
	b.Eval(`JSON.stringify({failure: window.failure || "", result: window.result || {}})`, &raw)
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("page state %q: %v", raw, err)
	}
	if got.Failure != "" || got.Result.Access == "" || got.Result.Refreshed == "" || got.Result.Sub != userID ||
		got.Result.Email != a.Email {
		t.Fatalf("the client's sign-in: %+v", got)
	}

	// The token the client received, through the spec's header, over TLS.
	s.grant(userID, appID)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: func() *x509.CertPool {
		p := x509.NewCertPool()
		p.AddCert(cert.Leaf)
		return p
	}()}}}
	base := "https://" + apiHost
	for i, tok := range []string{got.Result.Access, got.Result.Refreshed} {
		hl := post(9001, "JHN.3.16", "fde68a", rid(40+i))
		want := []int{201, 409}[i]
		if r := throughEdge(t, client, "POST", base+"/v1/highlights", signInKey, tok, hl); r.status != want {
			t.Errorf("highlight with the client's token %d: %d %s", i, r.status, r.body)
		}
	}
	if r := throughEdge(t, client, "GET", base+"/v1/highlights?bible_id=9001&passage_id=JHN.3.16", signInKey, got.Result.Refreshed, ""); r.status != 200 ||
		!strings.Contains(string(r.body), "fde68a") {
		t.Errorf("read back: %d %s", r.status, r.body)
	}
}
