// Command bench measures highlight create and read throughput and p99
// through the edge (edge and dynamic in process, PostgreSQL from
// scripts/db.sh), then runs pgbench -S and pgbench (TPC-B-like) on the same
// server for the same time, and prints the ratios. `make bench-dynamic`
// runs it.
package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/dynamic"
	"github.com/bibleplatform/platform/dynamic/jwt"
	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/edge"
	"github.com/bibleplatform/platform/publish"
)

const (
	appID     = "b0b0b0b0-0000-4000-8000-000000000001"
	appKey    = "bpk_bench_key"
	edgeToken = "bench-edge-token"
	bibleID   = 9001
)

func main() {
	dbURL := flag.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL server URL (any database; bench databases are created beside it)")
	dur := flag.Duration("duration", 10*time.Second, "length of each measured phase")
	conc := flag.Int("concurrency", 64, "concurrent clients (HTTP workers and pgbench -c)")
	users := flag.Int("users", 1000, "distinct users")
	rounds := flag.Int("rounds", 5, "split each phase into this many rounds, alternating with pgbench's")
	flag.IntVar(&poolSize, "pool", 0, "dynamic's PostgreSQL connections (0: its default)")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the read phase to this file")
	flag.Parse()
	cpuProfile = *prof
	if err := run(*dbURL, *dur, *conc, *users, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(serverURL string, dur time.Duration, conc, nUsers, rounds int) error {
	ctx := context.Background()
	if serverURL == "" {
		return fmt.Errorf("no --database-url")
	}
	dynURL, err := freshDB(serverURL, "bench_dynamic")
	if err != nil {
		return err
	}
	if poolSize > 0 {
		u, _ := url.Parse(dynURL)
		q := u.Query()
		q.Set("pool_max_conns", strconv.Itoa(poolSize))
		u.RawQuery = q.Encode()
		dynURL = u.String()
	}
	db, err := postgres.Open(ctx, dynURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "bench-store")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := publish.OpenDir(dir)
	if err != nil {
		return err
	}
	idx, err := publishIndex(ctx, store)
	if err != nil {
		return err
	}
	if err := db.CreateApp(ctx, dynamic.App{ID: appID, Name: "Bench", Status: "live", CallbackURL: "https://bench.example/cb"}); err != nil {
		return err
	}
	h := access.HashKey([]byte(appKey))
	if _, err := db.AddKey(ctx, appID, h[:], "bpk_benc"); err != nil {
		return err
	}
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	pemPub, _ := jwt.EncodePublicPEM(pub)
	keys, err := jwt.ParsePEM(pemPub)
	if err != nil {
		return err
	}
	tokens := make([]string, nUsers)
	for i := range tokens {
		u := fmt.Sprintf("c0c0c0c0-0000-4000-8000-%012d", i)
		if err := db.Grant(ctx, u, appID, []string{"highlights"}, time.Now()); err != nil {
			return err
		}
		tokens[i], _ = jwt.Sign(priv, "", jwt.Claims{Subject: u, Issuer: "bench", Audience: []string{"bench"},
			ExpiresAt: time.Now().Add(time.Hour)})
	}

	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	dyn := dynamic.New(dynamic.Config{DB: db, Store: store, EdgeToken: edgeToken, Log: quiet,
		Users: &jwt.Verifier{Keys: keys, Issuer: "bench", Audience: "bench"}})
	if err := dyn.Open(ctx, "127.0.0.1:0"); err != nil {
		return err
	}
	defer dyn.Close()
	base, stop, err := startEdge(ctx, store, dyn.URL(), quiet)
	if err != nil {
		return err
	}
	defer stop()

	client := &fasthttp.HostClient{Addr: strings.TrimPrefix(base, "http://"), MaxConns: conc * 2}
	verses := allVerses(idx)
	var seq atomic.Int64
	write := func(r *mrand.Rand, req *fasthttp.Request, res *fasthttp.Response) (int, error) {
		u := r.IntN(nUsers)
		v := verses[r.IntN(len(verses))]
		req.ResetBody()
		fmt.Fprintf(req.BodyWriter(), `{"request_id":"d0d0d0d0-0000-4000-8000-%012d","highlight":{"bible_id":%d,"passage_id":%q,"color":"%06x"}}`,
			seq.Add(1), bibleID, v, r.IntN(1<<24))
		return do(client, req, res, "POST", "/v1/highlights", tokens[u])
	}
	chapters := allChapters(idx)
	readURIs := make([]string, len(chapters))
	for i, c := range chapters {
		readURIs[i] = "/v1/highlights?bible_id=9001&passage_id=" + url.QueryEscape(c)
	}
	read := func(r *mrand.Rand, req *fasthttp.Request, res *fasthttp.Response) (int, error) {
		u := r.IntN(nUsers)
		return do(client, req, res, "GET", readURIs[r.IntN(len(readURIs))], tokens[u])
	}

	pgURL, err := freshDB(serverURL, "bench_pgbench")
	if err != nil {
		return err
	}
	if out, err := exec.Command("pgbench", "-i", "-q", "-s", "10", pgURL).CombinedOutput(); err != nil {
		return fmt.Errorf("pgbench -i: %v: %s", err, out)
	}
	// The machine is shared and its load drifts within a run, so each
	// phase alternates with pgbench's in short rounds: both see the same
	// weather, and the ratio compares like with like.
	rounds = max(1, min(rounds, int(dur/time.Second)))
	round := dur / time.Duration(rounds)
	secs := strconv.Itoa(max(1, int(round/time.Second)))
	pgArgs := []string{"-c", strconv.Itoa(conc), "-j", "2", "-T", secs}
	fmt.Printf("bench: %d clients, %v per phase in %d rounds, %d users, %d verses, through the edge at %s\n",
		conc, dur, rounds, nUsers, len(verses), base)
	var wr, rr phase
	var tpcb, sel pgPhase
	for range rounds {
		if err := wr.run("write", conc, round, write, 201, 409); err != nil {
			return err
		}
		if err := tpcb.run(pgURL, pgArgs...); err != nil {
			return err
		}
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer f.Close()
	}
	for range rounds {
		if err := rr.run("read", conc, round, read, 200, 204); err != nil {
			return err
		}
		if err := sel.run(pgURL, append([]string{"-S"}, pgArgs...)...); err != nil {
			return err
		}
	}
	pprof.StopCPUProfile()
	wrps, wp99 := wr.report("write")
	rrps, rp99 := rr.report("read")
	tpcbTPS, selTPS := tpcb.report("pgbench (TPC-B-like)"), sel.report("pgbench -S")
	fmt.Printf("read_rps=%.0f pgbench_select_tps=%.0f read_ratio=%.2f write_rps=%.0f pgbench_tpcb_tps=%.0f write_ratio=%.2f read_p99_ms=%.2f write_p99_ms=%.2f\n",
		rrps, selTPS, rrps/selTPS, wrps, tpcbTPS, wrps/tpcbTPS, ms(rp99), ms(wp99))
	return nil
}

var (
	cpuProfile string
	poolSize   int
)

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// freshDB (re)creates database name on the server and returns its URL.
func freshDB(serverURL, name string) (string, error) {
	for _, sql := range []string{"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "CREATE DATABASE " + name} {
		if out, err := exec.Command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", serverURL, "-c", sql).CombinedOutput(); err != nil {
			return "", fmt.Errorf("psql %q: %v: %s", sql, err, out)
		}
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

var tpsLine = regexp.MustCompile(`number of transactions actually processed: ([0-9]+)`)
var timeLine = regexp.MustCompile(`tps = ([0-9.]+)`)

// pgPhase adds up pgbench rounds.
type pgPhase struct {
	tx   float64
	secs float64
}

func (p *pgPhase) run(dbURL string, args ...string) error {
	out, err := exec.Command("pgbench", append(args, dbURL)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgbench %v: %v: %s", args, err, out)
	}
	n, t := tpsLine.FindSubmatch(out), timeLine.FindSubmatch(out)
	if n == nil || t == nil {
		return fmt.Errorf("pgbench %v: no transaction count or tps in %s", args, out)
	}
	tx, _ := strconv.ParseFloat(string(n[1]), 64)
	tps, _ := strconv.ParseFloat(string(t[1]), 64)
	if tps <= 0 {
		return fmt.Errorf("pgbench %v: tps %s", args, t[1])
	}
	// pgbench's tps excludes connection set-up; so does tx/secs.
	p.tx += tx
	p.secs += tx / tps
	return nil
}

func (p *pgPhase) report(name string) float64 {
	tps := p.tx / p.secs
	fmt.Printf("%s: %.0f transactions in %.1fs: %.0f tps\n", name, p.tx, p.secs, tps)
	return tps
}

// do sends one request through the edge, reusing the worker's request and
// response: the load generator shares the cores with what it measures, so
// it should cost them as little as pgbench's client does.
func do(c *fasthttp.HostClient, req *fasthttp.Request, res *fasthttp.Response, method, uri, bearer string) (int, error) {
	req.Header.SetMethod(method)
	req.SetRequestURI(uri)
	req.Header.SetHost(c.Addr)
	req.Header.Set("Authorization", "Bearer "+bearer)
	if method == "POST" {
		req.Header.SetContentType("application/json")
	}
	if err := c.Do(req, res); err != nil {
		return 0, err
	}
	return res.StatusCode(), nil
}

// phase adds up the rounds of one kind of request.
type phase struct {
	lat     []time.Duration
	elapsed time.Duration
	cpu     time.Duration // this process's CPU: client, edge and dynamic
}

// run runs fn from conc workers for dur. Any status outside ok fails the
// run.
func (p *phase) run(name string, conc int, dur time.Duration, fn func(*mrand.Rand, *fasthttp.Request, *fasthttp.Response) (int, error), ok ...int) error {
	var mu sync.Mutex
	var firstErr error
	cpu0 := processCPU()
	start := time.Now()
	deadline := start.Add(dur)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := mrand.New(mrand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			var req fasthttp.Request
			var res fasthttp.Response
			req.Header.Set("X-SVC-App-Key", appKey)
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t0 := time.Now()
				status, err := fn(r, &req, &res)
				if err == nil && !slices.Contains(ok, status) {
					err = fmt.Errorf("%s: status %d", name, status)
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			p.lat = append(p.lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	p.elapsed += time.Since(start)
	p.cpu += processCPU() - cpu0
	return firstErr
}

// report prints the phase and returns requests per second and the 99th
// percentile latency.
func (p *phase) report(name string) (float64, time.Duration) {
	lat := p.lat
	if len(lat) == 0 {
		return 0, 0
	}
	slices.Sort(lat)
	p99 := lat[len(lat)*99/100]
	rps := float64(len(lat)) / p.elapsed.Seconds()
	fmt.Printf("%s: %d requests in %v: %.0f/s, p50 %.2f ms, p99 %.2f ms, %.0f us of this process's CPU per request\n",
		name, len(lat), p.elapsed.Round(time.Millisecond), rps, ms(lat[len(lat)/2]), ms(p99),
		float64(p.cpu/time.Microsecond)/float64(len(lat)))
	return rps, p99
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startEdge(ctx context.Context, store publish.Store, dynURL string, log *slog.Logger) (string, func(), error) {
	ctx, cancel := context.WithCancel(ctx)
	srv, err := edge.New(edge.Config{Store: store, Log: log, DynamicURL: dynURL, EdgeToken: edgeToken,
		DynamicTimeout: 30 * time.Second, DefaultRate: access.Rate{PerSecond: 1e6, Burst: 1e6}})
	if err != nil {
		cancel()
		return "", nil, err
	}
	src, err := edge.NewAccessSource(dynURL+"/internal/access", edgeToken)
	if err != nil {
		cancel()
		return "", nil, err
	}
	aw := &edge.AccessWatcher{Source: src, Server: srv, Log: log, Interval: 100 * time.Millisecond}
	if err := aw.Init(ctx); err != nil {
		cancel()
		return "", nil, err
	}
	bw := &edge.BuildWatcher{Store: store, Server: srv, Interval: time.Second, Log: log}
	if err := bw.Check(ctx); err != nil {
		cancel()
		return "", nil, err
	}
	go aw.Run(ctx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		return "", nil, err
	}
	fs := &fasthttp.Server{Handler: srv.Handler, NoDefaultContentType: true}
	go fs.Serve(ln)
	return "http://" + ln.Addr().String(), func() { fs.Shutdown(); cancel() }, nil
}

// publishIndex publishes one synthetic Bible (9001): 20 books of 30
// chapters of 25 verses, so highlights spread over 15,000 verses.
func publishIndex(ctx context.Context, store publish.Store) (*bible.Index, error) {
	x := &bible.Index{TextDirection: "ltr"}
	for _, b := range bible.Books()[:20] {
		book := bible.Book{ID: b, Title: string(b), Canon: b.Canon()}
		for c := 1; c <= 30; c++ {
			ch := bible.Chapter{ID: strconv.Itoa(c), PassageID: fmt.Sprintf("%s.%d", b, c), Title: strconv.Itoa(c)}
			for v := 1; v <= 25; v++ {
				ch.Verses = append(ch.Verses, bible.Verse{ID: strconv.Itoa(v), PassageID: fmt.Sprintf("%s.%d.%d", b, c, v), Title: strconv.Itoa(v)})
			}
			book.Chapters = append(book.Chapters, ch)
		}
		x.Books = append(x.Books, book)
	}
	body, _ := json.Marshal(x)
	w := publish.NewPackWriter()
	w.Add(publish.NameIndex, publish.JSON, body)
	data := w.Bytes(publish.NewEncoder())
	if err := store.Put(ctx, w.Key(), data); err != nil {
		return nil, err
	}
	m := &publish.Manifest{Created: time.Now(), Bibles: []publish.BibleEntry{{ID: bibleID,
		Pack: publish.PackRef{Key: w.Key(), Size: int64(len(data))}}}}
	mb, _ := json.Marshal(m)
	if err := store.Put(ctx, publish.ManifestKey(m.BuildID()), mb); err != nil {
		return nil, err
	}
	return x, store.SetCurrent(ctx, m.BuildID())
}

func allVerses(x *bible.Index) []string {
	var out []string
	for _, b := range x.Books {
		for _, c := range b.Chapters {
			for _, v := range c.Verses {
				out = append(out, v.PassageID)
			}
		}
	}
	return out
}

func allChapters(x *bible.Index) []string {
	var out []string
	for _, b := range x.Books {
		for _, c := range b.Chapters {
			out = append(out, c.PassageID)
		}
	}
	return out
}
