package postgres

import "context"

// MigrateTo applies the migrations up to version last, for tests of what a
// later migration does to rows written under an earlier schema.
func MigrateTo(ctx context.Context, db *DB, last int) error { return db.migrate(ctx, last) }

// PendingReads is how many highlight reads wait for a batch statement.
func PendingReads(db *DB) int {
	db.reads.mu.Lock()
	defer db.reads.mu.Unlock()
	return len(db.reads.pending)
}

// ReadStatements is how many batch statements may run at once.
const ReadStatements = readStatements
