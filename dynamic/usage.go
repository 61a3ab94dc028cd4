package dynamic

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/wire"
	"github.com/bibleplatform/platform/wire/problem"
)

// Usage (docs/portal.md): edges post the requests they admitted per app,
// Bible and UTC day to POST /internal/usage (wire.UsagePath), with the edge
// token; each batch is added once, by its edge name and number, to the
// daily counts in PostgreSQL that the portal's usage pages read.

// UsageDay is an app's requests for one Bible (0: none) on one day.
type UsageDay struct {
	Day      time.Time
	BibleID  int32
	Requests int64
}

// UsageMonth is one app's requests for one Bible in one month.
type UsageMonth struct {
	Month    time.Time // the first of the month, UTC
	BibleID  int32
	AppID    string
	AppName  string
	Licensee string // the app's organization's name; "" when it has none on the portal
	Requests int64
}

// UsageStore holds usage counts and licence owners.
type UsageStore interface {
	// AddUsage adds a batch's counts, unless a batch with the same edge
	// and seq was added before (then it reports false and changes
	// nothing). Counts of apps that no longer exist are left out.
	AddUsage(ctx context.Context, edge string, seq int64, at time.Time, counts []wire.UsageCount) (bool, error)
	// AppUsage lists an app's counts from day since on, by day and Bible.
	AppUsage(ctx context.Context, appID string, since time.Time) ([]UsageDay, error)
	// BibleUsage lists the counts of bibles from since on, by month
	// (newest first), Bible and app.
	BibleUsage(ctx context.Context, bibles []int32, since time.Time) ([]UsageMonth, error)
	// SetLicenseOwner makes orgID the owner of a licence; "" leaves it
	// without one. ErrNotFound: no organization has orgID.
	SetLicenseOwner(ctx context.Context, licenseID int, orgID string, at time.Time) error
	// OwnedLicenses lists the ids of the licences an organization owns.
	OwnedLicenses(ctx context.Context, orgID string) ([]int, error)
}

// usageReports serves POST /internal/usage.
type usageReports struct {
	*requests
	store UsageStore
}

// usageSkewDays is how far a reported day may lie from today (UTC): an
// edge's batch is a few seconds old, a retried one hours at most.
const (
	usageSkewDays = 7
	usageSkew     = usageSkewDays * 24 * time.Hour
)

// postUsage answers POST /internal/usage: a wire.UsageBatch, checked
// whole (422 names the first bad entry), added once, 204.
func (u *usageReports) postUsage(ctx *fasthttp.RequestCtx) {
	var b wire.UsageBatch
	dec := json.NewDecoder(bytes.NewReader(ctx.PostBody()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		validation(ctx, problem.JSONBody(err))
		return
	}
	now := u.now()
	if d := checkUsageBatch(&b, now); d != nil {
		validation(ctx, *d)
		return
	}
	if _, err := u.store.AddUsage(u.ctx, b.Edge, b.Seq, now, b.Counts); err != nil {
		u.fail(ctx, err)
		return
	}
	noContent(ctx, http.StatusNoContent)
}

// checkUsageBatch reports the first thing wrong with a batch, nil when
// none is.
func checkUsageBatch(b *wire.UsageBatch, now time.Time) *detail {
	switch {
	case b.Edge == "" || len(b.Edge) > 64 || !edgeName(b.Edge):
		d := problem.Pattern("^[A-Za-z0-9-]{1,64}$", "body", "edge")
		return &d
	case b.Seq < 1:
		d := problem.OutOfRange(1, math.MaxInt64, "body", "seq")
		return &d
	case len(b.Counts) > wire.MaxUsageCounts:
		d := problem.TooManyItems(wire.MaxUsageCounts, "body", "counts")
		return &d
	}
	for i, c := range b.Counts {
		at := strconv.Itoa(i)
		day, err := time.Parse(time.DateOnly, c.Day)
		var d detail
		switch {
		case !bible.ValidUUID(c.App):
			d = problem.NotUUID("body", "counts", at, "app")
		case c.Bible < 0:
			d = problem.OutOfRange(0, math.MaxInt32, "body", "counts", at, "bible")
		case err != nil || day.Sub(now) > usageSkew || now.Sub(day) > usageSkew:
			d = problem.DateWithin(usageSkewDays, "body", "counts", at, "day")
		case c.Requests < 1 || c.Requests > 1<<40:
			d = problem.OutOfRange(1, 1<<40, "body", "counts", at, "requests")
		default:
			continue
		}
		return &d
	}
	return nil
}

func edgeName(s string) bool {
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
