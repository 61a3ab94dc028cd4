package postgres

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/trending"
)

// SearchSalt returns the salt of day (UTC), creating it on first use;
// instances racing to create it all get the one that was stored.
func (db *DB) SearchSalt(ctx context.Context, day time.Time) ([]byte, error) {
	salt := make([]byte, 32)
	rand.Read(salt)
	var got []byte
	err := db.pool.QueryRow(ctx, `WITH ins AS (
			INSERT INTO search_query_salts (day, salt) VALUES ($1, $2)
			ON CONFLICT (day) DO NOTHING RETURNING salt)
		SELECT salt FROM ins UNION ALL SELECT salt FROM search_query_salts WHERE day = $1 LIMIT 1`,
		dayOf(day), salt).Scan(&got)
	return got, translate(err, "search salt")
}

// AddSearchQueries adds counted searches at hour and the day's app hashes,
// in one transaction. Rows are written in (language, phrase) order, so
// that edges reporting at once lock them in the same order.
func (db *DB) AddSearchQueries(ctx context.Context, at time.Time, qs []dynamic.SearchCount) error {
	n := len(qs)
	langs, phrases, counts := make([]string, n), make([]string, n), make([]int64, n)
	var appLangs, appPhrases, clientLangs, clientPhrases []string
	var apps, clients [][]byte
	for i, q := range qs {
		langs[i], phrases[i], counts[i] = q.Language, q.Phrase, q.Count
		for _, h := range q.Apps {
			appLangs, appPhrases, apps = append(appLangs, q.Language), append(appPhrases, q.Phrase), append(apps, h)
		}
		for _, h := range q.Clients {
			clientLangs, clientPhrases, clients = append(clientLangs, q.Language), append(clientPhrases, q.Phrase), append(clients, h)
		}
	}
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO search_query_counts (language, phrase, hour, searches)
			SELECT l, p, $4, c FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(l, p, c)
			ON CONFLICT (language, phrase, hour) DO UPDATE SET searches = search_query_counts.searches + excluded.searches`,
			langs, phrases, counts, at.UTC().Truncate(time.Hour)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO search_query_apps (language, phrase, day, app)
			SELECT l, p, $4, a FROM unnest($1::text[], $2::text[], $3::bytea[]) AS u(l, p, a)
			ON CONFLICT DO NOTHING`, appLangs, appPhrases, apps, dayOf(at)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO search_query_clients (language, phrase, day, client)
			SELECT l, p, $4, c FROM unnest($1::text[], $2::text[], $3::bytea[]) AS u(l, p, c)
			ON CONFLICT DO NOTHING`, clientLangs, clientPhrases, clients, dayOf(at))
		return err
	})
	return translate(err, "add search queries")
}

// Trending returns, per language, the limit phrases searched most since
// since whose most distinct apps on one day (from sinceDay) reach minApps,
// and whose most distinct clients on one day reach minApps too, leaving
// out the phrases the operator blocked.
func (db *DB) Trending(ctx context.Context, since time.Time, minApps, limit int) (map[string][]trending.Phrase, error) {
	rows, err := db.pool.Query(ctx, `WITH c AS (
			SELECT language, phrase, sum(searches) AS n FROM search_query_counts
			WHERE hour >= $1 AND phrase NOT IN (SELECT phrase FROM search_query_blocked)
			GROUP BY language, phrase
		), a AS (
			SELECT language, phrase, max(apps) AS apps FROM (
				SELECT language, phrase, day, count(*) AS apps FROM search_query_apps
				WHERE day >= $2 GROUP BY language, phrase, day) d
			GROUP BY language, phrase
		), k AS (
			SELECT language, phrase, max(clients) AS clients FROM (
				SELECT language, phrase, day, count(*) AS clients FROM search_query_clients
				WHERE day >= $2 GROUP BY language, phrase, day) d
			GROUP BY language, phrase
		), r AS (
			SELECT c.language, c.phrase, c.n, a.apps,
				row_number() OVER (PARTITION BY c.language ORDER BY c.n DESC, c.phrase) AS rank
			FROM c JOIN a USING (language, phrase) JOIN k USING (language, phrase)
			WHERE a.apps >= $3 AND k.clients >= $3
		)
		SELECT language, phrase, n, apps FROM r WHERE rank <= $4 ORDER BY language, rank`,
		since.UTC(), dayOf(since), minApps, limit)
	if err != nil {
		return nil, translate(err, "trending")
	}
	out := map[string][]trending.Phrase{}
	var lang string
	var p trending.Phrase
	_, err = pgx.ForEachRow(rows, []any{&lang, &p.Text, &p.Count, &p.Apps}, func() error {
		out[lang] = append(out[lang], p)
		return nil
	})
	return out, translate(err, "trending")
}

// PurgeSearchQueries deletes counts and app hashes from before before, and
// the salts of days before today (UTC of now): a past day's hashes can no
// longer be recomputed for any app.
func (db *DB) PurgeSearchQueries(ctx context.Context, before, now time.Time) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM search_query_counts WHERE hour < $1`, before.UTC()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM search_query_apps WHERE day < $1`, dayOf(before)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM search_query_clients WHERE day < $1`, dayOf(before)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM search_query_salts WHERE day < $1`, dayOf(now))
		return err
	})
	return translate(err, "purge search queries")
}

// dayOf is t's UTC date, as PostgreSQL's date takes it.
func dayOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// BlockPhrase keeps a phrase out of trending in every language; blocking
// it again changes nothing.
func (db *DB) BlockPhrase(ctx context.Context, phrase string) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO search_query_blocked (phrase) VALUES ($1) ON CONFLICT DO NOTHING`, phrase)
	return translate(err, "block phrase")
}

// UnblockPhrase lets a blocked phrase trend again; it reports whether the
// phrase was blocked.
func (db *DB) UnblockPhrase(ctx context.Context, phrase string) (bool, error) {
	tag, err := db.pool.Exec(ctx, `DELETE FROM search_query_blocked WHERE phrase = $1`, phrase)
	return tag.RowsAffected() > 0, translate(err, "unblock phrase")
}

// BlockedPhrases lists the blocked phrases in order.
func (db *DB) BlockedPhrases(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT phrase FROM search_query_blocked ORDER BY phrase`)
	if err != nil {
		return nil, translate(err, "blocked phrases")
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, translate(err, "blocked phrases")
}
