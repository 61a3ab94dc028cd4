package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic/portal"
)

var _ portal.Store = (*DB)(nil)

// CreateOrganization stores an organization and its first owner.
func (db *DB) CreateOrganization(ctx context.Context, o portal.Organization, owner string) error {
	return translate(db.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO organizations (id, name, created_by, created_at) VALUES ($1, $2, $3, $4)`,
			o.ID, o.Name, owner, o.CreatedAt); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO organization_members (organization_id, account_id, role, joined_at)
			VALUES ($1, $2, 'owner', $3)`, o.ID, owner, o.CreatedAt)
		return err
	}), "create organization")
}

const membershipColumns = `o.id::text, o.name, o.created_at, m.role`

func scanMembership(r pgx.Row) (portal.Membership, error) {
	var m portal.Membership
	return m, r.Scan(&m.ID, &m.Name, &m.CreatedAt, &m.Role)
}

// Memberships lists an account's organizations.
func (db *DB) Memberships(ctx context.Context, accountID string) ([]portal.Membership, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+membershipColumns+` FROM organization_members m
		JOIN organizations o ON o.id = m.organization_id WHERE m.account_id = $1 ORDER BY o.name, o.id`, accountID)
	if err != nil {
		return nil, translate(err, "memberships")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (portal.Membership, error) { return scanMembership(r) })
	return out, translate(err, "memberships")
}

// Membership is one account's membership of one organization.
func (db *DB) Membership(ctx context.Context, orgID, accountID string) (*portal.Membership, error) {
	m, err := scanMembership(db.pool.QueryRow(ctx, `SELECT `+membershipColumns+` FROM organization_members m
		JOIN organizations o ON o.id = m.organization_id WHERE m.organization_id = $1 AND m.account_id = $2`,
		orgID, accountID))
	if err != nil {
		return nil, translate(err, "membership")
	}
	return &m, nil
}

// Members lists an organization's members, owners first.
func (db *DB) Members(ctx context.Context, orgID string) ([]portal.Member, error) {
	rows, err := db.pool.Query(ctx, `SELECT a.id::text, a.email, a.display_name, m.role, m.joined_at
		FROM organization_members m JOIN accounts a ON a.id = m.account_id
		WHERE m.organization_id = $1 ORDER BY m.role DESC, a.email_key`, orgID)
	if err != nil {
		return nil, translate(err, "members")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (portal.Member, error) {
		var m portal.Member
		return m, r.Scan(&m.AccountID, &m.Email, &m.DisplayName, &m.Role, &m.JoinedAt)
	})
	return out, translate(err, "members")
}

// RemoveMember removes a member unless no owner would be left.
func (db *DB) RemoveMember(ctx context.Context, orgID, accountID string) error {
	return db.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		// Locking every member row of the organization serialises
		// concurrent removals: each sees the owners the other left.
		rows, err := tx.Query(ctx, `SELECT account_id::text, role FROM organization_members
			WHERE organization_id = $1 FOR UPDATE`, orgID)
		if err != nil {
			return translate(err, "remove member")
		}
		owners, found, isOwner := 0, false, false
		var id, role string
		_, err = pgx.ForEachRow(rows, []any{&id, &role}, func() error {
			if role == string(portal.Owner) {
				owners++
			}
			if id == accountID {
				found, isOwner = true, role == string(portal.Owner)
			}
			return nil
		})
		if err != nil {
			return translate(err, "remove member")
		}
		switch {
		case !found:
			return translate(pgx.ErrNoRows, "member")
		case isOwner && owners == 1:
			return portal.ErrLastOwner
		}
		_, err = tx.Exec(ctx, `DELETE FROM organization_members WHERE organization_id = $1 AND account_id = $2`,
			orgID, accountID)
		return translate(err, "remove member")
	})
}

// CreateInvitation stores an invitation.
func (db *DB) CreateInvitation(ctx context.Context, inv portal.Invitation) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO organization_invitations (hash, organization_id, email_key, role,
			invited_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		inv.Hash, inv.OrganizationID, inv.EmailKey, inv.Role, inv.InvitedBy, inv.CreatedAt, inv.ExpiresAt)
	return translate(err, "create invitation")
}

// Invitation finds an invitation by the hash of its token.
func (db *DB) Invitation(ctx context.Context, hash []byte) (*portal.Invitation, error) {
	var inv portal.Invitation
	err := db.pool.QueryRow(ctx, `SELECT i.hash, i.organization_id::text, o.name, i.email_key, i.role,
			i.invited_by::text, i.created_at, i.expires_at, i.accepted_at
		FROM organization_invitations i JOIN organizations o ON o.id = i.organization_id WHERE i.hash = $1`, hash).
		Scan(&inv.Hash, &inv.OrganizationID, &inv.OrganizationName, &inv.EmailKey, &inv.Role, &inv.InvitedBy,
			&inv.CreatedAt, &inv.ExpiresAt, &inv.AcceptedAt)
	if err != nil {
		return nil, translate(err, "invitation")
	}
	return &inv, nil
}

// AcceptInvitation spends an open invitation and adds its member.
func (db *DB) AcceptInvitation(ctx context.Context, hash []byte, accountID string, now time.Time) error {
	return translate(db.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var org, role string
		err := tx.QueryRow(ctx, `UPDATE organization_invitations SET accepted_by = $2, accepted_at = $3
			WHERE hash = $1 AND accepted_at IS NULL AND expires_at > $3
			RETURNING organization_id::text, role`, hash, accountID, now).Scan(&org, &role)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO organization_members (organization_id, account_id, role, joined_at)
			VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, org, accountID, role, now)
		return err
	}), "accept invitation")
}

// RegisterApp stores an app in development with its callback URLs and
// registration.
func (db *DB) RegisterApp(ctx context.Context, r portal.Registration) error {
	return translate(db.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO apps (id, name, description, website_url, status, organization_id,
				callback_url, created_at, updated_at) VALUES ($1, $2, $3, $4, 'development', $5, $6, $7, $7)`,
			r.AppID, r.Name, r.Description, r.WebsiteURL, r.OrganizationID, r.ConsentCallback, r.At); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO app_redirect_uris (app_id, uri) SELECT $1, u FROM unnest($2::text[]) AS u
				ON CONFLICT DO NOTHING`, r.AppID, r.CallbackURLs); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO app_registrations (app_id, use_case, registered_by, registered_at)
			VALUES ($1, $2, $3, $4)`, r.AppID, r.UseCase, r.RegisteredBy, r.At)
		return err
	}), "register app")
}

const portalAppColumns = `a.id::text, coalesce(a.organization_id::text, ''), a.name, a.description, a.website_url,
	coalesce(r.use_case, ''), a.status,
	coalesce((SELECT array_agg(u.uri ORDER BY u.uri) FROM app_redirect_uris u WHERE u.app_id = a.id), '{}'),
	a.created_at
	FROM apps a LEFT JOIN app_registrations r ON r.app_id = a.id`

func scanPortalApp(r pgx.Row) (portal.App, error) {
	var a portal.App
	return a, r.Scan(&a.ID, &a.OrganizationID, &a.Name, &a.Description, &a.WebsiteURL, &a.UseCase, &a.Status,
		&a.CallbackURLs, &a.CreatedAt)
}

// OrganizationApps lists an organization's apps, newest first.
func (db *DB) OrganizationApps(ctx context.Context, orgID string) ([]portal.App, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+portalAppColumns+` WHERE a.organization_id = $1
		ORDER BY a.created_at DESC, a.id`, orgID)
	if err != nil {
		return nil, translate(err, "organization apps")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (portal.App, error) { return scanPortalApp(r) })
	return out, translate(err, "organization apps")
}

// PortalApp finds one app with its registration.
func (db *DB) PortalApp(ctx context.Context, appID string) (*portal.App, error) {
	a, err := scanPortalApp(db.pool.QueryRow(ctx, `SELECT `+portalAppColumns+` WHERE a.id = $1`, appID))
	if err != nil {
		return nil, translate(err, "app "+appID)
	}
	return &a, nil
}

// OrganizationAgreements lists the first agreement per licence.
func (db *DB) OrganizationAgreements(ctx context.Context, orgID string) ([]portal.Agreement, error) {
	rows, err := db.pool.Query(ctx, `SELECT DISTINCT ON (license_id) license_id, coalesce(developer_id::text, ''), agreed_at
		FROM license_agreements WHERE organization_id = $1 ORDER BY license_id, agreed_at, id`, orgID)
	if err != nil {
		return nil, translate(err, "agreements")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (portal.Agreement, error) {
		var a portal.Agreement
		return a, r.Scan(&a.LicenseID, &a.AccountID, &a.AgreedAt)
	})
	return out, translate(err, "agreements")
}

// Withdraw removes every agreement of an organization to a licence.
func (db *DB) Withdraw(ctx context.Context, orgID string, licenseID int) error {
	_, err := db.pool.Exec(ctx, `DELETE FROM license_agreements WHERE organization_id = $1 AND license_id = $2`,
		orgID, licenseID)
	return translate(err, fmt.Sprintf("withdraw from licence %d", licenseID))
}
