-- Passkeys (WebAuthn credentials) of platform accounts, and the challenges
-- of ceremonies in progress (docs/sign-in.md).

-- credential is the library's record of the credential (public key, sign
-- count, flags) as JSON; id is the credential id the authenticator names.
CREATE TABLE account_passkeys (
	id         bytea PRIMARY KEY,
	account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	credential jsonb NOT NULL,
	created_at timestamptz NOT NULL
);
CREATE INDEX account_passkeys_account ON account_passkeys (account_id);

-- A registration or sign-in ceremony between its two requests: the
-- challenge and what it expects, by the hash of a random id the browser
-- holds in a cookie. Taken (deleted) by the second request.
CREATE TABLE passkey_ceremonies (
	hash       bytea PRIMARY KEY CHECK (length(hash) = 32),
	data       jsonb NOT NULL,
	expires_at timestamptz NOT NULL
);
