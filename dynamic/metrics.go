package dynamic

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// metrics is the service's /metrics, with prometheus/client_golang (the
// Prometheus project's own client, as on the edge): request durations by
// route and status, and the Go runtime and process collectors.
type metrics struct {
	hist    *prometheus.HistogramVec
	handler fasthttp.RequestHandler
}

// newMetrics registers the request histograms and dynamic_build_info,
// the build build returns ("" before one is known), which an alert
// compares with the edges' edge_build_info: an edge and dynamic following
// different stores disagree on which Bibles a licence covers.
func newMetrics(build func() string) *metrics {
	reg := prometheus.NewRegistry()
	m := &metrics{}
	m.hist = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "dynamic_request_duration_seconds",
		Help: "Time to answer a request, by route (the pattern it matched) and status.",
		Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
			0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{"route", "code"})
	reg.MustRegister(m.hist, buildInfo{build: build, desc: prometheus.NewDesc("dynamic_build_info",
		"The content build dynamic follows (the one its access snapshot used).", []string{"build"}, nil)},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = fasthttpadaptor.NewFastHTTPHandler(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return m
}

func (m *metrics) serve(ctx *fasthttp.RequestCtx) { m.handler(ctx) }

// observe records one request under its route pattern and status.
func (m *metrics) observe(route string, status int, d time.Duration) {
	m.hist.WithLabelValues(route, strconv.Itoa(status)).Observe(d.Seconds())
}

// buildInfo is the gauge dynamic_build_info{build} = 1, labelled when
// scraped.
type buildInfo struct {
	build func() string
	desc  *prometheus.Desc
}

func (b buildInfo) Describe(ch chan<- *prometheus.Desc) { ch <- b.desc }

func (b buildInfo) Collect(ch chan<- prometheus.Metric) {
	if id := b.build(); id != "" {
		ch <- prometheus.MustNewConstMetric(b.desc, prometheus.GaugeValue, 1, id)
	}
}
