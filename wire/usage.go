package wire

// Usage reports (docs/portal.md, Usage): each edge counts the requests it
// admitted per app, Bible and day (UTC) and posts them to dynamic's
// UsagePath with the edge token, in batches of at most MaxUsageCounts.

// UsagePath is dynamic's internal route that takes usage reports.
const UsagePath = "/internal/usage"

// MaxUsageCounts is the most counts one UsageBatch carries.
const MaxUsageCounts = 1000

// UsageBatch is one report of an edge's counted requests. Edge names the
// edge process (random per start) and Seq numbers its batches from 1: a
// batch sent again after an answer was lost carries the same pair, and
// dynamic adds each pair's counts once.
type UsageBatch struct {
	Edge   string       `json:"edge"`
	Seq    int64        `json:"seq"`
	Counts []UsageCount `json:"counts"`
}

// UsageCount is the requests of one app for one Bible on one day.
type UsageCount struct {
	App      string `json:"app"`      // the app's id
	Bible    int32  `json:"bible"`    // 0: requests that read no Bible
	Day      string `json:"day"`      // YYYY-MM-DD, UTC
	Requests int64  `json:"requests"` // at least 1
}
