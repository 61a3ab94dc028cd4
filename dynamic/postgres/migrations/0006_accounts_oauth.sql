-- Platform accounts, their browser sessions, sign-in throttling, and the
-- OAuth 2.0 / OpenID Connect provider's state (docs/sign-in.md).

-- An account. email_key is the address as compared (lower case), so one
-- address cannot hold two accounts by spelling; email is as typed.
-- password_hash is an argon2id PHC string, or NULL for an account without a
-- password.
CREATE TABLE accounts (
	id                uuid PRIMARY KEY,
	email             text NOT NULL CHECK (email <> ''),
	email_key         text NOT NULL UNIQUE CHECK (email_key = lower(email)),
	display_name      text NOT NULL CHECK (display_name <> ''),
	password_hash     text,
	email_verified_at timestamptz,
	created_at        timestamptz NOT NULL
);

-- A browser session, stored as the SHA-256 of its random id (the cookie's
-- value is never stored). Ends at expires_at (absolute), after an idle
-- period since last_seen_at, or when revoked.
CREATE TABLE account_sessions (
	hash         bytea PRIMARY KEY CHECK (length(hash) = 32),
	account_id   uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	created_at   timestamptz NOT NULL,
	last_seen_at timestamptz NOT NULL,
	expires_at   timestamptz NOT NULL,
	revoked_at   timestamptz
);
CREATE INDEX account_sessions_account ON account_sessions (account_id);

-- Failed sign-ins, by throttle key: an account's email key or a client
-- address. Kept as long as the throttle window.
CREATE TABLE sign_in_failures (
	key text NOT NULL,
	at  timestamptz NOT NULL
);
CREATE INDEX sign_in_failures_key ON sign_in_failures (key, at);

-- Callback URLs an app registered for sign-in: an authorization request's
-- redirect_uri must be one of them, byte for byte.
CREATE TABLE app_redirect_uris (
	app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
	uri    text NOT NULL CHECK (uri <> ''),
	PRIMARY KEY (app_id, uri)
);

-- Apps the operator trusts to complete the data-exchange flow with the
-- user's bearer token alone (the spec's token-less POST /data-exchange).
CREATE TABLE first_party_apps (
	app_id    uuid PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
	marked_at timestamptz NOT NULL
);

-- An authorization request, from /auth/authorize until its code is
-- exchanged (then used_at is set, so that a second exchange of the code is
-- recognised and revokes what the first one issued).
CREATE TABLE oauth_auth_requests (
	id                    uuid PRIMARY KEY,
	app_id                uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
	client_id             text NOT NULL,
	redirect_uri          text NOT NULL,
	state                 text NOT NULL,
	nonce                 text NOT NULL,
	scopes                text[] NOT NULL,
	response_type         text NOT NULL,
	response_mode         text NOT NULL,
	code_challenge        text NOT NULL,
	code_challenge_method text NOT NULL,
	requested_permissions text[] NOT NULL,
	require_interaction   boolean NOT NULL,
	account_id            uuid REFERENCES accounts (id) ON DELETE CASCADE,
	granted_permissions   text[],
	auth_time             timestamptz,
	code_hash             bytea UNIQUE,
	code_at               timestamptz,
	used_at               timestamptz,
	created_at            timestamptz NOT NULL
);

-- A family of refresh tokens: those rotated from one sign-in. Presenting a
-- spent token revokes the whole family.
CREATE TABLE oauth_token_families (
	id              uuid PRIMARY KEY,
	account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	app_id          uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
	client_id       text NOT NULL,
	scopes          text[] NOT NULL,
	auth_time       timestamptz NOT NULL,
	auth_request_id uuid,
	created_at      timestamptz NOT NULL,
	revoked_at      timestamptz
);
CREATE INDEX oauth_token_families_request ON oauth_token_families (auth_request_id);

-- A refresh token, as the SHA-256 of the opaque value given to the app.
CREATE TABLE oauth_refresh_tokens (
	hash       bytea PRIMARY KEY CHECK (length(hash) = 32),
	family_id  uuid NOT NULL REFERENCES oauth_token_families (id) ON DELETE CASCADE,
	created_at timestamptz NOT NULL,
	expires_at timestamptz NOT NULL,
	used_at    timestamptz
);
CREATE INDEX oauth_refresh_tokens_family ON oauth_refresh_tokens (family_id);

-- The provider's RSA signing keys (PKCS #8 DER). The newest signs; older
-- ones stay published in the JWKS until every token they signed expired.
CREATE TABLE oauth_signing_keys (
	kid         text PRIMARY KEY,
	private_der bytea NOT NULL,
	created_at  timestamptz NOT NULL
);
