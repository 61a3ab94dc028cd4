-- Usage (docs/portal.md): the requests each app made per Bible and UTC
-- day, as the edges count and report them, and the organizations that own
-- licences (the licensors, who see their Bibles' usage).

-- Bible 0 holds the requests of routes that read no Bible (catalogue,
-- search, forwarded routes). An app's rows go with the app.
CREATE TABLE usage_daily (
    app_id   uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    bible_id integer NOT NULL CHECK (bible_id >= 0),
    day      date NOT NULL,
    requests bigint NOT NULL CHECK (requests > 0),
    PRIMARY KEY (app_id, day, bible_id)
);
CREATE INDEX usage_daily_bible ON usage_daily (bible_id, day);

-- The batches taken, by the reporting edge's name and the batch's number:
-- a batch sent again (its answer was lost) is not counted twice. Kept for
-- a week, far longer than an edge retries.
CREATE TABLE usage_batches (
    edge     text NOT NULL CHECK (length(edge) BETWEEN 1 AND 64),
    seq      bigint NOT NULL CHECK (seq > 0),
    received timestamptz NOT NULL,
    PRIMARY KEY (edge, seq)
);
CREATE INDEX usage_batches_received ON usage_batches (received);

-- The organization that owns a licence (licences are published content;
-- the operator names the owner with `dynamic licenses owner`). Its members
-- see the usage of the licence's Bibles.
CREATE TABLE license_owners (
    license_id      integer PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    set_at          timestamptz NOT NULL
);
CREATE INDEX license_owners_organization ON license_owners (organization_id);
