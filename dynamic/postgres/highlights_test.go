package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
)

// TestHighlightsExactVersesInOrder checks the range scan behind Highlights:
// rows that share the verses' prefix but are not asked for (JHN.3.10 for
// JHN.3.1), other users' and other Bibles' rows stay out, and the answer is
// in the order of the verses asked for, not in byte order.
func TestHighlightsExactVersesInOrder(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	const other = "9d3e2b1a-0000-4000-8000-0000000000ff"
	seed := []struct {
		user   string
		bible  int32
		verses []string
	}{
		{user, 9001, []string{"JHN.3.1", "JHN.3.2", "JHN.3.10", "JHN.3.16", "JHN.4.1", "JHN.31.1", "1JN.3.1", "JHN.3"}},
		{other, 9001, []string{"JHN.3.3"}},
		{user, 9002, []string{"JHN.3.4"}},
	}
	for i, s := range seed {
		req := dynamic.HighlightRequest{UserID: s.user, RequestID: uuidN(i + 1), BibleID: s.bible, Verses: s.verses, Color: "aabbcc"}
		if _, err := db.CreateHighlights(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		verses []string
		want   []string
	}{
		{"one verse, a prefix of others", []string{"JHN.3.1"}, []string{"JHN.3.1"}},
		{"chapter in verse order", []string{"JHN.3.1", "JHN.3.2", "JHN.3.3", "JHN.3.4", "JHN.3.10", "JHN.3.16"},
			[]string{"JHN.3.1", "JHN.3.2", "JHN.3.10", "JHN.3.16"}},
		{"range across chapters", []string{"JHN.3.16", "JHN.3.17", "JHN.4.1"}, []string{"JHN.3.16", "JHN.4.1"}},
		{"none", []string{"JHN.3.5", "JHN.3.6"}, nil},
		{"empty", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs, err := db.Highlights(ctx, user, 9001, tc.verses)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hs {
				if h.BibleID != 9001 || h.Color != "aabbcc" {
					t.Errorf("got %+v", h)
				}
				got = append(got, h.PassageID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestReadsBatched holds the highlights table locked so that reads pile up
// behind the statements already sent, then checks that the reads that
// queued meanwhile were answered together and that every reader got exactly
// its own highlights: other users' rows in the same statement stay out.
func TestReadsBatched(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	db, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const readers = 40
	users := make([]string, readers)
	for i := range users {
		users[i] = fmt.Sprintf("9d3e2b1a-0000-4000-8000-%012d", i)
		req := dynamic.HighlightRequest{UserID: users[i], RequestID: uuidN(i + 1), BibleID: 9001,
			Verses: []string{fmt.Sprintf("JHN.3.%d", i%25+1)}, Color: fmt.Sprintf("%06x", i)}
		if _, err := db.CreateHighlights(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	verses := make([]string, 25)
	for v := range verses {
		verses[v] = fmt.Sprintf("JHN.3.%d", v+1)
	}

	lock, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close(ctx)
	tx, err := lock.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE highlights IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	// Another connection watches: inside the locking transaction,
	// pg_stat_activity would stay as it was at its first read.
	watch, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	got := make([][]dynamic.Highlight, readers)
	errs := make([]error, readers)
	var wg sync.WaitGroup
	read := func(i int) {
		wg.Go(func() { got[i], errs[i] = db.Highlights(ctx, users[i], 9001, verses) })
	}
	// waitFor polls until cond holds (or ten seconds have passed).
	waitFor := func(cond func() bool) {
		for deadline := time.Now().Add(10 * time.Second); !cond() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	}
	// First as many reads as statements may run, one by one: each sends
	// its own statement, which waits for the lock.
	var waiting int
	for i := range postgres.ReadStatements {
		read(i)
		waitFor(func() bool {
			err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
			return err == nil && waiting == i+1
		})
		if waiting != i+1 {
			t.Fatalf("%d statements wait for the lock, want %d", waiting, i+1)
		}
	}
	// Every later read queues for the next batch.
	for i := postgres.ReadStatements; i < readers; i++ {
		read(i)
	}
	want := readers - postgres.ReadStatements
	waitFor(func() bool { return postgres.PendingReads(db) == want })
	if n := postgres.PendingReads(db); n != want {
		t.Errorf("%d reads queued behind %d statements, want %d", n, postgres.ReadStatements, want)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i := range readers {
		want := []dynamic.Highlight{{BibleID: 9001, PassageID: fmt.Sprintf("JHN.3.%d", i%25+1), Color: fmt.Sprintf("%06x", i)}}
		if errs[i] != nil || !slices.Equal(got[i], want) {
			t.Errorf("reader %d: got %+v, %v; want %+v", i, got[i], errs[i], want)
		}
	}
}

// TestReadsSeeWrites reads each highlight right after writing it, from
// many goroutines at once, so that reads share batch statements with
// other users' reads: every read must see its own write (read-your-writes).
func TestReadsSeeWrites(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			u := fmt.Sprintf("9d3e2b1a-0000-4000-8000-%012d", w)
			for i := range 25 {
				v := fmt.Sprintf("JHN.3.%d", i+1)
				req := dynamic.HighlightRequest{UserID: u, RequestID: uuidN(w*100 + i + 1), BibleID: 9001,
					Verses: []string{v}, Color: "abcdef"}
				if _, err := db.CreateHighlights(ctx, req); err != nil {
					t.Error(err)
					return
				}
				hs, err := db.Highlights(ctx, u, 9001, []string{"JHN.3.1", "JHN.3.2", "JHN.3.3", "JHN.3.4", "JHN.3.5",
					"JHN.3.6", "JHN.3.7", "JHN.3.8", "JHN.3.9", "JHN.3.10", "JHN.3.11", "JHN.3.12", "JHN.3.13",
					"JHN.3.14", "JHN.3.15", "JHN.3.16", "JHN.3.17", "JHN.3.18", "JHN.3.19", "JHN.3.20", "JHN.3.21",
					"JHN.3.22", "JHN.3.23", "JHN.3.24", "JHN.3.25"})
				if err != nil || len(hs) != i+1 || hs[i].PassageID != v {
					t.Errorf("user %d after writing %s read %+v, %v", w, v, hs, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
