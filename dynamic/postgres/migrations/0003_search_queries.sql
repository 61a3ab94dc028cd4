-- Trending search queries (docs/search.md). Edges report how often each
-- normalised phrase was searched, per language; no user or app identity is
-- stored. To require a minimum of distinct apps behind a phrase, each app
-- is stored as a keyed hash with a salt of the day (search_query_salts);
-- the salt is deleted once its day is over, after which the hashes cannot
-- be tied to any app, and the hashes themselves go with the window.

CREATE TABLE search_query_counts (
    language text NOT NULL CHECK (length(language) BETWEEN 1 AND 35),
    phrase   text NOT NULL CHECK (length(phrase) BETWEEN 1 AND 100),
    hour     timestamptz NOT NULL,
    searches bigint NOT NULL CHECK (searches > 0),
    PRIMARY KEY (language, phrase, hour)
);
CREATE INDEX search_query_counts_hour ON search_query_counts (hour);

CREATE TABLE search_query_salts (
    day  date PRIMARY KEY,
    salt bytea NOT NULL CHECK (length(salt) = 32)
);

CREATE TABLE search_query_apps (
    language text NOT NULL,
    phrase   text NOT NULL,
    day      date NOT NULL,
    app      bytea NOT NULL CHECK (length(app) = 16),
    PRIMARY KEY (language, phrase, day, app)
);
CREATE INDEX search_query_apps_day ON search_query_apps (day);
