package dynamic

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics is the service's /metrics, with prometheus/client_golang (the
// Prometheus project's own client, as on the edge): request durations by
// route and status, and the Go runtime and process collectors. /metrics
// needs no edge token: it is for the operator's scraper, on the same
// private network as the rest of the service's port.
type metrics struct {
	reg  *prometheus.Registry
	hist *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.hist = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "dynamic_request_duration_seconds",
		Help: "Time to answer a request, by route (the pattern it matched) and status.",
		Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
			0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{"route", "code"})
	m.reg.MustRegister(m.hist,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// instrument times every request. The route label is the pattern the
// request matched (ServeMux records it on the request), without its method:
// a bounded set, unlike raw paths.
func (m *metrics) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		route := r.Pattern
		if _, path, ok := strings.Cut(route, " "); ok {
			route = path
		}
		if route == "" || route == "/" {
			route = "other"
		}
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		m.hist.WithLabelValues(route, strconv.Itoa(sw.status)).Observe(time.Since(start).Seconds())
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
