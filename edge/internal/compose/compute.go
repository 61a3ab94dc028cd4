package compose

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/edge/internal/cache"
	"github.com/bibleplatform/platform/edge/internal/respond"
	"github.com/bibleplatform/platform/wire/problem"
)

// Computations bound the answers the edge composes on demand (catalogue
// pages with caller-chosen page_size, fields[] and locale; searches not in
// the answer cache; suggestions): one computation per key runs at a time,
// the requests asking for the same key meanwhile wait for it and are
// answered from the cache it fills, and at most cap(slots) run at once
// across keys, beyond which a request is answered 503 with Retry-After at
// once rather than queued behind work it cannot speed up.
type Computations struct {
	mu      sync.Mutex
	running cache.Flights[struct{}]
	slots   chan struct{}
	// computed counts computations run: /metrics, and the tests that
	// show concurrent requests for one key compute it once.
	computed atomic.Uint64
	refused  atomic.Uint64
}

// computationsPerCore is how many computations may run at once per core:
// they are CPU-bound, so more only lengthens each one and the passages
// served meanwhile.
const computationsPerCore = 4

// NewComputations bounds the computations run at once to n (0: a few per
// core).
func NewComputations(n int) *Computations {
	if n <= 0 {
		n = computationsPerCore * runtime.GOMAXPROCS(0)
	}
	return &Computations{running: make(cache.Flights[struct{}]), slots: make(chan struct{}, n)}
}

var errBusy = errors.New("too many computations at once")

// Serve answers ctx for key: from the cache when cached serves it (it
// reports whether it did), else by running compute, which composes the
// answer, serves it and stores it where cached finds it. While compute
// runs for key, other requests for key wait and then look in the cache;
// an answer compute does not store (a 204, a failure) is computed by one
// of them next, one at a time. key must be made of validated, normalised
// parameters only, so that spellings of one request share it.
func (c *Computations) Serve(ctx *fasthttp.RequestCtx, key string, cached func() bool, compute func()) {
	for {
		if cached() {
			return
		}
		c.mu.Lock()
		f, lead := c.running.Join(key)
		c.mu.Unlock()
		if !lead {
			if _, err := f.Wait(ctx); err != nil {
				c.busy(ctx)
				return
			}
			continue
		}
		// A computation that finished between the look above and the
		// join has filled the cache: look again before computing.
		if cached() {
			c.finish(key, f, nil)
			return
		}
		select {
		case c.slots <- struct{}{}:
		default:
			c.finish(key, f, errBusy)
			c.busy(ctx)
			return
		}
		c.computed.Add(1)
		func() {
			defer c.finish(key, f, nil)
			defer func() { <-c.slots }()
			compute()
		}()
		return
	}
}

func (c *Computations) finish(key string, f *cache.Flight[struct{}], err error) {
	c.mu.Lock()
	delete(c.running, key)
	f.Err = err
	c.mu.Unlock()
	f.Land()
}

func (c *Computations) busy(ctx *fasthttp.RequestCtx) {
	c.refused.Add(1)
	respond.Generic(ctx, problem.Overloaded)
}

// Counts are the computations run and refused (503) since the start.
func (c *Computations) Counts() (run, refused uint64) { return c.computed.Load(), c.refused.Load() }

// Limit sets how many computations may run at once (0: none, every
// computation is refused); it is set before the first request.
func (c *Computations) Limit(n int) { c.slots = make(chan struct{}, n) }
