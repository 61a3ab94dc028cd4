package postgres

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic"
)

const appColumns = `id::text, name, description, website_url, status, coalesce(organization_id::text, ''),
	callback_url, rate_per_second, rate_burst, created_at`

func scanApp(row pgx.Row, a *dynamic.App) error {
	return row.Scan(&a.ID, &a.Name, &a.Description, &a.WebsiteURL, &a.Status, &a.OrganizationID,
		&a.CallbackURL, &a.RatePerSecond, &a.RateBurst, &a.CreatedAt)
}

// nullUUID turns "" into NULL.
func nullUUID(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (db *DB) CreateApp(ctx context.Context, a dynamic.App) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO apps (id, name, description, website_url, status, organization_id,
		callback_url, rate_per_second, rate_burst) VALUES ($1::uuid, $2, $3, $4, $5, $6::uuid, $7, $8, $9)`,
		a.ID, a.Name, a.Description, a.WebsiteURL, a.Status, nullUUID(a.OrganizationID),
		a.CallbackURL, a.RatePerSecond, a.RateBurst)
	return translate(err, "create app "+a.ID)
}

// UpsertApp creates or overwrites an app (the seed of demo apps).
func (db *DB) UpsertApp(ctx context.Context, a dynamic.App) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO apps (id, name, description, website_url, status, organization_id,
		callback_url, rate_per_second, rate_burst) VALUES ($1::uuid, $2, $3, $4, $5, $6::uuid, $7, $8, $9)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, description = excluded.description,
			website_url = excluded.website_url, status = excluded.status,
			organization_id = excluded.organization_id, callback_url = excluded.callback_url,
			rate_per_second = excluded.rate_per_second, rate_burst = excluded.rate_burst, updated_at = now()`,
		a.ID, a.Name, a.Description, a.WebsiteURL, a.Status, nullUUID(a.OrganizationID),
		a.CallbackURL, a.RatePerSecond, a.RateBurst)
	return translate(err, "upsert app "+a.ID)
}

func (db *DB) SetAppStatus(ctx context.Context, id, status string) error {
	tag, err := db.pool.Exec(ctx, `UPDATE apps SET status = $2, updated_at = now() WHERE id = $1::uuid`, id, status)
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	return translate(err, "set status of app "+id)
}

func (db *DB) App(ctx context.Context, id string) (*dynamic.App, error) {
	var a dynamic.App
	err := scanApp(db.pool.QueryRow(ctx, `SELECT `+appColumns+` FROM apps WHERE id = $1::uuid`, id), &a)
	if err != nil {
		return nil, translate(err, "app "+id)
	}
	return &a, nil
}

func (db *DB) Apps(ctx context.Context) ([]dynamic.App, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+appColumns+` FROM apps ORDER BY created_at, id`)
	if err != nil {
		return nil, translate(err, "list apps")
	}
	apps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dynamic.App, error) {
		var a dynamic.App
		return a, scanApp(r, &a)
	})
	return apps, translate(err, "list apps")
}

func (db *DB) AddKey(ctx context.Context, appID string, hash []byte, hint string) (int64, error) {
	var id int64
	err := db.pool.QueryRow(ctx, `INSERT INTO app_keys (app_id, hash, hint) VALUES ($1::uuid, $2, $3) RETURNING id`,
		appID, hash, hint).Scan(&id)
	return id, translate(err, "add key to app "+appID)
}

func (db *DB) RevokeKey(ctx context.Context, id int64, at time.Time) error {
	tag, err := db.pool.Exec(ctx, `UPDATE app_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1`, id, at)
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	return translate(err, fmt.Sprintf("revoke key %d", id))
}

func (db *DB) RevokeKeyHash(ctx context.Context, hash []byte, at time.Time) error {
	tag, err := db.pool.Exec(ctx, `UPDATE app_keys SET revoked_at = coalesce(revoked_at, $2) WHERE hash = $1`, hash, at)
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	return translate(err, "revoke key "+hex.EncodeToString(hash))
}

func (db *DB) Keys(ctx context.Context, appID string) ([]dynamic.Key, error) {
	rows, err := db.pool.Query(ctx, `SELECT id, app_id::text, hint, created_at, revoked_at FROM app_keys
		WHERE app_id = $1::uuid ORDER BY id`, appID)
	if err != nil {
		return nil, translate(err, "keys of app "+appID)
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dynamic.Key, error) {
		var k dynamic.Key
		return k, r.Scan(&k.ID, &k.AppID, &k.Hint, &k.CreatedAt, &k.RevokedAt)
	})
	return keys, translate(err, "keys of app "+appID)
}

func (db *DB) Agree(ctx context.Context, a dynamic.Agreement) error {
	// A repeated agreement keeps its first time: the time the party
	// actually agreed.
	_, err := db.pool.Exec(ctx, `INSERT INTO license_agreements (license_id, organization_id, developer_id, agreed_at)
		VALUES ($1, $2::uuid, $3::uuid, $4) ON CONFLICT DO NOTHING`,
		a.LicenseID, nullUUID(a.OrganizationID), nullUUID(a.DeveloperID), a.AgreedAt)
	return translate(err, fmt.Sprintf("agree to licence %d", a.LicenseID))
}

func (db *DB) DeveloperAgreements(ctx context.Context, developerID string) ([]dynamic.Agreement, error) {
	rows, err := db.pool.Query(ctx, `SELECT license_id, coalesce(organization_id::text, ''), developer_id::text, agreed_at
		FROM license_agreements WHERE developer_id = $1::uuid ORDER BY license_id, agreed_at`, developerID)
	if err != nil {
		return nil, translate(err, "agreements of developer "+developerID)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dynamic.Agreement, error) {
		var a dynamic.Agreement
		return a, r.Scan(&a.LicenseID, &a.OrganizationID, &a.DeveloperID, &a.AgreedAt)
	})
	return out, translate(err, "agreements of developer "+developerID)
}

// AccessData reads apps, active key hashes and agreed licences in one
// repeatable-read transaction, so the version matches the rows.
func (db *DB) AccessData(ctx context.Context) (*dynamic.AccessData, error) {
	var d dynamic.AccessData
	err := db.inTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		d = dynamic.AccessData{}
		if err := tx.QueryRow(ctx, `SELECT version FROM access_state`).Scan(&d.Version); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT `+appColumns+`,
			coalesce((SELECT array_agg(encode(k.hash, 'hex') ORDER BY k.id) FROM app_keys k
				WHERE k.app_id = a.id AND k.revoked_at IS NULL), '{}'),
			coalesce((SELECT array_agg(DISTINCT l.license_id) FROM license_agreements l
				WHERE l.organization_id = a.organization_id), '{}')
			FROM apps a ORDER BY a.id`)
		if err != nil {
			return err
		}
		d.Apps, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (dynamic.AccessApp, error) {
			var a dynamic.AccessApp
			var lic []int32
			err := r.Scan(&a.ID, &a.Name, &a.Description, &a.WebsiteURL, &a.Status, &a.OrganizationID,
				&a.CallbackURL, &a.RatePerSecond, &a.RateBurst, &a.CreatedAt, &a.KeyHashes, &lic)
			for _, l := range lic {
				a.Licenses = append(a.Licenses, int(l))
			}
			return a, err
		})
		return err
	})
	if err != nil {
		return nil, translate(err, "read access data")
	}
	return &d, nil
}

func (db *DB) AccessVersion(ctx context.Context) (int64, error) {
	var v int64
	err := db.pool.QueryRow(ctx, `SELECT version FROM access_state`).Scan(&v)
	return v, translate(err, "access version")
}

func (db *DB) BumpAccessVersion(ctx context.Context) (int64, error) {
	var v int64
	err := db.pool.QueryRow(ctx, `SELECT bump_access_version()`).Scan(&v)
	return v, translate(err, "bump access version")
}

// ListenAccess holds one connection of its own (LISTEN needs a session)
// and calls fn for every notification until ctx ends or the connection
// fails; the caller reconnects.
func (db *DB) ListenAccess(ctx context.Context, ready func(), fn func(version int64)) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return translate(err, "listen")
	}
	// The session carries LISTEN state: never hand it back to the pool.
	defer func() {
		c := conn.Hijack()
		c.Close(context.WithoutCancel(ctx))
	}()
	if _, err := conn.Exec(ctx, `LISTEN access_changed`); err != nil {
		return translate(err, "listen")
	}
	if ready != nil {
		ready()
	}
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return translate(err, "wait for notification")
		}
		v, _ := parseInt(n.Payload)
		fn(v)
	}
}

func parseInt(s string) (int64, error) {
	var v int64
	_, err := fmt.Sscan(s, &v)
	return v, err
}
