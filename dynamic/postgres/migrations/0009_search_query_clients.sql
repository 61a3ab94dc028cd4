-- Trending needs distinct clients as well as distinct apps (docs/search.md):
-- App Keys are public, so three keys are no proof of three readers. Each
-- client comes as an edge's keyed hash of its address and is stored as
-- the day's keyed hash of that, like the apps, and goes with the window.
CREATE TABLE search_query_clients (
    language text NOT NULL,
    phrase   text NOT NULL,
    day      date NOT NULL,
    client   bytea NOT NULL CHECK (length(client) = 16),
    PRIMARY KEY (language, phrase, day, client)
);
CREATE INDEX search_query_clients_day ON search_query_clients (day);

-- Phrases the operator keeps out of trending (dynamic trending block),
-- in every language, as trending.Normalize writes them.
CREATE TABLE search_query_blocked (
    phrase  text PRIMARY KEY CHECK (length(phrase) BETWEEN 1 AND 100),
    blocked timestamptz NOT NULL DEFAULT now()
);
