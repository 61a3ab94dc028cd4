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
	conc := flag.Int("concurrency", 16, "concurrent clients (HTTP workers and pgbench -c)")
	users := flag.Int("users", 1000, "distinct users")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the read phase to this file")
	flag.Parse()
	cpuProfile = *prof
	if err := run(*dbURL, *dur, *conc, *users); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(serverURL string, dur time.Duration, conc, nUsers int) error {
	ctx := context.Background()
	if serverURL == "" {
		return fmt.Errorf("no --database-url")
	}
	dynURL, err := freshDB(serverURL, "bench_dynamic")
	if err != nil {
		return err
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

	client := &fasthttp.Client{MaxConnsPerHost: conc * 2}
	verses := allVerses(idx)
	var seq atomic.Int64
	write := func(r *mrand.Rand) (int, error) {
		u := r.IntN(nUsers)
		v := verses[r.IntN(len(verses))]
		body := fmt.Sprintf(`{"request_id":"d0d0d0d0-0000-4000-8000-%012d","highlight":{"bible_id":%d,"passage_id":%q,"color":"%06x"}}`,
			seq.Add(1), bibleID, v, r.IntN(1<<24))
		return do(client, "POST", base+"/v1/highlights", tokens[u], body)
	}
	chapters := allChapters(idx)
	read := func(r *mrand.Rand) (int, error) {
		u := r.IntN(nUsers)
		return do(client, "GET", base+"/v1/highlights?bible_id=9001&passage_id="+url.QueryEscape(chapters[r.IntN(len(chapters))]), tokens[u], "")
	}
	fmt.Printf("bench: %d clients, %v per phase, %d users, %d verses, through the edge at %s\n", conc, dur, nUsers, len(verses), base)
	wrps, wp99, err := load("write", conc, dur, write, 201, 409)
	if err != nil {
		return err
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer f.Close()
	}
	rrps, rp99, err := load("read", conc, dur, read, 200, 204)
	if err != nil {
		return err
	}

	pprof.StopCPUProfile()
	pgURL, err := freshDB(serverURL, "bench_pgbench")
	if err != nil {
		return err
	}
	if out, err := exec.Command("pgbench", "-i", "-q", "-s", "10", pgURL).CombinedOutput(); err != nil {
		return fmt.Errorf("pgbench -i: %v: %s", err, out)
	}
	secs := strconv.Itoa(int(dur / time.Second))
	jobs := "2"
	selTPS, err := pgbench(pgURL, "-S", "-c", strconv.Itoa(conc), "-j", jobs, "-T", secs)
	if err != nil {
		return err
	}
	tpcb, err := pgbench(pgURL, "-c", strconv.Itoa(conc), "-j", jobs, "-T", secs)
	if err != nil {
		return err
	}
	fmt.Printf("read_rps=%.0f pgbench_select_tps=%.0f read_ratio=%.2f write_rps=%.0f pgbench_tpcb_tps=%.0f write_ratio=%.2f read_p99_ms=%.2f write_p99_ms=%.2f\n",
		rrps, selTPS, rrps/selTPS, wrps, tpcb, wrps/tpcb, ms(rp99), ms(wp99))
	return nil
}

var cpuProfile string

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

var tpsLine = regexp.MustCompile(`tps = ([0-9.]+)`)

func pgbench(dbURL string, args ...string) (float64, error) {
	out, err := exec.Command("pgbench", append(args, dbURL)...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("pgbench %v: %v: %s", args, err, out)
	}
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgbench %v: no tps in %s", args, out)
	}
	tps, _ := strconv.ParseFloat(string(m[1]), 64)
	fmt.Printf("pgbench %s: %.0f tps\n", strings.Join(args, " "), tps)
	return tps, nil
}

// do sends one request through the edge. The load generator uses fasthttp's
// client because, like pgbench's, it should cost the shared cores little.
func do(c *fasthttp.Client, method, u, bearer, body string) (int, error) {
	req := fasthttp.AcquireRequest()
	res := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.Header.SetMethod(method)
	req.SetRequestURI(u)
	req.Header.Set("X-SVC-App-Key", appKey)
	req.Header.Set("Authorization", "Bearer "+bearer)
	if body != "" {
		req.Header.SetContentType("application/json")
		req.SetBodyString(body)
	}
	if err := c.Do(req, res); err != nil {
		return 0, err
	}
	return res.StatusCode(), nil
}

// load runs fn from conc workers for dur and reports requests per second
// and the 99th percentile latency. Any status outside ok fails the run.
func load(name string, conc int, dur time.Duration, fn func(*mrand.Rand) (int, error), ok ...int) (float64, time.Duration, error) {
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	deadline := time.Now().Add(dur)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := mrand.New(mrand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t0 := time.Now()
				status, err := fn(r)
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
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, 0, firstErr
	}
	elapsed := time.Since(start)
	slices.Sort(lat)
	p99 := lat[len(lat)*99/100]
	rps := float64(len(lat)) / elapsed.Seconds()
	fmt.Printf("%s: %d requests in %v: %.0f/s, p50 %.2f ms, p99 %.2f ms\n", name, len(lat), elapsed.Round(time.Millisecond),
		rps, ms(lat[len(lat)/2]), ms(p99))
	return rps, p99, nil
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
	w.Add(publish.NameIndex, publish.JSON, "", body)
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
