package dynamic

import (
	"context"
	"net/http"

	"github.com/valyala/fasthttp"
)

// HighlightColors is the storage GET /v1/highlights/recent-colors needs.
// dynamic/postgres implements it.
type HighlightColors interface {
	// RecentColors is the user's distinct highlight colours, most recently
	// used first, at most limit.
	RecentColors(ctx context.Context, userID string, limit int) ([]string, error)
}

// defaultColors follow a user's own colours in recent-colors, so that a
// new user's palette is not empty: light tones that keep text readable.
var defaultColors = []string{"fde68a", "bbf7d0", "bfdbfe", "fbcfe8", "fed7aa"}

// maxRecentColors bounds the user's own colours in the answer.
const maxRecentColors = 10

// getRecentColors answers GET /v1/highlights/recent-colors
// (live-routes.md): {"data":[{"color"}]}, the user's recent colours, then
// the defaults they have not used.
func (h *highlightRoutes) getRecentColors(ctx *fasthttp.RequestCtx, c caller) {
	user, ok := h.user(ctx)
	if !ok || !h.requireGrant(ctx, user, c.AppID, PermissionHighlights) {
		return
	}
	var recent []string
	if h.colors != nil {
		var err error
		if recent, err = h.colors.RecentColors(h.ctx, user, maxRecentColors); err != nil {
			h.fail(ctx, err)
			return
		}
	}
	type color struct {
		Color string `json:"color"`
	}
	data := make([]color, 0, len(recent)+len(defaultColors))
	seen := map[string]bool{}
	for _, list := range [][]string{recent, defaultColors} {
		for _, c := range list {
			if !seen[c] {
				seen[c] = true
				data = append(data, color{c})
			}
		}
	}
	writeJSON(ctx, http.StatusOK, map[string]any{"data": data})
}
