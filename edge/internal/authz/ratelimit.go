package authz

import (
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/bibleplatform/platform/access"
)

// limiter enforces one app's allowance with GCRA (the generic cell rate
// algorithm): one atomic word, the theoretical arrival time of the next
// request, and no background refill. It is exact under concurrency (a CAS
// loop) and allocation-free.
type limiter struct {
	tat atomic.Int64 // theoretical arrival time, ns since the epoch
	// rate is read whole with one load, so that a request never judges by
	// one allowance's interval and another's burst.
	rate atomic.Pointer[gcra]
}

// gcra is an allowance in GCRA's terms; it is never changed once stored.
type gcra struct {
	interval int64 // ns between requests at the sustained rate
	burst    int64 // requests allowed at once
	// limitText is burst in decimal, the X-RateLimit-Limit of every
	// answer judged by this allowance: formatted once, not per request.
	limitText []byte
}

// tolerance is how far ahead of now the TAT may run.
func (g *gcra) tolerance() int64 { return g.interval * g.burst }

func gcraOf(r access.Rate) gcra {
	per := r.PerSecond
	if per <= 0 {
		per = 1
	}
	b := r.Burst
	if b < 1 {
		b = int(math.Ceil(per))
	}
	return gcra{interval: max(1, int64(float64(time.Second)/per)), burst: int64(b),
		limitText: strconv.AppendInt(nil, int64(b), 10)}
}

// newLimiter is a limiter with allowance r, nothing used yet.
func newLimiter(r access.Rate) *limiter {
	l := new(limiter)
	g := gcraOf(r)
	l.rate.Store(&g)
	return l
}

// setRate changes the allowance in place at time now (ns), so that a
// snapshot refresh keeps what an app has already used. What is used is
// counted in requests, not in time: the TAT's lead over now is a number of
// intervals, and it is rescaled to the new interval (and capped at the new
// burst). Kept in time, a lead built at 5 requests/s (200 ms a request)
// would be read at 1000/s as 200 requests each, and an app whose allowance
// was just raised would be refused for having made a handful.
func (l *limiter) setRate(r access.Rate, now int64) {
	next := gcraOf(r)
	old := l.rate.Load()
	if old != nil && old.interval == next.interval && old.burst == next.burst {
		return
	}
	if old != nil {
		for {
			tat := l.tat.Load()
			lead := tat - now
			if lead <= 0 {
				break
			}
			scaled := min(float64(lead)*float64(next.interval)/float64(old.interval), float64(next.tolerance()))
			if l.tat.CompareAndSwap(tat, now+int64(scaled)) {
				break
			}
		}
	}
	l.rate.Store(&next)
}

// decision is the outcome of one request against a limiter, with what the
// X-RateLimit-* and Retry-After headers report.
type decision struct {
	allowed   bool
	rate      *gcra // the allowance judged by: its burst is the limit
	remaining int64 // requests that could be made right now after this one
	reset     int64 // seconds until the allowance is whole again
	retry     int64 // seconds to wait, when refused
}

func (l *limiter) take(now int64) decision {
	g := l.rate.Load()
	interval := g.interval
	tolerance := g.tolerance()
	for {
		tat := l.tat.Load()
		base := max(tat, now)
		next := base + interval
		if next-now > tolerance {
			wait := next - now - tolerance
			return decision{rate: g, remaining: 0,
				reset: ceilSeconds(tat - now), retry: max(1, ceilSeconds(wait))}
		}
		if l.tat.CompareAndSwap(tat, next) {
			return decision{allowed: true, rate: g,
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
