package usage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/metrics"
	"github.com/bibleplatform/platform/wire"
)

// Post sends one encoded wire.UsageBatch to dynamic's wire.UsagePath; an
// error means dynamic may not have taken it.
type Post func(ctx context.Context, body []byte) error

// Reporter turns the counter's counts into numbered batches and posts
// them. A batch that fails is kept and sent again, as it was, before
// anything new: dynamic adds each (edge, seq) once, so a batch it took
// whose answer was lost is not counted twice. While batches are pending
// the counter is not taken, so what is held is bounded by the table. A
// batch still refused MaxPendingAge after it was made is given up (dynamic
// refusing it for that long is not an outage but a batch it will never
// take), so that it cannot stop every later report.
type Reporter struct {
	Counter *Counter
	post    Post
	edge    string

	mu      sync.Mutex
	seq     int64
	pending []batch // not yet taken by dynamic, oldest first

	// Failed counts posts that failed; Reported the requests dynamic
	// took; Abandoned those never reported: in batches given up, or of an
	// app whose id dynamic cannot take (not a UUID: an access file's).
	Failed, Reported, Abandoned metrics.Counter

	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

// MaxPendingAge is how long a batch is sent again before it is given up:
// beyond any outage dynamic's daily counts wait out, within the week of
// days it takes.
const MaxPendingAge = 24 * time.Hour

func (r *Reporter) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// NewReporter returns a reporter of a new counter that posts with post,
// under an edge name random to this process.
func NewReporter(post Post) *Reporter {
	b := make([]byte, 12)
	rand.Read(b)
	return &Reporter{Counter: NewCounter(), post: post, edge: hex.EncodeToString(b)}
}

// Edge is the name this reporter's batches carry.
func (r *Reporter) Edge() string { return r.edge }

// Report sends the pending batches, then what was counted since the last
// report, in batches of at most wire.MaxUsageCounts. It stops at the first
// failure, keeping that batch and those after it for the next call.
func (r *Reporter) Report(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) == 0 {
		counts := slices.DeleteFunc(r.Counter.Take(), func(c Count) bool {
			if bible.ValidUUID(c.App) {
				return false
			}
			r.Abandoned.Add(uint64(c.Requests))
			return true
		})
		made := r.now()
		for len(counts) > 0 {
			part := counts[:min(len(counts), wire.MaxUsageCounts)]
			counts = counts[len(part):]
			r.seq++
			b := wire.UsageBatch{Edge: r.edge, Seq: r.seq, Counts: make([]wire.UsageCount, len(part))}
			for i, c := range part {
				b.Counts[i] = wire.UsageCount{App: c.App, Bible: c.Bible, Requests: c.Requests,
					Day: time.Unix(int64(c.Day)*86400, 0).UTC().Format(time.DateOnly)}
			}
			body, err := json.Marshal(b)
			if err != nil {
				return fmt.Errorf("usage batch: %w", err)
			}
			n := int64(0)
			for _, c := range part {
				n += c.Requests
			}
			r.pending = append(r.pending, batch{body, n, made})
		}
	}
	for len(r.pending) > 0 {
		p := r.pending[0]
		if err := r.post(ctx, p.body); err != nil {
			r.Failed.Inc()
			if r.now().Sub(p.made) < MaxPendingAge {
				return fmt.Errorf("report usage: %w", err)
			}
			r.Abandoned.Add(uint64(p.requests))
			r.pending = r.pending[1:]
			return fmt.Errorf("report usage: gave up a batch of %d requests refused for %v: %w", p.requests, MaxPendingAge, err)
		}
		r.Reported.Add(uint64(r.pending[0].requests))
		r.pending = r.pending[1:]
	}
	return nil
}

// batch is one encoded wire.UsageBatch, the requests it counts and when
// it was made.
type batch struct {
	body     []byte
	requests int64
	made     time.Time
}

// Run reports every interval, and early when the counter fills up (but
// not more often than a tenth of the interval: a full table while dynamic
// is down must not become a loop of posts), until ctx ends; then it
// reports once more, for at most two seconds. failed and ok are told each
// report's outcome (for logging).
func (r *Reporter) Run(ctx context.Context, every time.Duration, failed func(error), ok func()) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var last time.Time
	report := func(ctx context.Context) {
		last = time.Now()
		if err := r.Report(ctx); err != nil {
			failed(err)
		} else {
			ok()
		}
	}
	for {
		select {
		case <-ctx.Done():
			stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			report(stop)
			cancel()
			return
		case <-tick.C:
			report(ctx)
		case <-r.Counter.Full():
			if time.Since(last) >= every/10 {
				report(ctx)
			}
		}
	}
}

// WriteMetrics writes the reporter's counters in Prometheus's text format.
func (r *Reporter) WriteMetrics(w io.Writer) {
	metrics.WriteScalar(w, "edge_usage_dropped_total", "counter", "Admitted requests not counted for usage: the usage table was full.", r.Counter.Dropped())
	metrics.WriteScalar(w, "edge_usage_reported_total", "counter", "Admitted requests reported to dynamic for usage.", r.Reported.Load())
	metrics.WriteScalar(w, "edge_usage_report_failures_total", "counter", "Usage batches dynamic did not take (kept and sent again).", r.Failed.Load())
	metrics.WriteScalar(w, "edge_usage_abandoned_total", "counter", "Counted requests never reported: in batches dynamic refused for a day, or of apps whose id is not a UUID.", r.Abandoned.Load())
}
