// Package pgtest gives a test its own PostgreSQL database with the real
// migrations applied, on the server scripts/db.sh provides (DATABASE_URL, or
// the repository's private cluster, started if it is not running). The
// database is dropped when the test ends.
//
// It never skips: without a server the test fails, and says why.
package pgtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/internal/repotest"
)

var (
	serverOnce sync.Once
	serverURL  string
	serverErr  error
)

// ServerURL returns the URL of the development server, starting it if
// needed.
func ServerURL() (string, error) {
	serverOnce.Do(func() {
		root, err := repotest.FindRoot()
		if err != nil {
			serverErr = err
			return
		}
		cmd := exec.Command(filepath.Join(root, "scripts", "db.sh"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			serverErr = fmt.Errorf("scripts/db.sh: %v: %s", err, stderr.String())
			return
		}
		serverURL = strings.TrimSpace(string(out))
	})
	return serverURL, serverErr
}

// Empty creates a fresh, empty database (no migrations) on the server and
// returns its URL; it is dropped at the end of the test. Migrating is left
// to the caller, for tests of what migrates it.
func Empty(t testing.TB) string {
	t.Helper()
	base, err := ServerURL()
	if err != nil {
		t.Fatalf("pgtest: no PostgreSQL server: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: connect %s: %v", redact(base), err)
	}
	defer admin.Close(ctx)
	var b [6]byte
	rand.Read(b[:])
	name := "test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	u.Path = "/" + name
	dbURL := u.String()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("pgtest: drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		// FORCE ends our own leftover sessions, but only a superuser may end
		// an autovacuum worker busy in the database: wait for it instead.
		for try := 0; ; try++ {
			_, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			if err == nil {
				return
			}
			if try == 50 {
				t.Logf("pgtest: leaving database %s behind: %v", name, err)
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
	return dbURL
}

// URL creates a fresh database with the migrations applied and returns its
// URL. The database is dropped at the end of the test.
func URL(t testing.TB) string {
	t.Helper()
	dbURL := Empty(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return dbURL
}

// New returns an open, migrated DB on a fresh database, closed at the end
// of the test.
func New(t testing.TB) *postgres.DB {
	t.Helper()
	u := URL(t)
	db, err := postgres.Open(context.Background(), u)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(db.Close)
	return db
}

func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(bad url)"
	}
	return u.Redacted()
}
