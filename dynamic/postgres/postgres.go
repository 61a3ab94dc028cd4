// Package postgres implements dynamic.DB on PostgreSQL with pgx. It is the
// only package that imports pgx; driver errors are translated here (no rows
// → dynamic.ErrNotFound, unique violation → dynamic.ErrConflict).
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bibleplatform/platform/dynamic"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is a connection pool to the service's database.
type DB struct {
	pool  *pgxpool.Pool
	url   string
	reads readBatcher
}

var _ dynamic.DB = (*DB)(nil)

// Open connects to url. It does not migrate; call Migrate.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse url: %w", err)
	}
	if cfg.MaxConns < 16 && !strings.Contains(url, "pool_max_conns") {
		// Highlights are small, short transactions: enough connections to
		// keep two cores busy while some wait on commit. An explicit
		// pool_max_conns in the URL wins.
		cfg.MaxConns = 16
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	db := &DB{pool: pool, url: url}
	db.reads.db = db
	return db, nil
}

// Ping makes a round trip to the server on a pooled connection. A pooled
// connection the server ended (a restart, a failover) fails once and is
// dropped, so Ping tries the next until one answers or a new connection
// cannot be made: the answer is about the server now, not about
// connections left over from before it came back.
func (db *DB) Ping(ctx context.Context) error {
	for i := 0; ; i++ {
		err := db.pool.Ping(ctx)
		var ce *pgconn.ConnectError
		if err == nil || errors.As(err, &ce) || ctx.Err() != nil || i >= int(db.pool.Config().MaxConns) {
			return translate(err, "ping")
		}
	}
}

// Close closes the pool.
func (db *DB) Close() { db.pool.Close() }

// Migrate applies the embedded migrations not applied yet, each in its own
// transaction, under an advisory lock so that instances starting together
// do not race.
func (db *DB) Migrate(ctx context.Context) error { return db.migrate(ctx, math.MaxInt) }

// migrate applies the migrations not applied yet up to version last.
func (db *DB) migrate(ctx context.Context, last int) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	const lock = 0x62706d6967 // "bpmig"
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, lock); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lock)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil {
			return fmt.Errorf("migrate: %s: name must start with a number and '_'", base)
		}
		if version > last {
			break
		}
		var done bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM schema_migrations WHERE version = $1)`, version).Scan(&done); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if done {
			continue
		}
		sql, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, version, base)
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate: %s: %w", base, err)
		}
	}
	return nil
}

// translate maps driver errors to the domain's.
func translate(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, dynamic.ErrNotFound)
	}
	if unavailable(err) {
		return fmt.Errorf("%s: %w: %w", what, dynamic.ErrUnavailable, err)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505": // unique_violation
			return fmt.Errorf("%s: %w", what, dynamic.ErrConflict)
		case "23503": // foreign_key_violation: the referenced row is missing
			return fmt.Errorf("%s: %s: %w", what, pe.Detail, dynamic.ErrNotFound)
		case "23514", "22P02": // check_violation, invalid_text_representation
			return fmt.Errorf("%s: %s: %w", what, pe.Message, dynamic.ErrUnacceptable)
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// unavailable reports an error that says the server cannot be reached or
// is not serving right now, rather than anything about the request: no
// connection (refused, reset, timed out), a connection lost mid-query, or
// the server shutting down, crashed or starting up (SQLSTATE class 08,
// 57P01-57P03, 53300 too many connections). The pool reconnects on its
// own once the server is back.
func unavailable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "57P01", "57P02", "57P03", "53300":
			return true
		}
		return strings.HasPrefix(pe.Code, "08")
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.Timeout(err) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// retryable reports a transaction that lost a race and may simply be run
// again: a deadlock or a serialization failure.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// inTx runs fn in a transaction, retrying a few times when it loses a race.
func (db *DB) inTx(ctx context.Context, opts pgx.TxOptions, fn func(pgx.Tx) error) error {
	var err error
	for range 5 {
		err = pgx.BeginTxFunc(ctx, db.pool, opts, fn)
		if !retryable(err) {
			return err
		}
	}
	return err
}
