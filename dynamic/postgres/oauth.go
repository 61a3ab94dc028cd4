package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic/oauth"
)

var _ oauth.Store = (*DB)(nil)

// ClientByKeyHash finds the app of an unrevoked App Key.
func (db *DB) ClientByKeyHash(ctx context.Context, hash []byte) (*oauth.Client, error) {
	var c oauth.Client
	err := db.pool.QueryRow(ctx, `SELECT a.id::text, a.name, a.status,
			coalesce((SELECT array_agg(uri ORDER BY uri) FROM app_redirect_uris r WHERE r.app_id = a.id), '{}')
		FROM app_keys k JOIN apps a ON a.id = k.app_id WHERE k.hash = $1 AND k.revoked_at IS NULL`, hash).
		Scan(&c.AppID, &c.Name, &c.Status, &c.RedirectURIs)
	if err != nil {
		return nil, translate(err, "client")
	}
	return &c, nil
}

// SetRedirectURIs replaces an app's registered redirect URIs.
func (db *DB) SetRedirectURIs(ctx context.Context, appID string, uris []string) error {
	return translate(db.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM app_redirect_uris WHERE app_id = $1`, appID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO app_redirect_uris (app_id, uri) SELECT $1, u FROM unnest($2::text[]) AS u
			ON CONFLICT DO NOTHING`, appID, uris)
		return err
	}), "set redirect uris")
}

// RedirectURIs lists an app's registered redirect URIs.
func (db *DB) RedirectURIs(ctx context.Context, appID string) ([]string, error) {
	var uris []string
	err := db.pool.QueryRow(ctx, `SELECT coalesce(array_agg(uri ORDER BY uri), '{}') FROM app_redirect_uris WHERE app_id = $1`,
		appID).Scan(&uris)
	return uris, translate(err, "redirect uris")
}

// CreateAuthRequest stores an authorization request.
func (db *DB) CreateAuthRequest(ctx context.Context, r oauth.AuthRequest) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO oauth_auth_requests (id, app_id, client_id, redirect_uri, state, nonce,
			scopes, response_type, response_mode, code_challenge, code_challenge_method, requested_permissions,
			require_interaction, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		r.ID, r.AppID, r.ClientID, r.RedirectURI, r.State, r.Nonce, r.Scopes, r.ResponseType, r.ResponseMode,
		r.CodeChallenge, r.CodeChallengeMethod, r.RequestedPermissions, r.RequireInteraction, r.CreatedAt)
	return translate(err, "create auth request")
}

const authRequestColumns = `id::text, app_id::text, client_id, redirect_uri, state, nonce, scopes, response_type,
	response_mode, code_challenge, code_challenge_method, requested_permissions, require_interaction, created_at,
	coalesce(account_id::text, ''), coalesce(granted_permissions, '{}'), coalesce(auth_time, 'epoch'), code_at, used_at`

func scanAuthRequest(row pgx.Row) (*oauth.AuthRequest, error) {
	var r oauth.AuthRequest
	err := row.Scan(&r.ID, &r.AppID, &r.ClientID, &r.RedirectURI, &r.State, &r.Nonce, &r.Scopes, &r.ResponseType,
		&r.ResponseMode, &r.CodeChallenge, &r.CodeChallengeMethod, &r.RequestedPermissions, &r.RequireInteraction,
		&r.CreatedAt, &r.AccountID, &r.GrantedPermissions, &r.AuthTime, &r.CodeAt, &r.UsedAt)
	if err != nil {
		return nil, translate(err, "auth request")
	}
	return &r, nil
}

// AuthRequest finds an authorization request.
func (db *DB) AuthRequest(ctx context.Context, id string) (*oauth.AuthRequest, error) {
	return scanAuthRequest(db.pool.QueryRow(ctx, `SELECT `+authRequestColumns+` FROM oauth_auth_requests WHERE id = $1`, id))
}

// CompleteAuthRequest records the user and their grants.
func (db *DB) CompleteAuthRequest(ctx context.Context, id, accountID string, granted []string, authTime time.Time) error {
	if granted == nil {
		granted = []string{}
	}
	tag, err := db.pool.Exec(ctx, `UPDATE oauth_auth_requests SET account_id = $2, granted_permissions = $3, auth_time = $4
		WHERE id = $1 AND code_at IS NULL`, id, accountID, granted, authTime)
	if err == nil && tag.RowsAffected() == 0 {
		return translate(pgx.ErrNoRows, "complete auth request")
	}
	return translate(err, "complete auth request")
}

// SaveCode records the hash of the request's code.
func (db *DB) SaveCode(ctx context.Context, id string, codeHash []byte, at time.Time) error {
	tag, err := db.pool.Exec(ctx, `UPDATE oauth_auth_requests SET code_hash = $2, code_at = $3
		WHERE id = $1 AND code_at IS NULL AND account_id IS NOT NULL`, id, codeHash, at)
	if err == nil && tag.RowsAffected() == 0 {
		return translate(pgx.ErrNoRows, "save code")
	}
	return translate(err, "save code")
}

// AuthRequestByCode finds a request by its code; a used code revokes the
// families its first exchange started.
func (db *DB) AuthRequestByCode(ctx context.Context, codeHash []byte, now time.Time) (*oauth.AuthRequest, error) {
	r, err := scanAuthRequest(db.pool.QueryRow(ctx, `SELECT `+authRequestColumns+` FROM oauth_auth_requests WHERE code_hash = $1`,
		codeHash))
	if err != nil {
		return nil, err
	}
	if r.UsedAt != nil {
		_, err := db.pool.Exec(ctx, `UPDATE oauth_token_families SET revoked_at = $2
			WHERE auth_request_id = $1 AND revoked_at IS NULL`, r.ID, now)
		if err != nil {
			return nil, translate(err, "revoke families of a reused code")
		}
		return nil, oauth.ErrSpent
	}
	return r, nil
}

// StartFamily spends the request's code and stores the family's first
// refresh token.
func (db *DB) StartFamily(ctx context.Context, f oauth.Family, first oauth.RefreshToken) error {
	return db.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE oauth_auth_requests SET used_at = $2 WHERE id = $1 AND used_at IS NULL`,
			f.AuthRequestID, f.CreatedAt)
		if err != nil {
			return translate(err, "spend code")
		}
		if tag.RowsAffected() == 0 {
			return oauth.ErrSpent
		}
		if _, err := tx.Exec(ctx, `INSERT INTO oauth_token_families (id, account_id, app_id, client_id, scopes, auth_time,
				auth_request_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			f.ID, f.AccountID, f.AppID, f.ClientID, f.Scopes, f.AuthTime, f.AuthRequestID, f.CreatedAt); err != nil {
			return translate(err, "start token family")
		}
		_, err = tx.Exec(ctx, `INSERT INTO oauth_refresh_tokens (hash, family_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			first.Hash, f.ID, first.CreatedAt, first.ExpiresAt)
		return translate(err, "store refresh token")
	})
}

// RefreshToken finds a refresh token; a spent one revokes its family.
func (db *DB) RefreshToken(ctx context.Context, hash []byte, now time.Time) (*oauth.RefreshToken, error) {
	t := oauth.RefreshToken{Hash: hash}
	f := &t.Family
	err := db.pool.QueryRow(ctx, `SELECT t.created_at, t.expires_at, t.used_at, f.id::text, f.account_id::text,
			f.app_id::text, f.client_id, f.scopes, f.auth_time, coalesce(f.auth_request_id::text, ''), f.created_at, f.revoked_at
		FROM oauth_refresh_tokens t JOIN oauth_token_families f ON f.id = t.family_id WHERE t.hash = $1`, hash).
		Scan(&t.CreatedAt, &t.ExpiresAt, &t.UsedAt, &f.ID, &f.AccountID, &f.AppID, &f.ClientID, &f.Scopes, &f.AuthTime,
			&f.AuthRequestID, &f.CreatedAt, &f.RevokedAt)
	if err != nil {
		return nil, translate(err, "refresh token")
	}
	if t.UsedAt != nil {
		if err := db.revokeFamily(ctx, f.ID, now); err != nil {
			return nil, err
		}
		return nil, oauth.ErrSpent
	}
	return &t, nil
}

func (db *DB) revokeFamily(ctx context.Context, family string, now time.Time) error {
	_, err := db.pool.Exec(ctx, `UPDATE oauth_token_families SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, family, now)
	return translate(err, "revoke token family")
}

// Rotate spends old and stores next in the same family.
func (db *DB) Rotate(ctx context.Context, old []byte, next oauth.RefreshToken, now time.Time) error {
	var family string
	err := db.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE oauth_refresh_tokens t SET used_at = $2 FROM oauth_token_families f
			WHERE t.hash = $1 AND t.used_at IS NULL AND f.id = t.family_id AND f.revoked_at IS NULL
			RETURNING t.family_id::text`, old, now).Scan(&family)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO oauth_refresh_tokens (hash, family_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			next.Hash, family, next.CreatedAt, next.ExpiresAt)
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		// Spent meanwhile (or its family revoked): a second use.
		_, err := db.pool.Exec(ctx, `UPDATE oauth_token_families SET revoked_at = $2
			WHERE id = (SELECT family_id FROM oauth_refresh_tokens WHERE hash = $1) AND revoked_at IS NULL`, old, now)
		if err != nil {
			return translate(err, "revoke token family")
		}
		return oauth.ErrSpent
	}
	return translate(err, "rotate refresh token")
}

// RevokeFamilyOf revokes the family of a refresh token of clientID.
func (db *DB) RevokeFamilyOf(ctx context.Context, hash []byte, clientID string, now time.Time) error {
	_, err := db.pool.Exec(ctx, `UPDATE oauth_token_families SET revoked_at = $3
		WHERE id = (SELECT family_id FROM oauth_refresh_tokens WHERE hash = $1) AND client_id = $2 AND revoked_at IS NULL`,
		hash, clientID, now)
	return translate(err, "revoke refresh token")
}

// SigningKeys lists the provider's signing keys.
func (db *DB) SigningKeys(ctx context.Context) ([]oauth.SigningKey, error) {
	rows, err := db.pool.Query(ctx, `SELECT kid, private_der, created_at FROM oauth_signing_keys ORDER BY created_at DESC`)
	if err != nil {
		return nil, translate(err, "signing keys")
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (oauth.SigningKey, error) {
		var k oauth.SigningKey
		err := r.Scan(&k.KID, &k.PrivateDER, &k.CreatedAt)
		return k, err
	})
	return keys, translate(err, "signing keys")
}

// AddSigningKey stores a new signing key.
func (db *DB) AddSigningKey(ctx context.Context, k oauth.SigningKey) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO oauth_signing_keys (kid, private_der, created_at) VALUES ($1, $2, $3)`,
		k.KID, k.PrivateDER, k.CreatedAt)
	return translate(err, "add signing key")
}

// FirstParty reports whether the app is marked first-party.
func (db *DB) FirstParty(ctx context.Context, appID string) (bool, error) {
	var ok bool
	err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM first_party_apps WHERE app_id = $1)`, appID).Scan(&ok)
	return ok, translate(err, "first party")
}

// SetFirstParty marks or unmarks an app first-party.
func (db *DB) SetFirstParty(ctx context.Context, appID string, on bool, at time.Time) error {
	var err error
	if on {
		_, err = db.pool.Exec(ctx, `INSERT INTO first_party_apps (app_id, marked_at) VALUES ($1, $2) ON CONFLICT DO NOTHING`, appID, at)
	} else {
		_, err = db.pool.Exec(ctx, `DELETE FROM first_party_apps WHERE app_id = $1`, appID)
	}
	return translate(err, "set first party")
}

// PurgeOAuth deletes what ended before before.
func (db *DB) PurgeOAuth(ctx context.Context, before time.Time) error {
	// $1 is cast: in "$1 - interval …" PostgreSQL would otherwise take the
	// parameter for an interval.
	for _, q := range []string{
		`DELETE FROM oauth_auth_requests WHERE created_at < $1::timestamptz - interval '1 day'`,
		`DELETE FROM oauth_refresh_tokens WHERE expires_at < $1::timestamptz OR used_at < $1::timestamptz - interval '1 day'`,
		`DELETE FROM oauth_token_families f WHERE (revoked_at < $1::timestamptz OR created_at < $1::timestamptz - interval '365 days')
			AND NOT EXISTS (SELECT FROM oauth_refresh_tokens t WHERE t.family_id = f.id AND t.expires_at > $1::timestamptz)`,
	} {
		if _, err := db.pool.Exec(ctx, q, before); err != nil {
			return translate(err, "purge oauth")
		}
	}
	return nil
}
