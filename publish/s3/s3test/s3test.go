// Package s3test gives tests a real MinIO: the server named by
// S3_TEST_ENDPOINT when that is set, otherwise one started for the test
// through the project's scripts/minio.sh (which builds the pinned server
// once and caches it). There is no fake S3.
//
// When MinIO cannot be had, a test is skipped on a developer machine and
// fails in CI (CI=true): CI must never silently skip the S3 suite.
package s3test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/bibleplatform/platform/internal/repotest"
	s3store "github.com/bibleplatform/platform/publish/s3"
)

// Server is a running MinIO.
type Server struct {
	Endpoint  string // host:port
	AccessKey string
	SecretKey string
	// External is true for a server named by S3_TEST_ENDPOINT: this
	// process neither started it nor may stop it.
	External bool

	dir     string // the script's state directory for a server we started
	script  string
	cleanup bool // the watchdog removes dir when the test binary exits
}

// Start returns a MinIO for t. A server it starts is stopped when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	if ep := os.Getenv("S3_TEST_ENDPOINT"); ep != "" {
		s := &Server{Endpoint: ep, External: true,
			AccessKey: firstEnv("AWS_ACCESS_KEY_ID", "MINIO_ROOT_USER"),
			SecretKey: firstEnv("AWS_SECRET_ACCESS_KEY", "MINIO_ROOT_PASSWORD")}
		if s.AccessKey == "" || s.SecretKey == "" {
			unavailable(t, fmt.Errorf("S3_TEST_ENDPOINT=%s but no AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY", ep))
		}
		return s
	}
	root, err := repotest.FindRoot()
	if err != nil {
		unavailable(t, err)
	}
	s := &Server{dir: t.TempDir(), script: filepath.Join(root, "scripts", "minio.sh")}
	if err := s.start(); err != nil {
		unavailable(t, err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("stop minio: %v", err)
		}
	})
	return s
}

// Shared returns a server for the whole test binary, started on first use.
// It is for tests that only need buckets (each takes its own with
// NewBucket or Store): starting MinIO costs seconds, a bucket
// milliseconds. The script's watchdog stops it and removes its data when
// the test binary exits. Tests that stop or restart a server use Start.
func Shared(t testing.TB) *Server {
	t.Helper()
	if os.Getenv("S3_TEST_ENDPOINT") != "" {
		return Start(t)
	}
	shared.once.Do(func() {
		root, err := repotest.FindRoot()
		if err != nil {
			shared.err = err
			return
		}
		dir, err := os.MkdirTemp("", "s3test-minio-")
		if err != nil {
			shared.err = err
			return
		}
		s := &Server{dir: dir, script: filepath.Join(root, "scripts", "minio.sh"), cleanup: true}
		if shared.err = s.start(); shared.err == nil {
			shared.srv = s
		}
	})
	if shared.err != nil {
		unavailable(t, shared.err)
	}
	return shared.srv
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

func (s *Server) start() error {
	t0 := time.Now()
	cmd := exec.Command("bash", s.script, "start", s.dir)
	// The watchdog in the script stops the server if this test binary
	// dies without running its cleanups (a timeout panic, a kill).
	cmd.Env = append(os.Environ(), "MINIO_OWNER_PID="+strconv.Itoa(os.Getpid()))
	if s.cleanup {
		cmd.Env = append(cmd.Env, "MINIO_OWNER_CLEANUP=1")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("scripts/minio.sh start: %w\n%s", err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "S3_TEST_ENDPOINT":
			s.Endpoint = v
		case "AWS_ACCESS_KEY_ID":
			s.AccessKey = v
		case "AWS_SECRET_ACCESS_KEY":
			s.SecretKey = v
		}
	}
	if s.Endpoint == "" || s.AccessKey == "" || s.SecretKey == "" {
		return fmt.Errorf("scripts/minio.sh start printed no endpoint and credentials:\n%s\n%s", out, stderr.Bytes())
	}
	if d := time.Since(t0); d > 10*time.Second {
		// The first run builds the server; say so, so that a slow test
		// is not a mystery.
		fmt.Fprintf(os.Stderr, "s3test: minio ready after %s (includes building it once)\n", d.Round(time.Second))
	}
	return nil
}

func (s *Server) stop() error {
	if s.External {
		return nil
	}
	out, err := exec.Command("bash", s.script, "stop", s.dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("scripts/minio.sh stop: %w\n%s", err, out)
	}
	return nil
}

// Stop stops the server (to test outages). Its data stays; Restart brings
// it back on the same endpoint.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if s.External {
		t.Fatal("s3test: cannot stop the external server named by S3_TEST_ENDPOINT")
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
}

// Restart starts a stopped server again on the same endpoint and data.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if s.External {
		t.Fatal("s3test: cannot restart the external server named by S3_TEST_ENDPOINT")
	}
	ep := s.Endpoint
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	if s.Endpoint != ep {
		t.Fatalf("s3test: restarted on %s, not on %s (the port was taken)", s.Endpoint, ep)
	}
}

// Env is the environment a child process (the publish or edge binary)
// needs to reach the server: the credentials the store's chain reads.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey}
}

// Creds are the server's credentials, for s3store.New.
func (s *Server) Creds() *credentials.Credentials {
	return credentials.NewStaticV4(s.AccessKey, s.SecretKey, "")
}

// URL is the s3:// URL of bucket/prefix on this server.
func (s *Server) URL(bucket, prefix string) string {
	return s3store.Config{Bucket: bucket, Prefix: prefix, Endpoint: s.Endpoint, Secure: false}.String()
}

// NewBucket creates an empty bucket with a fresh name. It is removed
// (with its objects) when t ends, so that an external server does not fill
// up.
func (s *Server) NewBucket(t testing.TB) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	name := "test-" + hex.EncodeToString(b[:])
	c, err := minio.New(s.Endpoint, &minio.Options{Creds: s.Creds()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.MakeBucket(ctx, name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket %s on %s: %v", name, s.Endpoint, err)
	}
	t.Cleanup(func() {
		// Best effort: when the test stopped the server, it is gone anyway.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c.RemoveBucketWithOptions(ctx, name, minio.RemoveBucketOptions{ForceDelete: true})
	})
	return name
}

// Store returns a store on a new empty bucket, under prefix ("" for the
// bucket's root).
func (s *Server) Store(t testing.TB, prefix string) *s3store.Store {
	t.Helper()
	cfg, err := s3store.ParseURL(s.URL(s.NewBucket(t), prefix))
	if err != nil {
		t.Fatal(err)
	}
	st, err := s3store.New(cfg, s.Creds())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("MinIO unavailable in CI (where S3 tests must run): %v", err)
	}
	t.Skipf("MinIO unavailable (set S3_TEST_ENDPOINT or let scripts/minio.sh build it): %v", err)
}

func firstEnv(keys ...string) string {
	for _, k := range keys {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return ""
}
