package dynamic_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

// TestReadyz: /readyz answers 200 while PostgreSQL and the content store
// serve, and 503 naming the one that does not, without an edge token (it
// is the operator's probe).
func TestReadyz(t *testing.T) {
	ctx := context.Background()
	srv, dbURL, store := plainServer(t, dynamic.Config{})
	probe := func() (int, string) {
		t.Helper()
		r, err := http.Get(srv.URL() + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b)
	}
	build, err := store.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := probe(); code != http.StatusOK || !strings.Contains(body, build) {
		t.Errorf("all up: %d %q, want 200 naming build %s", code, body, build)
	}

	// The store points at a build whose manifest cannot be read.
	if err := store.SetCurrent(ctx, "missing-build"); err != nil {
		t.Fatal(err)
	}
	if code, body := probe(); code != http.StatusServiceUnavailable || !strings.Contains(body, "content store") {
		t.Errorf("store broken: %d %q, want 503 naming the content store", code, body)
	}
	if err := store.SetCurrent(ctx, build); err != nil {
		t.Fatal(err)
	}
	if code, body := probe(); code != http.StatusOK {
		t.Errorf("store back: %d %q, want 200", code, body)
	}

	// PostgreSQL refuses this database's connections (and ends the ones
	// open), as a server down or failed over would.
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	server, err := pgtest.ServerURL()
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	allow := func(on bool) {
		t.Helper()
		if _, err := admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s ALLOW_CONNECTIONS %t", name, on)); err != nil {
			t.Fatal(err)
		}
	}
	allow(false)
	// The server's sessions in the database, not an autovacuum worker
	// that may be at work in it: only a superuser may end one, and the
	// server's probe does not go through it.
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`, name); err != nil {
		t.Fatal(err)
	}
	if code, body := probe(); code != http.StatusServiceUnavailable || !strings.Contains(body, "PostgreSQL") {
		t.Errorf("database down: %d %q, want 503 naming PostgreSQL", code, body)
	}
	allow(true)
	if code, body := probe(); code != http.StatusOK {
		t.Errorf("database back: %d %q, want 200", code, body)
	}
}
