package metrics

import (
	"io"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// The hot path's counters are sharded: a request adds to one shard of
// each, and /metrics sums the shards. An edge on many cores then does not
// have every core write the same cache lines on every request, which would
// make a Counter the one point all requests contend on. Shards are padded
// apart.
const (
	hotShardBits = 3
	hotShards    = 1 << hotShardBits
)

// pickShard chooses the shard a request's counts go to: by the address of
// the calling goroutine's stack, so that the goroutines serving requests
// at the same moment (each on its own stack) spread over the shards, for
// about a nanosecond. The runtime's random generator did the same for a
// few, three times a request, and refilled its state now and then.
func pickShard() int {
	var here byte
	return int(uint64(uintptr(unsafe.Pointer(&here))>>13) * 0x9e3779b97f4a7c15 >> (64 - hotShardBits))
}

// Stripe is pickShard for the hot path's other tables (the usage
// counter): a number below 8 that differs between requests served at the
// same moment.
func Stripe() int { return pickShard() }

// HotCounter is a Counter written on the hot path.
type HotCounter struct {
	shards [hotShards]struct {
		n atomic.Uint64
		_ [120]byte // one shard per 128 bytes: a cache line and its prefetched pair
	}
}

func (c *HotCounter) Inc() { c.shards[pickShard()].n.Add(1) }

// Load sums the shards.
func (c *HotCounter) Load() uint64 {
	var n uint64
	for i := range c.shards {
		n += c.shards[i].n.Load()
	}
	return n
}

// Requests are the per-request series: requests and latency by route
// class and status, body bytes by class. One shard of them is written by a
// request.
type Requests struct {
	shards [hotShards]requestShard
}

type requestShard struct {
	requests [NumClasses][NumStatus]atomic.Uint64
	bytes    [NumClasses]atomic.Uint64
	latency  [NumClasses][NumStatus]durations
	_        [128]byte
}

// durations is one latency histogram's counts: per bucket (not
// cumulative; the last counts what is above every bound) and the sum in
// nanoseconds, so that recording is atomic adds only.
type durations struct {
	buckets [len(durationBuckets) + 1]atomic.Uint64
	nanos   atomic.Uint64
}

// durationBuckets span a cached answer (tens of µs) to a slow forward to
// dynamic (the 30 s default limit), in seconds.
var durationBuckets = [...]float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
	0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// durationBounds are durationBuckets in nanoseconds.
var durationBounds = func() (b [len(durationBuckets)]int64) {
	for i, s := range durationBuckets {
		b[i] = int64(math.Round(s * 1e9))
	}
	return b
}()

// record counts one request.
func (m *Requests) Record(c Class, status, sent int, nanos int64) {
	sh := &m.shards[pickShard()]
	i := StatusIndex(status)
	sh.requests[c][i].Add(1)
	sh.bytes[c].Add(uint64(sent))
	b := 0
	for b < len(durationBounds) && nanos > durationBounds[b] {
		b++
	}
	d := &sh.latency[c][i]
	d.buckets[b].Add(1)
	d.nanos.Add(uint64(max(nanos, 0)))
}

// requests sums the shards' count of class c and status index i.
func (m *Requests) Requests(c Class, i int) uint64 {
	var n uint64
	for s := range m.shards {
		n += m.shards[s].requests[c][i].Load()
	}
	return n
}

func (m *Requests) Bytes(c Class) uint64 {
	var n uint64
	for s := range m.shards {
		n += m.shards[s].bytes[c].Load()
	}
	return n
}

// latency holds what /metrics takes from prometheus/client_golang, the
// Prometheus project's own client: the Go runtime (go_goroutines,
// go_memstats_…, GC pauses) and process (process_resident_memory_bytes, CPU,
// open fds) collectors, which read runtime/metrics and /proc the way every
// Go service's dashboards expect, and the text encoder. The request
// duration histograms are counted by Requests and handed to the
// registry as constant histograms at scrape time; a (class, status) series
// shows once it has had a request.
type Latency struct {
	reg   *prometheus.Registry
	desc  *prometheus.Desc
	stats *Requests
}

func NewLatency(prefix string, stats *Requests) *Latency {
	l := &Latency{reg: prometheus.NewRegistry(), stats: stats}
	l.desc = prometheus.NewDesc(prefix+"_request_duration_seconds",
		"Time from a request's arrival at the handler to its answer being ready, by route class and status.",
		[]string{"class", "code"}, nil)
	l.reg.MustRegister(l,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return l
}

// Describe and Collect make the histograms a prometheus.Collector.
func (l *Latency) Describe(ch chan<- *prometheus.Desc) { ch <- l.desc }

func (l *Latency) Collect(ch chan<- prometheus.Metric) {
	for c := range NumClasses {
		for i := range NumStatus {
			var counts [len(durationBuckets) + 1]uint64
			var nanos, total uint64
			for s := range l.stats.shards {
				d := &l.stats.shards[s].latency[c][i]
				for b := range counts {
					counts[b] += d.buckets[b].Load()
				}
				nanos += d.nanos.Load()
			}
			cum := make(map[float64]uint64, len(durationBuckets))
			for b, bound := range durationBuckets {
				total += counts[b]
				cum[bound] = total
			}
			total += counts[len(durationBuckets)]
			if total == 0 {
				continue
			}
			ch <- prometheus.MustNewConstHistogram(l.desc, total, float64(nanos)/1e9, cum,
				Class(c).String(), StatusLabel(i))
		}
	}
}

// write appends the registry's series in the text format.
func (l *Latency) Write(w io.Writer) error {
	mfs, err := l.reg.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	return nil
}
