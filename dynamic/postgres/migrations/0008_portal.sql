-- The developer portal (docs/portal.md): organizations (the licensees),
-- their members and invitations, and what an app's registration records
-- beyond the apps row.

CREATE TABLE organizations (
	id         uuid PRIMARY KEY,
	name       text NOT NULL CHECK (name <> ''),
	created_by uuid NOT NULL REFERENCES accounts (id),
	created_at timestamptz NOT NULL
);

-- A member of an organization. Every organization keeps at least one owner:
-- the portal removes members in a transaction that counts the owners left.
CREATE TABLE organization_members (
	organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
	account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	role            text NOT NULL CHECK (role IN ('owner', 'developer')),
	joined_at       timestamptz NOT NULL,
	PRIMARY KEY (organization_id, account_id)
);
CREATE INDEX organization_members_account ON organization_members (account_id);

-- An invitation, stored as the SHA-256 of the token in its link; only the
-- account with the invited address can accept it, once, before it expires.
CREATE TABLE organization_invitations (
	hash            bytea PRIMARY KEY CHECK (length(hash) = 32),
	organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
	email_key       text NOT NULL CHECK (email_key <> '' AND email_key = lower(email_key)),
	role            text NOT NULL CHECK (role IN ('owner', 'developer')),
	invited_by      uuid NOT NULL REFERENCES accounts (id),
	created_at      timestamptz NOT NULL,
	expires_at      timestamptz NOT NULL,
	accepted_by     uuid REFERENCES accounts (id),
	accepted_at     timestamptz
);
CREATE INDEX organization_invitations_organization ON organization_invitations (organization_id);

-- What a developer said when registering an app on the portal, and who did.
CREATE TABLE app_registrations (
	app_id        uuid PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
	use_case      text NOT NULL,
	registered_by uuid NOT NULL REFERENCES accounts (id),
	registered_at timestamptz NOT NULL
);
