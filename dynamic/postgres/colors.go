package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/bibleplatform/platform/dynamic"
)

var _ dynamic.HighlightColors = (*DB)(nil)

// RecentColors is the user's distinct colours, most recently used first: a
// scan of the user's rows in the primary key.
func (db *DB) RecentColors(ctx context.Context, userID string, limit int) ([]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT color FROM highlights WHERE user_id = $1
		GROUP BY color ORDER BY max(updated_at) DESC, color LIMIT $2`, userID, limit)
	if err != nil {
		return nil, translate(err, "recent colors")
	}
	colors, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return colors, translate(err, "recent colors")
}
