package edge

import (
	"io"
	"strconv"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// latency holds the series that come from prometheus/client_golang, the
// Prometheus project's own client: the request-duration histograms, and the
// Go runtime (go_goroutines, go_memstats_…, GC pauses) and process
// (process_resident_memory_bytes, CPU, open fds) collectors, which read
// runtime/metrics and /proc the way every Go service's dashboards expect.
// The counters in metrics.go stay plain atomics written by hand.
//
// A (class, status) series is created on its first request, so /metrics
// lists only the combinations that happened.
type latency struct {
	reg  *prometheus.Registry
	hist *prometheus.HistogramVec
	obs  [numClasses][numStatus]atomic.Pointer[observer]
}

type observer struct{ prometheus.Observer }

// durationBuckets span a cached answer (tens of µs) to a slow forward to
// dynamic (the 30 s default limit).
var durationBuckets = []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
	0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

func newLatency(prefix string) *latency {
	l := &latency{reg: prometheus.NewRegistry()}
	l.hist = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    prefix + "_request_duration_seconds",
		Help:    "Time from a request's arrival at the handler to its answer being ready, by route class and status.",
		Buckets: durationBuckets,
	}, []string{"class", "code"})
	l.reg.MustRegister(l.hist,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return l
}

// observe records one request; it allocates only on a series' first use.
func (l *latency) observe(c routeClass, status int, seconds float64) {
	i := statusIndex(status)
	o := l.obs[c][i].Load()
	if o == nil {
		code := "other"
		if i < len(statusCodes) {
			code = strconv.Itoa(statusCodes[i])
		}
		o = &observer{l.hist.WithLabelValues(c.String(), code)}
		l.obs[c][i].Store(o)
	}
	o.Observe(seconds)
}

// write appends the registry's series in the text format.
func (l *latency) write(w io.Writer) error {
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
