-- The dynamic service's schema: apps and their keys, licence agreements,
-- users' permission grants, highlights and data-exchange tokens.

-- access_state holds the version of the access data the edges enforce (apps,
-- keys, agreements). Triggers bump it in the writing transaction, so a
-- reader sees the new version together with the new rows, and notify
-- 'access_changed' on commit. It lives in the database so that it only ever
-- grows, across restarts and across several dynamic instances.
CREATE TABLE access_state (
	singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
	version   bigint  NOT NULL
);
INSERT INTO access_state VALUES (true, 1);

CREATE FUNCTION bump_access_version() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE v bigint;
BEGIN
	UPDATE access_state SET version = version + 1 RETURNING version INTO v;
	PERFORM pg_notify('access_changed', v::text);
	RETURN v;
END $$;

CREATE FUNCTION access_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM bump_access_version();
	RETURN NULL;
END $$;

CREATE TABLE apps (
	id              uuid PRIMARY KEY,
	name            text NOT NULL CHECK (name <> ''),
	description     text NOT NULL DEFAULT '',
	website_url     text NOT NULL DEFAULT '',
	status          text NOT NULL CHECK (status IN ('development', 'live', 'archived')),
	organization_id uuid,
	-- callback_url is where the consent flow redirects: registered here,
	-- never taken from a request.
	callback_url    text NOT NULL DEFAULT '',
	rate_per_second double precision NOT NULL DEFAULT 0 CHECK (rate_per_second >= 0),
	rate_burst      integer NOT NULL DEFAULT 0 CHECK (rate_burst >= 0),
	created_at      timestamptz NOT NULL DEFAULT now(),
	updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX apps_organization ON apps (organization_id);

-- App Keys are stored as their SHA-256 only; the key itself is shown once.
CREATE TABLE app_keys (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	app_id     uuid NOT NULL REFERENCES apps (id),
	hash       bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
	-- hint is the key's first characters, to tell keys apart in listings.
	hint       text NOT NULL DEFAULT '',
	created_at timestamptz NOT NULL DEFAULT now(),
	revoked_at timestamptz
);
CREATE INDEX app_keys_app ON app_keys (app_id);

-- An agreement to a licence by an organization (its apps may then read the
-- licence's Bibles), by a developer, or by a developer on behalf of an
-- organization. Licences themselves are published content.
CREATE TABLE license_agreements (
	id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	license_id      integer NOT NULL,
	organization_id uuid,
	developer_id    uuid,
	agreed_at       timestamptz NOT NULL,
	CHECK (organization_id IS NOT NULL OR developer_id IS NOT NULL),
	UNIQUE NULLS NOT DISTINCT (license_id, organization_id, developer_id)
);
CREATE INDEX license_agreements_organization ON license_agreements (organization_id);
CREATE INDEX license_agreements_developer ON license_agreements (developer_id);

CREATE TRIGGER apps_access AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON apps
	FOR EACH STATEMENT EXECUTE FUNCTION access_changed();
CREATE TRIGGER app_keys_access AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON app_keys
	FOR EACH STATEMENT EXECUTE FUNCTION access_changed();
CREATE TRIGGER license_agreements_access AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON license_agreements
	FOR EACH STATEMENT EXECUTE FUNCTION access_changed();

-- A user's grant of a permission to an app, given in the consent flow.
CREATE TABLE grants (
	user_id    uuid NOT NULL,
	app_id     uuid NOT NULL REFERENCES apps (id),
	permission text NOT NULL CHECK (permission IN ('highlights')),
	granted_at timestamptz NOT NULL,
	PRIMARY KEY (user_id, app_id, permission)
);

-- One colour per user, Bible and verse: the primary key is what makes many
-- concurrent creations of the same highlight leave exactly one row.
CREATE TABLE highlights (
	user_id    uuid NOT NULL,
	bible_id   integer NOT NULL,
	passage_id text NOT NULL,
	color      text NOT NULL CHECK (color ~ '^[0-9a-f]{6}$'),
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (user_id, bible_id, passage_id)
);

-- The first answer to each highlight creation, by its request_id, so that
-- a retry gets the same answer. Kept a day.
CREATE TABLE highlight_requests (
	user_id    uuid NOT NULL,
	request_id uuid NOT NULL,
	status     smallint NOT NULL,
	body       bytea NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (user_id, request_id)
);
CREATE INDEX highlight_requests_created ON highlight_requests (created_at);

-- Data-exchange tokens, stored as their SHA-256: single use, short-lived.
CREATE TABLE data_exchange_tokens (
	hash        bytea PRIMARY KEY CHECK (length(hash) = 32),
	app_id      uuid NOT NULL REFERENCES apps (id),
	user_id     uuid NOT NULL,
	permissions text[] NOT NULL,
	created_at  timestamptz NOT NULL,
	expires_at  timestamptz NOT NULL,
	consumed_at timestamptz
);
CREATE INDEX data_exchange_tokens_expires ON data_exchange_tokens (expires_at);
