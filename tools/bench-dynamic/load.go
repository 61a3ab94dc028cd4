package main

import (
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// header heads the table that load.print and pgbench.print fill. CPU is per
// request or transaction: this process's (the bench's clients, the edge and
// dynamic), PostgreSQL's (the server and its backends) and pgbench's own
// client's; for pgbench, without connecting its clients.
const header = "phase                    requests      rps   p50 ms   p99 ms   bench+edge+dynamic us/op   PostgreSQL us/op   pgbench us/op"

// worker is one client of a load: its generator and a request and response
// it reuses, so that the load generator, which shares the cores with what it
// measures, costs them about as little as pgbench's client does.
type worker struct {
	r   *mrand.Rand
	req fasthttp.Request
	res fasthttp.Response
}

// do sends one request.
func (w *worker) do(c *fasthttp.HostClient, method, uri, authorization string) (int, error) {
	w.req.Header.SetMethod(method)
	w.req.SetRequestURI(uri)
	w.req.Header.SetHost(c.Addr)
	w.req.Header.Set("Authorization", authorization)
	if method == "POST" {
		w.req.Header.SetContentType("application/json")
	}
	if err := c.Do(&w.req, &w.res); err != nil {
		return 0, err
	}
	return w.res.StatusCode(), nil
}

// load is one kind of request, measured over the rounds it runs in.
type load struct {
	name string
	fn   func(*worker) (int, error)
	ok   []int // statuses that count as success; any other fails the run

	lat     []time.Duration
	elapsed time.Duration
	cpu     time.Duration // this process's CPU: clients, edge and dynamic
	pgCPU   time.Duration
	pgKnown bool
}

// run runs fn from conc workers for dur. Each worker first sends one
// request that is not measured, so that connections are open when the clock
// starts.
func (l *load) run(conc int, dur time.Duration, pg *pgServer) error {
	var mu sync.Mutex
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
		}
	}
	call := func(w *worker) bool {
		status, err := l.fn(w)
		if err == nil && !slices.Contains(l.ok, status) {
			err = fmt.Errorf("%s: status %d: %s", l.name, status, w.res.Body())
		}
		if err != nil {
			fail(fmt.Errorf("%s: %w", l.name, err))
			return false
		}
		return true
	}
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	var deadline time.Time
	for i := range conc {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			w := &worker{r: mrandFor(i)}
			w.req.Header.Set("X-SVC-App-Key", appKey)
			warm := call(w)
			ready.Done()
			<-start
			if !warm {
				return
			}
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if !call(w) {
					break
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			l.lat = append(l.lat, mine...)
			mu.Unlock()
		}()
	}
	ready.Wait()
	cpu0 := processCPU()
	pg0, pgOK := pg.cpu()
	t0 := time.Now()
	deadline = t0.Add(dur)
	close(start)
	done.Wait()
	l.elapsed += time.Since(t0)
	l.cpu += processCPU() - cpu0
	pg1, pgOK1 := pg.cpu()
	l.pgKnown = pgOK && pgOK1 && (l.pgKnown || l.pgCPU == 0)
	l.pgCPU += pg1 - pg0
	return firstErr
}

// cpuPerOp is the CPU of this process and of PostgreSQL per request, in
// microseconds.
func (l *load) cpuPerOp() float64 {
	return us(l.cpu+l.pgCPU) / float64(max(1, len(l.lat)))
}

// slug is the layer's name in parentheses: "edge" for "read (edge)".
func (l *load) slug() string {
	_, s, _ := strings.Cut(l.name, "(")
	return strings.TrimSuffix(s, ")")
}

func (l *load) rps() float64 {
	if l.elapsed <= 0 {
		return 0
	}
	return float64(len(l.lat)) / l.elapsed.Seconds()
}

// quantile is the latency below which the fraction q of requests were
// answered.
func (l *load) quantile(q float64) time.Duration {
	if len(l.lat) == 0 {
		return 0
	}
	slices.Sort(l.lat)
	return l.lat[min(len(l.lat)-1, int(float64(len(l.lat))*q))]
}

func (l *load) print() {
	n := float64(max(1, len(l.lat)))
	pg := "n/a"
	if l.pgKnown {
		pg = fmt.Sprintf("%.0f", float64(l.pgCPU/time.Microsecond)/n)
	}
	fmt.Printf("%-22s %10d %8.0f %8.2f %8.2f %26.0f %18s %15s\n", l.name, len(l.lat), l.rps(),
		ms(l.quantile(0.5)), ms(l.quantile(0.99)), float64(l.cpu/time.Microsecond)/n, pg, "")
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
