package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic"
)

var _ dynamic.StaffStore = (*DB)(nil)

// IsStaff reports whether the account is marked staff.
func (db *DB) IsStaff(ctx context.Context, accountID string) (bool, error) {
	var ok bool
	err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM staff_accounts WHERE account_id = $1::uuid)`,
		accountID).Scan(&ok)
	return ok, translate(err, "is staff")
}

// MarkStaff marks or unmarks an account as staff.
func (db *DB) MarkStaff(ctx context.Context, accountID string, staff bool, at time.Time) (bool, error) {
	q := `DELETE FROM staff_accounts WHERE account_id = $1::uuid`
	args := []any{accountID}
	if staff {
		q = `INSERT INTO staff_accounts (account_id, marked_at) VALUES ($1::uuid, $2) ON CONFLICT DO NOTHING`
		args = append(args, at)
	}
	tag, err := db.pool.Exec(ctx, q, args...)
	if err != nil {
		return false, translate(err, "mark staff")
	}
	return tag.RowsAffected() > 0, nil
}

// StaffAccounts lists the staff, by email.
func (db *DB) StaffAccounts(ctx context.Context) ([]dynamic.StaffAccount, error) {
	rows, err := db.pool.Query(ctx, `SELECT a.id::text, a.email, a.display_name, s.marked_at
		FROM staff_accounts s JOIN accounts a ON a.id = s.account_id ORDER BY a.email, a.id`)
	if err != nil {
		return nil, translate(err, "staff accounts")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dynamic.StaffAccount, error) {
		var s dynamic.StaffAccount
		return s, r.Scan(&s.ID, &s.Email, &s.DisplayName, &s.MarkedAt)
	})
	return out, translate(err, "staff accounts")
}

// StaffApps lists apps with their organization and registration, newest
// first.
func (db *DB) StaffApps(ctx context.Context, status string, limit int) ([]dynamic.StaffApp, error) {
	rows, err := db.pool.Query(ctx, `SELECT a.id::text, a.name, a.description, a.website_url,
			a.status, coalesce(a.organization_id::text, ''), a.callback_url, a.rate_per_second, a.rate_burst,
			a.created_at, coalesce(o.name, ''), coalesce(r.use_case, ''),
			coalesce(ra.email, '')
		FROM apps a
		LEFT JOIN organizations o ON o.id = a.organization_id
		LEFT JOIN app_registrations r ON r.app_id = a.id
		LEFT JOIN accounts ra ON ra.id = r.registered_by
		WHERE $1 = '' OR a.status = $1
		ORDER BY a.created_at DESC, a.id LIMIT $2`, status, limit)
	if err != nil {
		return nil, translate(err, "staff apps")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dynamic.StaffApp, error) {
		var s dynamic.StaffApp
		a := &s.App
		return s, r.Scan(&a.ID, &a.Name, &a.Description, &a.WebsiteURL, &a.Status, &a.OrganizationID,
			&a.CallbackURL, &a.RatePerSecond, &a.RateBurst, &a.CreatedAt, &s.OrganizationName, &s.UseCase, &s.RegisteredBy)
	})
	return out, translate(err, "staff apps")
}

// MoveApp sets an app's status from one to another, only if it is still
// the first: the apps trigger bumps the access version, so the edges
// follow.
func (db *DB) MoveApp(ctx context.Context, id, from, to string) error {
	tag, err := db.pool.Exec(ctx, `UPDATE apps SET status = $3, updated_at = now() WHERE id = $1::uuid AND status = $2`,
		id, from, to)
	if err != nil {
		return translate(err, "move app "+id)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var exists bool
	if err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM apps WHERE id = $1::uuid)`, id).Scan(&exists); err != nil {
		return translate(err, "move app "+id)
	}
	if !exists {
		return translate(pgx.ErrNoRows, "app "+id)
	}
	return fmt.Errorf("move app %s: its status is no longer %s: %w", id, from, dynamic.ErrConflict)
}
