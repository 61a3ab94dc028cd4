package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic/accounts"
)

var _ accounts.Passkeys = (*DB)(nil)

// AddPasskey stores an account's credential.
func (db *DB) AddPasskey(ctx context.Context, accountID string, id, credential []byte, at time.Time) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO account_passkeys (id, account_id, credential, created_at) VALUES ($1, $2, $3, $4)`,
		id, accountID, string(credential), at)
	return translate(err, "add passkey")
}

// Passkeys lists an account's credentials.
func (db *DB) Passkeys(ctx context.Context, accountID string) ([][]byte, error) {
	rows, err := db.pool.Query(ctx, `SELECT credential::text FROM account_passkeys WHERE account_id = $1 ORDER BY created_at`, accountID)
	if err != nil {
		return nil, translate(err, "passkeys")
	}
	creds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]byte, error) {
		var s string
		err := r.Scan(&s)
		return []byte(s), err
	})
	return creds, translate(err, "passkeys")
}

// UpdatePasskey replaces a credential's record.
func (db *DB) UpdatePasskey(ctx context.Context, id, credential []byte) error {
	_, err := db.pool.Exec(ctx, `UPDATE account_passkeys SET credential = $2 WHERE id = $1`, id, string(credential))
	return translate(err, "update passkey")
}

// SaveCeremony keeps a ceremony's data.
func (db *DB) SaveCeremony(ctx context.Context, hash, data []byte, expires time.Time) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO passkey_ceremonies (hash, data, expires_at) VALUES ($1, $2, $3)`, hash, string(data), expires)
	return translate(err, "save passkey ceremony")
}

// TakeCeremony returns and deletes a live ceremony's data.
func (db *DB) TakeCeremony(ctx context.Context, hash []byte, now time.Time) ([]byte, error) {
	var s string
	err := db.pool.QueryRow(ctx, `DELETE FROM passkey_ceremonies WHERE hash = $1 AND expires_at > $2 RETURNING data::text`, hash, now).Scan(&s)
	if err != nil {
		return nil, translate(err, "passkey ceremony")
	}
	return []byte(s), nil
}
