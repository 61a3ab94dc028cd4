package authz

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/bibleplatform/platform/access"
)

// limiter enforces one app's allowance with GCRA (the generic cell rate
// algorithm): one atomic word, the theoretical arrival time of the next
// request, and no background refill. It is exact under concurrency (a CAS
// loop) and allocation-free.
type limiter struct {
	tat      atomic.Int64 // theoretical arrival time, ns since the epoch
	interval atomic.Int64 // ns between requests at the sustained rate
	burst    atomic.Int64 // requests allowed at once
}

// setRate changes the allowance in place, so that a snapshot refresh keeps
// what an app has already used.
func (l *limiter) setRate(r access.Rate) {
	per := r.PerSecond
	if per <= 0 {
		per = 1
	}
	b := r.Burst
	if b < 1 {
		b = int(math.Ceil(per))
	}
	l.interval.Store(int64(float64(time.Second) / per))
	l.burst.Store(int64(b))
}

// decision is the outcome of one request against a limiter, with what the
// X-RateLimit-* and Retry-After headers report.
type decision struct {
	allowed   bool
	limit     int64 // the burst: requests that may be made at once
	remaining int64 // requests that could be made right now after this one
	reset     int64 // seconds until the allowance is whole again
	retry     int64 // seconds to wait, when refused
}

func (l *limiter) take(now int64) decision {
	interval, burst := l.interval.Load(), l.burst.Load()
	tolerance := interval * burst // how far ahead of now the TAT may run
	for {
		tat := l.tat.Load()
		base := max(tat, now)
		next := base + interval
		if next-now > tolerance {
			wait := next - now - tolerance
			return decision{limit: burst, remaining: 0,
				reset: ceilSeconds(tat - now), retry: max(1, ceilSeconds(wait))}
		}
		if l.tat.CompareAndSwap(tat, next) {
			return decision{allowed: true, limit: burst,
				remaining: (tolerance - (next - now)) / interval,
				reset:     ceilSeconds(next - now)}
		}
	}
}

func ceilSeconds(ns int64) int64 {
	if ns <= 0 {
		return 0
	}
	return (ns + int64(time.Second) - 1) / int64(time.Second)
}
