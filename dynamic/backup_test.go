package dynamic_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

// TestBackupRestore follows docs/deploy.md's backup and restore: pg_dump
// of a live database in the custom format, pg_restore into a new, empty
// database, and a dynamic started on the restored one answers the
// highlight stored before the dump, for the same user and app.
func TestBackupRestore(t *testing.T) {
	e := newEnv(t)
	e.grant(userID, appID)
	if r := e.do(req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.16", "ffcc00", rid(1))}); r.status != 201 {
		t.Fatalf("store a highlight: %d %s", r.status, r.body)
	}
	read := req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3", user: userID}
	const want = `{"data":[{"bible_id":9001,"passage_id":"JHN.3.16","color":"ffcc00"}]}`
	if r := e.do(read); r.status != 200 || string(r.body) != want {
		t.Fatalf("before the backup: %d %s, want 200 %s", r.status, r.body, want)
	}

	dump := filepath.Join(t.TempDir(), "dynamic.dump")
	pgTool(t, "pg_dump", "--format=custom", "--file="+dump, "--dbname="+e.dbURL)
	restored := pgtest.Empty(t)
	pgTool(t, "pg_restore", "--exit-on-error", "--no-owner", "--dbname="+restored, dump)

	ctx := context.Background()
	db, err := postgres.Open(ctx, restored)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// As serve does: a restored database is already at the latest
	// migration, so this changes nothing.
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate the restored database: %v", err)
	}
	srv := dynamic.New(dynamic.Config{DB: db, Store: e.store, EdgeToken: edgeToken, Now: e.clock.Now, Users: e.users})
	if err := srv.Open(ctx, "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	after := *e
	after.srv = srv
	if r := after.do(read); r.status != 200 || string(r.body) != want {
		t.Errorf("after the restore: %d %s, want 200 %s", r.status, r.body, want)
	}
}

// pgTool runs one of PostgreSQL's client programs, failing the test with
// its output.
func pgTool(t *testing.T, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}
