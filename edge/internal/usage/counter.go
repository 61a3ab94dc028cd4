// Package usage counts the requests an edge admits per app, Bible and day
// (UTC) and reports them to dynamic in bounded batches (docs/portal.md,
// Usage). Counting is on the hot path: it takes one shard's lock, hashes
// the app id in place and allocates nothing. Requests served at the same
// moment go to different shards even for one key (metrics.Stripe), so
// that an app reading one Bible on every core does not make one lock the
// point all requests meet; Take adds the copies up. The table has a fixed size;
// when a shard fills past its high-water mark the reporter is asked to
// report early, and a count that finds no free slot is dropped and
// counted in Dropped.
package usage

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/bibleplatform/platform/edge/internal/metrics"
)

// Sizes of the table: shards × slots keys (app, Bible, day) at most
// between two reports. An edge sees one key per app and Bible read in an
// interval, so this is room for thousands of active app×Bible pairs.
const (
	shards    = 16
	slots     = 256
	highWater = slots * 3 / 4
	// maxProbe bounds the slots one count looks at: past it the count is
	// dropped rather than scanning a crowded shard.
	maxProbe = 32
)

// Count is the requests of one app for one Bible on one day.
type Count struct {
	App      string
	Bible    int32 // 0: no Bible
	Day      int32 // days since 1970-01-01, UTC
	Requests int64
}

// Counter is the fixed-size table of counts since the last Take. The
// zero value is not ready: use NewCounter.
type Counter struct {
	shards  [shards]shard
	dropped atomic.Int64
	// full is signalled (without blocking) when a shard passes its
	// high-water mark.
	full chan struct{}
}

type shard struct {
	mu    sync.Mutex
	used  int
	slots [slots]slot
	_     [64]byte // keeps neighbouring shards' locks off one cache line
}

type slot struct {
	app        string // "" when free
	bible, day int32
	n          int64
}

// NewCounter returns an empty counter.
func NewCounter() *Counter { return &Counter{full: make(chan struct{}, 1)} }

// Day is the UTC day of t as Count.Day holds it.
func Day(t time.Time) int32 { return int32(t.Unix() / 86400) }

// Full is signalled when the table is filling up: report now rather than
// at the next tick.
func (c *Counter) Full() <-chan struct{} { return c.full }

// Add counts one request of app (its id, not empty) for bible on day. It
// reports false when the count was dropped because the table is full.
func (c *Counter) Add(app string, bible, day int32) bool {
	h := hash(app, bible, day)
	s := &c.shards[(h+uint32(metrics.Stripe()))%shards]
	i := int(h / shards % slots)
	s.mu.Lock()
	for range maxProbe {
		sl := &s.slots[i]
		if sl.app == "" {
			*sl = slot{app: app, bible: bible, day: day, n: 1}
			s.used++
			if s.used == highWater {
				c.signal()
			}
			s.mu.Unlock()
			return true
		}
		if sl.app == app && sl.bible == bible && sl.day == day {
			sl.n++
			s.mu.Unlock()
			return true
		}
		i = (i + 1) % slots
	}
	s.mu.Unlock()
	c.dropped.Add(1)
	c.signal()
	return false
}

func (c *Counter) signal() {
	select {
	case c.full <- struct{}{}:
	default:
	}
}

// Take empties the table and returns what it held, one Count per key, in
// no order; nil when it was empty.
func (c *Counter) Take() []Count {
	var out []Count
	at := map[key]int{} // index in out
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		if s.used > 0 {
			for j := range s.slots {
				sl := &s.slots[j]
				if sl.app == "" {
					continue
				}
				k := key{sl.app, sl.bible, sl.day}
				if x, ok := at[k]; ok {
					out[x].Requests += sl.n
				} else {
					at[k] = len(out)
					out = append(out, Count{App: sl.app, Bible: sl.bible, Day: sl.day, Requests: sl.n})
				}
				*sl = slot{}
			}
			s.used = 0
		}
		s.mu.Unlock()
	}
	return out
}

type key struct {
	app        string
	bible, day int32
}

// Dropped is how many requests were not counted since the counter
// started: the table had no room for their key.
func (c *Counter) Dropped() int64 { return c.dropped.Load() }

// hash is FNV-1a over the app id, then the Bible and the day: enough to
// spread keys over shards and slots without allocating.
func hash(app string, bible, day int32) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(app); i++ {
		h = (h ^ uint32(app[i])) * 16777619
	}
	for _, v := range [2]uint32{uint32(bible), uint32(day)} {
		for range 4 {
			h = (h ^ v&0xff) * 16777619
			v >>= 8
		}
	}
	return h
}
