package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic"
)

func (db *DB) Grants(ctx context.Context, userID, appID string) ([]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT permission FROM grants
		WHERE user_id = $1::uuid AND app_id = $2::uuid ORDER BY permission`, userID, appID)
	if err != nil {
		return nil, translate(err, "grants")
	}
	perms, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if perms == nil {
		perms = []string{}
	}
	return perms, translate(err, "grants")
}

func (db *DB) HasGrant(ctx context.Context, userID, appID, permission string) (bool, error) {
	var ok bool
	err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM grants
		WHERE user_id = $1::uuid AND app_id = $2::uuid AND permission = $3)`, userID, appID, permission).Scan(&ok)
	return ok, translate(err, "grant")
}

func (db *DB) Grant(ctx context.Context, userID, appID string, permissions []string, at time.Time) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO grants (user_id, app_id, permission, granted_at)
		SELECT $1::uuid, $2::uuid, p, $4 FROM unnest($3::text[]) AS p ON CONFLICT DO NOTHING`,
		userID, appID, permissions, at)
	return translate(err, "grant")
}

// Highlights returns the user's highlights among verses, in the order of
// verses. The primary key serves the lookup; every read goes to the primary,
// so a user reads their own writes.
func (db *DB) Highlights(ctx context.Context, userID string, bibleID int32, verses []string) ([]dynamic.Highlight, error) {
	rows, err := db.pool.Query(ctx, `SELECT h.passage_id, h.color
		FROM unnest($3::text[]) WITH ORDINALITY AS v(passage_id, n)
		JOIN highlights h ON h.user_id = $1::uuid AND h.bible_id = $2 AND h.passage_id = v.passage_id
		ORDER BY v.n`, userID, bibleID, verses)
	if err != nil {
		return nil, translate(err, "read highlights")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dynamic.Highlight, error) {
		h := dynamic.Highlight{BibleID: bibleID}
		return h, r.Scan(&h.PassageID, &h.Color)
	})
	return out, translate(err, "read highlights")
}

// CreateHighlights records the request id first: a concurrent retry with the
// same id waits on that row's unique index until this transaction ends, and
// then finds the stored answer. The upsert touches only verses whose colour
// differs, so its row count is the number created or recoloured. Verses are
// written in the caller's (index) order, so two overlapping ranges lock
// rows in the same order and cannot deadlock each other.
func (db *DB) CreateHighlights(ctx context.Context, req dynamic.HighlightRequest, answer func(changed int) dynamic.Answer) (dynamic.Answer, error) {
	var out dynamic.Answer
	err := db.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO highlight_requests (user_id, request_id, status, body)
			VALUES ($1::uuid, $2::uuid, 0, '') ON CONFLICT DO NOTHING`, req.UserID, req.RequestID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return tx.QueryRow(ctx, `SELECT status, body FROM highlight_requests
				WHERE user_id = $1::uuid AND request_id = $2::uuid`, req.UserID, req.RequestID).Scan(&out.Status, &out.Body)
		}
		tag, err = tx.Exec(ctx, `INSERT INTO highlights AS h (user_id, bible_id, passage_id, color)
			SELECT $1::uuid, $2, v.passage_id, $4 FROM unnest($3::text[]) WITH ORDINALITY AS v(passage_id, n) ORDER BY v.n
			ON CONFLICT (user_id, bible_id, passage_id) DO UPDATE SET color = excluded.color, updated_at = now()
			WHERE h.color <> excluded.color`, req.UserID, req.BibleID, req.Verses, req.Color)
		if err != nil {
			return err
		}
		out = answer(int(tag.RowsAffected()))
		_, err = tx.Exec(ctx, `UPDATE highlight_requests SET status = $3, body = $4
			WHERE user_id = $1::uuid AND request_id = $2::uuid`, req.UserID, req.RequestID, out.Status, out.Body)
		return err
	})
	return out, translate(err, "create highlights")
}

func (db *DB) DeleteHighlights(ctx context.Context, userID string, bibleID int32, verses []string) error {
	_, err := db.pool.Exec(ctx, `DELETE FROM highlights
		WHERE user_id = $1::uuid AND bible_id = $2 AND passage_id = ANY ($3::text[])`, userID, bibleID, verses)
	return translate(err, "delete highlights")
}

func (db *DB) CreateExchangeToken(ctx context.Context, t dynamic.ExchangeToken) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO data_exchange_tokens (hash, app_id, user_id, permissions, created_at, expires_at)
		VALUES ($1, $2::uuid, $3::uuid, $4, $5, $6)`, t.Hash, t.AppID, t.UserID, t.Permissions, t.CreatedAt, t.ExpiresAt)
	return translate(err, "create data exchange token")
}

const tokenColumns = `hash, app_id::text, user_id::text, permissions, created_at, expires_at, consumed_at`

func scanToken(row pgx.Row) (*dynamic.ExchangeToken, error) {
	var t dynamic.ExchangeToken
	err := row.Scan(&t.Hash, &t.AppID, &t.UserID, &t.Permissions, &t.CreatedAt, &t.ExpiresAt, &t.ConsumedAt)
	return &t, err
}

func (db *DB) ExchangeToken(ctx context.Context, hash []byte) (*dynamic.ExchangeToken, error) {
	t, err := scanToken(db.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM data_exchange_tokens WHERE hash = $1`, hash))
	if err != nil {
		return nil, translate(err, "data exchange token")
	}
	return t, nil
}

// ConsumeExchangeToken marks the token used with a conditional update: of
// two submissions racing, exactly one matches the row.
func (db *DB) ConsumeExchangeToken(ctx context.Context, hash []byte, now time.Time, grant bool) (*dynamic.ExchangeToken, error) {
	var t *dynamic.ExchangeToken
	err := db.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var err error
		t, err = scanToken(tx.QueryRow(ctx, `UPDATE data_exchange_tokens SET consumed_at = $2
			WHERE hash = $1 AND consumed_at IS NULL AND expires_at > $2 RETURNING `+tokenColumns, hash, now))
		if err == pgx.ErrNoRows {
			t, err = scanToken(tx.QueryRow(ctx, `SELECT `+tokenColumns+` FROM data_exchange_tokens WHERE hash = $1`, hash))
			switch {
			case err != nil:
				return err
			case t.ConsumedAt != nil:
				return dynamic.ErrTokenUsed
			default:
				return dynamic.ErrTokenExpired
			}
		}
		if err != nil || !grant {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO grants (user_id, app_id, permission, granted_at)
			SELECT $1::uuid, $2::uuid, p, $4 FROM unnest($3::text[]) AS p ON CONFLICT DO NOTHING`,
			t.UserID, t.AppID, t.Permissions, now)
		return err
	})
	if err == dynamic.ErrTokenUsed || err == dynamic.ErrTokenExpired {
		return t, err
	}
	if err != nil {
		return nil, translate(err, "consume data exchange token")
	}
	return t, nil
}

func (db *DB) Purge(ctx context.Context, before time.Time) error {
	if _, err := db.pool.Exec(ctx, `DELETE FROM data_exchange_tokens WHERE expires_at < $1`, before); err != nil {
		return translate(err, "purge tokens")
	}
	_, err := db.pool.Exec(ctx, `DELETE FROM highlight_requests WHERE created_at < $1`, before)
	return translate(err, "purge highlight requests")
}
