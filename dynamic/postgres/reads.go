package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Highlight reads are batched: while a read is on its way to PostgreSQL,
// the reads that arrive meanwhile queue, and the next statement answers all
// of them at once. A statement costs PostgreSQL and both ends of the
// connection about the same whether it looks up one passage or fifty (a
// round trip, two system calls a side, the executor's start and end), so
// under load a read costs a fraction of a statement; with nothing else in
// flight a read is a statement of its own, sent at once by its caller, so
// batching never waits for company. Each read's statement is sent after the
// read was asked for, so it sees every write committed before: a user reads
// their own writes.
const (
	// readStatements is how many batch statements may run at once, each on
	// one pooled connection. Two keep PostgreSQL busy while the other batch
	// is on the wire; more make smaller batches: with 64 clients on two
	// cores, four cost PostgreSQL twice the CPU per read that two do
	// (docs/dynamic.md, Benchmark).
	readStatements = 2
	// readTimeout bounds a batch statement: it answers many requests, so
	// it does not run on any one caller's context.
	readTimeout = 30 * time.Second
)

// readSQL looks up each (user, Bible, passage range) of the batch with one
// range scan of the primary key; n numbers the ranges from 1. OFFSET 0 keeps
// the lateral subquery from being flattened into a join that the planner
// might run as a hash join over the whole table.
const readSQL = `SELECT q.n, h.passage_id, h.color
FROM unnest($1::uuid[], $2::integer[], $3::text[], $4::text[]) WITH ORDINALITY AS q (user_id, bible_id, lo, hi, n)
CROSS JOIN LATERAL (
	SELECT passage_id, color FROM highlights
	WHERE user_id = q.user_id AND bible_id = q.bible_id
		AND passage_id >= q.lo COLLATE "C" AND passage_id < q.hi COLLATE "C"
	OFFSET 0
) h`

// rangeRead is one read: the user's highlights in one Bible whose passage
// ids lie in [lo, hi).
type rangeRead struct {
	user   string
	bible  int32
	lo, hi string

	rows []highlightRow
	err  error
	done chan struct{} // closed when rows and err are set
}

type highlightRow struct{ passage, color string }

// readBatcher queues reads and runs them as batch statements.
type readBatcher struct {
	db *DB

	mu      sync.Mutex
	pending []*rangeRead
	running int // batch statements running or about to
}

// read answers r, in a batch with whatever other reads are waiting. When
// fewer than readStatements batches are running, the caller runs one
// itself; otherwise it waits for a running batch to take r next.
func (b *readBatcher) read(ctx context.Context, r *rangeRead) error {
	r.done = make(chan struct{})
	b.mu.Lock()
	b.pending = append(b.pending, r)
	lead := b.running < readStatements
	if lead {
		b.running++
	}
	b.mu.Unlock()
	if lead {
		b.drain()
	}
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		// The batch goes on for the others; r is dropped when it ends.
		return ctx.Err()
	}
}

// drain runs one batch of everything pending. If more reads queued while it
// ran, a new goroutine runs the next batch, so that the caller, whose read
// was in this one, answers at once.
func (b *readBatcher) drain() {
	b.mu.Lock()
	batch := b.pending
	b.pending = nil
	b.mu.Unlock()
	if len(batch) > 0 {
		b.run(batch)
	}
	b.mu.Lock()
	if len(b.pending) == 0 {
		b.running--
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	go b.drain()
}

// run answers a batch with one statement.
func (b *readBatcher) run(batch []*rangeRead) {
	users := make([]string, len(batch))
	bibles := make([]int32, len(batch))
	los := make([]string, len(batch))
	his := make([]string, len(batch))
	for i, r := range batch {
		users[i], bibles[i], los[i], his[i] = r.user, r.bible, r.lo, r.hi
	}
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	var n int64
	var passage, color string
	rows, err := b.db.pool.Query(ctx, readSQL, users, bibles, los, his)
	if err == nil {
		_, err = pgx.ForEachRow(rows, []any{&n, &passage, &color}, func() error {
			r := batch[n-1]
			r.rows = append(r.rows, highlightRow{passage, color})
			return nil
		})
	}
	err = translate(err, "read highlights")
	for _, r := range batch {
		if err != nil {
			r.rows, r.err = nil, err
		}
		close(r.done)
	}
}
