package postgres

import (
	"context"
	"time"

	"github.com/bibleplatform/platform/dynamic/accounts"
)

var _ accounts.Store = (*DB)(nil)

// CreateAccount stores a new account.
func (db *DB) CreateAccount(ctx context.Context, a accounts.Account) error {
	var hash *string
	if a.PasswordHash != "" {
		hash = &a.PasswordHash
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO accounts (id, email, email_key, display_name, password_hash, created_at)
		VALUES ($1, $2, lower($2), $3, $4, $5)`, a.ID, a.Email, a.DisplayName, hash, a.CreatedAt)
	return translate(err, "create account")
}

const accountColumns = `id::text, email, display_name, coalesce(password_hash, ''), created_at`

func scanAccount(row interface{ Scan(...any) error }, what string) (*accounts.Account, error) {
	var a accounts.Account
	if err := row.Scan(&a.ID, &a.Email, &a.DisplayName, &a.PasswordHash, &a.CreatedAt); err != nil {
		return nil, translate(err, what)
	}
	return &a, nil
}

// AccountByEmail finds an account by its email key.
func (db *DB) AccountByEmail(ctx context.Context, emailKey string) (*accounts.Account, error) {
	return scanAccount(db.pool.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE email_key = $1`, emailKey),
		"account by email")
}

// Account finds an account by id.
func (db *DB) Account(ctx context.Context, id string) (*accounts.Account, error) {
	return scanAccount(db.pool.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id), "account")
}

// CreateSession stores a new session.
func (db *DB) CreateSession(ctx context.Context, s accounts.Session) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO account_sessions (hash, account_id, created_at, last_seen_at, expires_at)
		VALUES ($1, $2, $3, $3, $4)`, s.Hash, s.AccountID, s.CreatedAt, s.ExpiresAt)
	return translate(err, "create session")
}

// TouchSession returns a live session and records its use.
func (db *DB) TouchSession(ctx context.Context, hash []byte, now, idleSince time.Time) (*accounts.Session, error) {
	s := accounts.Session{Hash: hash}
	err := db.pool.QueryRow(ctx, `UPDATE account_sessions SET last_seen_at = $2
		WHERE hash = $1 AND revoked_at IS NULL AND expires_at > $2 AND last_seen_at > $3
		RETURNING account_id::text, created_at, last_seen_at, expires_at`, hash, now, idleSince).
		Scan(&s.AccountID, &s.CreatedAt, &s.LastSeen, &s.ExpiresAt)
	if err != nil {
		return nil, translate(err, "session")
	}
	return &s, nil
}

// RevokeSession ends one session.
func (db *DB) RevokeSession(ctx context.Context, hash []byte, at time.Time) error {
	_, err := db.pool.Exec(ctx, `UPDATE account_sessions SET revoked_at = $2 WHERE hash = $1 AND revoked_at IS NULL`, hash, at)
	return translate(err, "revoke session")
}

// RevokeSessions ends every session of an account.
func (db *DB) RevokeSessions(ctx context.Context, accountID string, at time.Time) error {
	_, err := db.pool.Exec(ctx, `UPDATE account_sessions SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL`,
		accountID, at)
	return translate(err, "revoke sessions")
}

// RecordFailure notes a failed sign-in under each key.
func (db *DB) RecordFailure(ctx context.Context, at time.Time, keys ...string) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO sign_in_failures (key, at) SELECT k, $1 FROM unnest($2::text[]) AS k`, at, keys)
	return translate(err, "record sign-in failure")
}

// Failures counts key's failures since since.
func (db *DB) Failures(ctx context.Context, key string, since time.Time) (int, error) {
	var n int
	err := db.pool.QueryRow(ctx, `SELECT count(*) FROM sign_in_failures WHERE key = $1 AND at > $2`, key, since).Scan(&n)
	return n, translate(err, "sign-in failures")
}

// PurgeAccounts deletes old failures and sessions that ended before before.
func (db *DB) PurgeAccounts(ctx context.Context, before time.Time) error {
	_, err := db.pool.Exec(ctx, `DELETE FROM sign_in_failures WHERE at < $1`, before)
	if err == nil {
		_, err = db.pool.Exec(ctx, `DELETE FROM account_sessions WHERE expires_at < $1 OR revoked_at < $1`, before)
	}
	if err == nil {
		_, err = db.pool.Exec(ctx, `DELETE FROM passkey_ceremonies WHERE expires_at < $1`, before)
	}
	return translate(err, "purge accounts")
}
