package edge

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultOutageLogInterval is how often a failure that repeats (a store or
// dynamic that does not answer) is logged while it lasts: the watchers
// retry every poll interval, and a line a second per edge buries the rest
// of the log.
const DefaultOutageLogInterval = time.Minute

// outageLog logs one warning per interval for a failure that repeats, with
// the number of failures not logged since the last line, and one line when
// it ends. The zero value logs once per DefaultOutageLogInterval.
type outageLog struct {
	every time.Duration // 0: DefaultOutageLogInterval

	failing    atomic.Bool // read without the lock by ok, on request paths
	mu         sync.Mutex
	last       time.Time // the last line logged
	suppressed int       // failures since then, not logged
}

// failed logs msg and args as a warning unless one was logged less than
// an interval ago; then it only counts the failure.
func (o *outageLog) failed(log *slog.Logger, msg string, args ...any) {
	every := o.every
	if every <= 0 {
		every = DefaultOutageLogInterval
	}
	now := time.Now()
	o.mu.Lock()
	if o.failing.Load() && now.Sub(o.last) < every {
		o.suppressed++
		o.mu.Unlock()
		return
	}
	n := o.suppressed
	o.last, o.suppressed = now, 0
	o.failing.Store(true)
	o.mu.Unlock()
	if n > 0 {
		args = append(args, "suppressed", n)
	}
	log.Warn(msg, args...)
}

// ok ends a failure: msg is logged as information, with the failures not
// logged, if a failure was. Without one it costs an atomic load.
func (o *outageLog) ok(log *slog.Logger, msg string) {
	if !o.failing.Load() {
		return
	}
	o.mu.Lock()
	if !o.failing.Load() {
		o.mu.Unlock()
		return
	}
	n := o.suppressed
	o.suppressed = 0
	o.failing.Store(false)
	o.mu.Unlock()
	log.Info(msg, "suppressed", n)
}
