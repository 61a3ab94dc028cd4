package acceptance

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
	"github.com/bibleplatform/platform/edge"
	"github.com/bibleplatform/platform/publish"
)

// demo is what scripts/run.sh writes to $RUN_DIR/demo.json once the stack
// is ready.
type demo struct {
	BaseURL           string `json:"base_url"`
	AppKey            string `json:"app_key"`
	AppID             string `json:"app_id"`
	ArchivedAppKey    string `json:"archived_app_key"`
	UnlicensedAppKey  string `json:"unlicensed_app_key"`
	UnlicensedBibleID int    `json:"unlicensed_bible_id"`
	UserToken         string `json:"user_token"`
	UserID            string `json:"user_id"`
	AccountEmail      string `json:"account_email"`
	AccountPassword   string `json:"account_password"`
	RedirectURI       string `json:"redirect_uri"`
}

// stack is one run of scripts/run.sh: PostgreSQL (a database of its own),
// dynamic and the edge, started exactly as `make run` starts them.
type stack struct {
	demo   demo
	runDir string
	store  string // what STORE was: a directory or an s3:// URL
	cmd    *exec.Cmd
	done   chan error
}

// buildBinaries runs what `make build` runs, so that the stack never serves
// binaries older than the source under test (go's build cache makes this
// cheap when nothing changed).
func buildBinaries(t testing.TB, root string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", "bin/", "./cmd/...", "./examples/signin")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -o bin/ ./cmd/...: %v\n%s", err, out)
	}
}

// freePort asks the kernel for a port that is free right now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startStack runs scripts/run.sh with free ports, its own RUN_DIR and a
// fresh database, waits for demo.json with the user token in it (run.sh
// writes it last, after /readyz answered) and stops the script with SIGTERM
// when the test ends: run.sh then stops dynamic and the edge itself.
func startStack(t testing.TB, root, store string, extraEnv []string) *stack {
	t.Helper()
	runDir := t.TempDir()
	if store == "" {
		store = filepath.Join(runDir, "store")
	}
	env := []string{
		"PORT=" + strconv.Itoa(freePort(t)),
		"DYNAMIC_PORT=" + strconv.Itoa(freePort(t)),
		"RUN_DIR=" + runDir,
		"STORE=" + store,
	}
	if !slices.ContainsFunc(extraEnv, func(kv string) bool { return strings.HasPrefix(kv, "DATABASE_URL=") }) {
		// Empty on purpose: migrating is part of what run.sh does.
		env = append(env, "DATABASE_URL="+pgtest.Empty(t))
	}
	cmd := exec.Command("bash", "scripts/run.sh")
	cmd.Dir = root
	cmd.Env = append(append(cleanEnv(), env...), extraEnv...)
	logf, err := os.Create(filepath.Join(runDir, "run.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group, so that a run.sh that ignores SIGTERM can
	// still be ended with everything it started, and nothing else.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start scripts/run.sh: %v", err)
	}
	s := &stack{runDir: runDir, store: store, cmd: cmd, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait(); logf.Close() }()
	t.Cleanup(func() { s.stop(t) })

	deadline := time.Now().Add(4 * time.Minute)
	for {
		if b, err := os.ReadFile(filepath.Join(runDir, "demo.json")); err == nil {
			var d demo
			if json.Unmarshal(b, &d) == nil && d.UserToken != "" && d.BaseURL != "" {
				s.demo = d
				return s
			}
		}
		select {
		case err := <-s.done:
			s.done <- err
			t.Fatalf("scripts/run.sh exited before the stack was ready (%v):\n%s", err, s.logs())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stack was not ready within 4 minutes:\n%s", s.logs())
		}
	}
}

// cleanEnv is the test's environment without the variables run.sh and the
// binaries read, so that a developer's shell cannot point the stack
// elsewhere.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "EDGE_"), strings.HasPrefix(k, "DYNAMIC_"),
			k == "PORT", k == "CONTENT", k == "RUN_DIR", k == "STORE", k == "DATABASE_URL":
			continue
		}
		out = append(out, kv)
	}
	return out
}

func (s *stack) stop(t testing.TB) {
	if s.cmd.Process == nil {
		return
	}
	select {
	case err := <-s.done:
		s.done <- err
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case err = <-s.done:
	case <-time.After(20 * time.Second):
		t.Logf("scripts/run.sh did not stop within 20 s of SIGTERM; killing its process group")
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		err = <-s.done
	}
	s.done <- err // stopped: a second stop returns at once
}

// logs is the tail of run.sh's output and of the services' logs, for a
// failure message.
func (s *stack) logs() string {
	var b strings.Builder
	for _, name := range []string{"run.log", "edge.log", "dynamic.log"} {
		if out, ok := tail(filepath.Join(s.runDir, name)); ok {
			b.WriteString(out + "\n")
		}
	}
	return b.String()
}

// tlsEdge is a second edge over the stack's store with HTTPS on, for the
// 308 rule: run.sh serves plain HTTP only.
type tlsEdge struct {
	plain, secure string // base URLs
	caPool        *x509.CertPool
}

// startTLSEdge opens an edge in process with a self-signed certificate for
// 127.0.0.1, reading the access data from the fixture snapshot (the keys in
// demo.json are the fixture's keys).
func startTLSEdge(t testing.TB, root, store string) (*tlsEdge, error) {
	t.Helper()
	dir := t.TempDir()
	certPEM, keyPEM, err := selfSigned()
	if err != nil {
		return nil, err
	}
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, certPEM, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(key, keyPEM, 0o600); err != nil {
		return nil, err
	}
	st, err := publish.OpenDir(store)
	if err != nil {
		return nil, err
	}
	logs := &syncWriter{}
	srv, err := edge.New(edge.Config{
		Store:       st,
		Log:         slog.New(slog.NewTextHandler(logs, nil)),
		Access:      filepath.Join(root, "fixtures", "access.json"),
		AccessCache: filepath.Join(dir, "access-cache.json"),
		TLSCertFile: cert, TLSKeyFile: key, TLSAddr: "127.0.0.1:0",
	})
	if err != nil {
		return nil, err
	}
	if err := srv.Open(context.Background(), "127.0.0.1:0"); err != nil {
		return nil, err
	}
	t.Cleanup(func() { srv.Close() })
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	e := &tlsEdge{
		plain:  "http://" + srv.Addr(),
		secure: "https://" + srv.TLSAddr(),
		caPool: pool,
	}
	// /readyz is not redirected, so load balancers can probe it over
	// plain HTTP (docs/edge.md); it is the readiness signal here too.
	for deadline := time.Now().Add(30 * time.Second); ; {
		if r, err := http.Get(e.plain + "/readyz"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return e, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, errors.New("edge with TLS not ready within 30 s:\n" + logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// syncWriter keeps a log written from several goroutines, for a failure
// message.
type syncWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// selfSigned makes a short-lived ECDSA certificate for 127.0.0.1.
func selfSigned() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "acceptance"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("self-signed certificate key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}

func tlsConfig(pool *x509.CertPool) *tls.Config {
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}
