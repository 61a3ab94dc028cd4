package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/wire"
)

// usageBatchesKept is how long a batch's (edge, seq) is remembered.
const usageBatchesKept = 7 * 24 * time.Hour

// AddUsage adds a batch once, in one transaction: the batch's row first
// (a second one with the same edge and seq adds nothing), then its counts,
// summed per key and written in key order so that edges reporting at once
// lock rows in the same order.
func (db *DB) AddUsage(ctx context.Context, edge string, seq int64, at time.Time, counts []wire.UsageCount) (bool, error) {
	n := len(counts)
	apps, bibles, days, reqs := make([]string, n), make([]int32, n), make([]string, n), make([]int64, n)
	for i, c := range counts {
		apps[i], bibles[i], days[i], reqs[i] = c.App, c.Bible, c.Day, c.Requests
	}
	added := false
	err := db.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		added = false
		tag, err := tx.Exec(ctx, `INSERT INTO usage_batches (edge, seq, received) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, edge, seq, at)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		added = true
		if _, err := tx.Exec(ctx, `INSERT INTO usage_daily (app_id, bible_id, day, requests)
			SELECT u.a::uuid, u.b, u.d::date, sum(u.n) FROM unnest($1::text[], $2::integer[], $3::text[], $4::bigint[]) AS u(a, b, d, n)
			JOIN apps ON apps.id = u.a::uuid
			GROUP BY 1, 2, 3 ORDER BY 1, 3, 2
			ON CONFLICT (app_id, day, bible_id) DO UPDATE SET requests = usage_daily.requests + excluded.requests`,
			apps, bibles, days, reqs); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM usage_batches WHERE received < $1`, at.Add(-usageBatchesKept))
		return err
	})
	return added, translate(err, "add usage")
}

// AppUsage lists an app's daily counts from since's day on.
func (db *DB) AppUsage(ctx context.Context, appID string, since time.Time) ([]dynamic.UsageDay, error) {
	rows, err := db.pool.Query(ctx, `SELECT day, bible_id, requests FROM usage_daily
		WHERE app_id = $1 AND day >= $2 ORDER BY day, bible_id`, appID, dayOf(since))
	if err != nil {
		return nil, translate(err, "app usage")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dynamic.UsageDay, error) {
		var u dynamic.UsageDay
		return u, r.Scan(&u.Day, &u.BibleID, &u.Requests)
	})
	return out, translate(err, "app usage")
}

// BibleUsage lists the monthly counts of bibles from since's month on.
func (db *DB) BibleUsage(ctx context.Context, bibles []int32, since time.Time) ([]dynamic.UsageMonth, error) {
	y, m, _ := since.UTC().Date()
	rows, err := db.pool.Query(ctx, `SELECT date_trunc('month', u.day)::date, u.bible_id, u.app_id::text, a.name,
			coalesce(o.name, ''), sum(u.requests)::bigint
		FROM usage_daily u JOIN apps a ON a.id = u.app_id LEFT JOIN organizations o ON o.id = a.organization_id
		WHERE u.bible_id = ANY($1) AND u.day >= $2
		GROUP BY 1, 2, 3, 4, 5 ORDER BY 1 DESC, 2, 6 DESC, 4, 3`,
		bibles, time.Date(y, m, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		return nil, translate(err, "Bible usage")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dynamic.UsageMonth, error) {
		var u dynamic.UsageMonth
		return u, r.Scan(&u.Month, &u.BibleID, &u.AppID, &u.AppName, &u.Licensee, &u.Requests)
	})
	return out, translate(err, "Bible usage")
}

// SetLicenseOwner names (or, with "", removes) a licence's owner.
func (db *DB) SetLicenseOwner(ctx context.Context, licenseID int, orgID string, at time.Time) error {
	var err error
	if orgID == "" {
		_, err = db.pool.Exec(ctx, `DELETE FROM license_owners WHERE license_id = $1`, licenseID)
	} else {
		_, err = db.pool.Exec(ctx, `INSERT INTO license_owners (license_id, organization_id, set_at) VALUES ($1, $2, $3)
			ON CONFLICT (license_id) DO UPDATE SET organization_id = excluded.organization_id, set_at = excluded.set_at`,
			licenseID, orgID, at)
	}
	return translate(err, fmt.Sprintf("owner of licence %d", licenseID))
}

// OwnedLicenses lists the licences an organization owns, in id order.
func (db *DB) OwnedLicenses(ctx context.Context, orgID string) ([]int, error) {
	rows, err := db.pool.Query(ctx, `SELECT license_id FROM license_owners WHERE organization_id = $1 ORDER BY license_id`, orgID)
	if err != nil {
		return nil, translate(err, "owned licences")
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int])
	return out, translate(err, "owned licences")
}
