// Package outage logs a failure that repeats (a store, dynamic, an access
// source that does not answer) once an interval while it lasts, and its
// end once: the edge's watchers retry every poll interval and requests
// meet the same failure at request rate, and a line each buries the rest
// of the log.
package outage

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// defaultInterval is how often a failure that repeats is logged while it
// lasts.
const defaultInterval = time.Minute

// Log logs one warning per interval for a failure that repeats, with
// the number of failures not logged since the last line, and one line when
// it ends. The zero value logs once per defaultInterval.
type Log struct {
	Every time.Duration // 0: defaultInterval

	failing    atomic.Bool // read without the lock by ok, on request paths
	mu         sync.Mutex
	last       time.Time // the last line logged
	suppressed int       // failures since then, not logged
}

// Failed logs msg and args as a warning unless one was logged less than
// an interval ago; then it only counts the failure.
func (o *Log) Failed(log *slog.Logger, msg string, args ...any) {
	every := o.Every
	if every <= 0 {
		every = defaultInterval
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

// OK ends a failure: msg is logged as information, with the failures not
// logged, if a failure was. Without one it costs an atomic load.
func (o *Log) OK(log *slog.Logger, msg string) {
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
