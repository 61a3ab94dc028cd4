package postgres_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

// TestHighlightOutcomeMigration writes highlight requests as the schema of
// migration 0004 stored them (an HTTP status and body) and checks that,
// after migration 0005, a retry of each is told what the first attempt did:
// 201 meant something changed, 409 that nothing did.
func TestHighlightOutcomeMigration(t *testing.T) {
	ctx := context.Background()
	u := pgtest.Empty(t)
	db, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := postgres.MigrateTo(ctx, db, 4); err != nil {
		t.Fatal(err)
	}
	reqs := []struct {
		status int
		req    dynamic.HighlightRequest
		want   dynamic.HighlightOutcome
	}{
		{201, dynamic.HighlightRequest{UserID: user, RequestID: uuidN(1), BibleID: 9001, Verses: []string{"JHN.3.16"}, Color: "aabbcc"},
			dynamic.HighlightOutcome{Changed: true}},
		{409, dynamic.HighlightRequest{UserID: user, RequestID: uuidN(2), BibleID: 9001, Verses: []string{"JHN.3.16"}, Color: "aabbcc"},
			dynamic.HighlightOutcome{Changed: false}},
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, r := range reqs {
		if _, err := conn.Exec(ctx, `INSERT INTO highlight_requests (user_id, request_id, status, body, fingerprint)
			VALUES ($1::uuid, $2::uuid, $3, 'stored answer', $4)`, r.req.UserID, r.req.RequestID, r.status, r.req.Fingerprint()); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		got, err := db.CreateHighlights(ctx, r.req)
		if err != nil {
			t.Fatal(err)
		}
		if got != r.want {
			t.Errorf("retry of a request answered %d: got %+v, want %+v", r.status, got, r.want)
		}
	}
	// Retries apply nothing: the stored outcomes answered them.
	if hs, err := db.Highlights(ctx, user, 9001, []string{"JHN.3.16"}); err != nil || len(hs) != 0 {
		t.Errorf("highlights after retries: %+v, %v; want none", hs, err)
	}
}

// TestMigrateConcurrently: several instances starting at once on an empty
// database (a deployment of more than one dynamic) all migrate without an
// error, and each migration is applied once: they take turns under an
// advisory lock.
func TestMigrateConcurrently(t *testing.T) {
	ctx := context.Background()
	u := pgtest.Empty(t)
	const instances = 4
	dbs := make([]*postgres.DB, instances)
	for i := range dbs {
		db, err := postgres.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs[i] = db
	}
	errs := make(chan error, instances)
	start := make(chan struct{})
	for _, db := range dbs {
		go func() {
			<-start
			errs <- db.Migrate(ctx)
		}()
	}
	close(start)
	for range instances {
		if err := <-errs; err != nil {
			t.Errorf("an instance failed to migrate: %v", err)
		}
	}
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows, versions int
	if err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&rows, &versions); err != nil {
		t.Fatal(err)
	}
	if rows != len(files) || versions != len(files) {
		t.Errorf("schema_migrations: %d rows, %d versions; want %d each (one per migration)", rows, versions, len(files))
	}
}
