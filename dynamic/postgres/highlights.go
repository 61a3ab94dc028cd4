package postgres

import (
	"bytes"
	"context"
	"fmt"
	"slices"
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
// verses. The verses of one passage share a prefix (JHN.3.), and passage_id
// is in byte order (migration 0002), so one range scan of the primary key
// finds them all; rows in the range but not among verses (JHN.3.1 is a
// prefix of JHN.3.10) are dropped here. That costs PostgreSQL a fraction of
// one probe per verse. Concurrent reads share one statement (reads.go).
// Every read goes to the primary, so a user reads their own writes.
func (db *DB) Highlights(ctx context.Context, userID string, bibleID int32, verses []string) ([]dynamic.Highlight, error) {
	if len(verses) == 0 {
		return nil, nil
	}
	lo, hi, ok := prefixRange(verses)
	if !ok {
		return nil, fmt.Errorf("read highlights: verses %q share no prefix", verses)
	}
	r := &rangeRead{user: userID, bible: bibleID, lo: lo, hi: hi}
	if err := db.reads.read(ctx, r); err != nil {
		return nil, err
	}
	if len(r.rows) == 0 {
		return nil, nil
	}
	pos := make(map[string]int, len(verses))
	for i, v := range verses {
		pos[v] = i
	}
	type found struct {
		n int
		h dynamic.Highlight
	}
	hs := make([]found, 0, len(r.rows))
	for _, row := range r.rows {
		if n, ok := pos[row.passage]; ok {
			hs = append(hs, found{n, dynamic.Highlight{BibleID: bibleID, PassageID: row.passage, Color: row.color}})
		}
	}
	slices.SortFunc(hs, func(a, b found) int { return a.n - b.n })
	out := make([]dynamic.Highlight, len(hs))
	for i, f := range hs {
		out[i] = f.h
	}
	return out, nil
}

// prefixRange returns the half-open byte range [lo, hi) of every string that
// starts with the longest common prefix of ids. Passage ids are ASCII, so
// incrementing the prefix's last byte gives the end of the range; ok is
// false when there is no usable prefix.
func prefixRange(ids []string) (lo, hi string, ok bool) {
	p := ids[0]
	for _, id := range ids[1:] {
		n := 0
		for n < len(p) && n < len(id) && p[n] == id[n] {
			n++
		}
		p = p[:n]
	}
	if p == "" || p[len(p)-1] >= 0x7f {
		return "", "", false
	}
	return p, p[:len(p)-1] + string(p[len(p)-1]+1), true
}

// CreateHighlights records the request id first: a concurrent retry with the
// same id waits on that row's unique index until this transaction ends, and
// then finds the stored outcome (or, when the id came with a different
// highlight, ErrRequestReused; a row without a fingerprint, written before
// migration 0004, matches any request). The upsert touches only verses
// whose colour differs, so its row count says whether any verse was
// created or recoloured. Verses are written in the caller's (index) order,
// so two overlapping ranges lock rows in the same order and cannot
// deadlock each other.
func (db *DB) CreateHighlights(ctx context.Context, req dynamic.HighlightRequest) (dynamic.HighlightOutcome, error) {
	var out dynamic.HighlightOutcome
	err := db.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		fp := req.Fingerprint()
		tag, err := tx.Exec(ctx, `INSERT INTO highlight_requests (user_id, request_id, changed, fingerprint)
			VALUES ($1::uuid, $2::uuid, false, $3) ON CONFLICT DO NOTHING`, req.UserID, req.RequestID, fp)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var seen []byte
			err := tx.QueryRow(ctx, `SELECT changed, fingerprint FROM highlight_requests
				WHERE user_id = $1::uuid AND request_id = $2::uuid`, req.UserID, req.RequestID).Scan(&out.Changed, &seen)
			if err == nil && seen != nil && !bytes.Equal(seen, fp) {
				err = dynamic.ErrRequestReused
			}
			return err
		}
		tag, err = tx.Exec(ctx, `INSERT INTO highlights AS h (user_id, bible_id, passage_id, color)
			SELECT $1::uuid, $2, v.passage_id, $4 FROM unnest($3::text[]) WITH ORDINALITY AS v(passage_id, n) ORDER BY v.n
			ON CONFLICT (user_id, bible_id, passage_id) DO UPDATE SET color = excluded.color, updated_at = now()
			WHERE h.color <> excluded.color`, req.UserID, req.BibleID, req.Verses, req.Color)
		if err != nil {
			return err
		}
		out = dynamic.HighlightOutcome{Changed: tag.RowsAffected() > 0}
		if !out.Changed {
			return nil // the row already says so
		}
		_, err = tx.Exec(ctx, `UPDATE highlight_requests SET changed = true
			WHERE user_id = $1::uuid AND request_id = $2::uuid`, req.UserID, req.RequestID)
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

func (db *DB) PurgeExchangeTokens(ctx context.Context, before time.Time) error {
	_, err := db.pool.Exec(ctx, `DELETE FROM data_exchange_tokens WHERE expires_at < $1`, before)
	return translate(err, "purge data exchange tokens")
}

func (db *DB) PurgeHighlightRequests(ctx context.Context, before time.Time) error {
	_, err := db.pool.Exec(ctx, `DELETE FROM highlight_requests WHERE created_at < $1`, before)
	return translate(err, "purge highlight requests")
}
