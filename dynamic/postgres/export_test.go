package postgres

// PendingReads is how many highlight reads wait for a batch statement.
func PendingReads(db *DB) int {
	db.reads.mu.Lock()
	defer db.reads.mu.Unlock()
	return len(db.reads.pending)
}

// ReadStatements is how many batch statements may run at once.
const ReadStatements = readStatements
