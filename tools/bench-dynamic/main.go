// Command bench-dynamic measures highlight writes and reads through the
// edge (edge and dynamic in process, PostgreSQL from scripts/db.sh) next to
// pgbench (TPC-B-like) and pgbench -S on the same server in the same run,
// and prints the ratios. It also measures a read one hop at a time
// (dynamic's query alone, dynamic over HTTP, then through the edge) and the
// CPU each costs in this process and in PostgreSQL, so that each hop's
// share of a read is known. `make bench-dynamic` runs it; docs/dynamic.md
// explains the method and the figures.
package main

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
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
	"github.com/bibleplatform/platform/wire"
)

const (
	appID     = "b0b0b0b0-0000-4000-8000-000000000001"
	appKey    = "bpk_bench_key"
	edgeToken = "bench-edge-token"
	bibleID   = 9001
)

type options struct {
	dbURL      string
	dur        time.Duration
	conc       int
	users      int
	rounds     int
	pool       int
	hops       bool
	procs      int
	cpuProfile string
}

func main() {
	var o options
	flag.StringVar(&o.dbURL, "database-url", os.Getenv("DATABASE_URL"), "PostgreSQL server URL (any database; bench databases are created beside it)")
	flag.DurationVar(&o.dur, "duration", 10*time.Second, "length of each measured phase")
	flag.IntVar(&o.conc, "concurrency", 64, "concurrent clients (HTTP workers and pgbench -c)")
	flag.IntVar(&o.users, "users", 1000, "distinct users")
	flag.IntVar(&o.rounds, "rounds", 5, "split each phase into this many rounds, alternating with pgbench's")
	flag.IntVar(&o.pool, "pool", 0, "dynamic's PostgreSQL connections (0: its default)")
	flag.IntVar(&o.procs, "procs", 3*runtime.NumCPU(), "GOMAXPROCS of this process, which runs the clients, the edge and dynamic: deployed, they are three processes with as many threads as cores each")
	flag.BoolVar(&o.hops, "hops", true, "also measure reads hop by hop: dynamic's query alone and dynamic without the edge")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the first round of each read layer to this file name plus .edge, .dynamic, .query")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	// On a shared machine a process's CPU share follows its runnable
	// threads, and pgbench runs its clients' threads and one backend per
	// client. Held to one process's threads, the three programs here would
	// get less of the machine than they do deployed (docs/dynamic.md).
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(o.procs)
	}
	ctx := context.Background()
	if o.dbURL == "" {
		return fmt.Errorf("no --database-url")
	}
	dynURL, err := freshDB(o.dbURL, "bench_dynamic")
	if err != nil {
		return err
	}
	if o.pool > 0 {
		u, _ := url.Parse(dynURL)
		q := u.Query()
		q.Set("pool_max_conns", strconv.Itoa(o.pool))
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
	users := make([]string, o.users)
	for i := range users {
		users[i] = fmt.Sprintf("c0c0c0c0-0000-4000-8000-%012d", i)
		if err := db.Grant(ctx, users[i], appID, []string{"highlights"}, time.Now()); err != nil {
			return err
		}
	}

	// The users' tokens are the platform's own (docs/sign-in.md): RS256,
	// signed with the provider's current key, verified as dynamic verifies
	// what its provider issued.
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	dyn := dynamic.New(dynamic.Config{DB: db, Store: store, EdgeToken: edgeToken, Log: quiet, Accounts: db, OAuth: db})
	if err := dyn.Open(ctx, "127.0.0.1:0"); err != nil {
		return err
	}
	defer dyn.Close()
	bearers, err := platformTokens(ctx, db, dyn.URL(), users)
	if err != nil {
		return err
	}
	base, stop, err := startEdge(ctx, store, dyn.URL(), quiet)
	if err != nil {
		return err
	}
	defer stop()

	// The bench's clients: one to the edge, one straight to dynamic (the
	// hop-by-hop reads), each request reused by its worker.
	toEdge := &fasthttp.HostClient{Addr: strings.TrimPrefix(base, "http://"), MaxConns: o.conc * 2}
	toDynamic := &fasthttp.HostClient{Addr: dyn.Addr(), MaxConns: o.conc * 2}
	verses := allVerses(idx)
	var seq atomic.Int64
	write := func(w *worker) (int, error) {
		u := w.r.IntN(o.users)
		v := verses[w.r.IntN(len(verses))]
		w.req.ResetBody()
		fmt.Fprintf(w.req.BodyWriter(), `{"request_id":"d0d0d0d0-0000-4000-8000-%012d","highlight":{"bible_id":%d,"passage_id":%q,"color":"%06x"}}`,
			seq.Add(1), bibleID, v, w.r.IntN(1<<24))
		return w.do(toEdge, "POST", "/v1/highlights", bearers[u])
	}
	chapters := allChapters(idx)
	readURIs := make([]string, len(chapters))
	for i, c := range chapters {
		readURIs[i] = "/v1/highlights?bible_id=9001&passage_id=" + url.QueryEscape(c.PassageID)
	}
	read := func(w *worker) (int, error) {
		return w.do(toEdge, "GET", readURIs[w.r.IntN(len(readURIs))], bearers[w.r.IntN(o.users)])
	}
	readDynamic := func(w *worker) (int, error) {
		// What the edge sends after it has checked the App Key.
		w.req.Header.Set(wire.HeaderEdgeToken, edgeToken)
		w.req.Header.Set(wire.HeaderVerifiedAppID, appID)
		return w.do(toDynamic, "GET", readURIs[w.r.IntN(len(readURIs))], bearers[w.r.IntN(o.users)])
	}
	query := func(w *worker) (int, error) {
		c := chapters[w.r.IntN(len(chapters))]
		if _, err := db.Highlights(ctx, users[w.r.IntN(o.users)], bibleID, c.verses); err != nil {
			return 0, err
		}
		return 200, nil
	}

	pgURL, err := freshDB(o.dbURL, "bench_pgbench")
	if err != nil {
		return err
	}
	if err := pgbenchInit(pgURL); err != nil {
		return err
	}
	pg := findServer(o.dbURL, "bench_dynamic")
	// The machine is shared and its load drifts within a run, so each
	// phase alternates with pgbench's in short rounds: both see the same
	// weather, and the ratio compares like with like. A round is at least
	// two seconds: pgbench's clients connect inside it.
	rounds := max(1, min(o.rounds, int(o.dur/(2*time.Second))))
	round := o.dur / time.Duration(rounds)
	fmt.Printf("bench: %d clients, %v per phase in %d rounds, %d users, %d verses, through the edge at %s, GOMAXPROCS %d on %d cores\n",
		o.conc, o.dur, rounds, o.users, len(verses), base, runtime.GOMAXPROCS(0), runtime.NumCPU())

	tpcb := &pgbench{name: "pgbench (TPC-B-like)", url: pgURL, conc: o.conc}
	sel := &pgbench{name: "pgbench -S", url: pgURL, conc: o.conc, args: []string{"-S"}}
	for _, p := range []*pgbench{tpcb, sel} {
		if err := p.measureConnect(pg); err != nil {
			return err
		}
	}
	writes := &load{name: "write (edge)", fn: write, ok: []int{201, 409}}
	for range rounds {
		if err := writes.run(o.conc, round, pg); err != nil {
			return err
		}
		if err := tpcb.run(round, pg); err != nil {
			return err
		}
	}
	reads := []*load{{name: "read (edge)", fn: read, ok: []int{200, 204}}}
	if o.hops {
		reads = append(reads,
			&load{name: "read (dynamic)", fn: readDynamic, ok: []int{200, 204}},
			&load{name: "read (query)", fn: query, ok: []int{200}})
	}
	for i := range rounds {
		for _, l := range reads {
			// The first round of each read layer is profiled on its own.
			stop := func() {}
			if o.cpuProfile != "" && i == 0 {
				if stop, err = startProfile(o.cpuProfile + "." + l.slug()); err != nil {
					return err
				}
			}
			err := l.run(o.conc, round, pg)
			stop()
			if err != nil {
				return err
			}
		}
		if err := sel.run(round, pg); err != nil {
			return err
		}
	}

	fmt.Println()
	fmt.Println(header)
	writes.print()
	if err := tpcb.print(); err != nil {
		return err
	}
	for _, l := range reads {
		l.print()
	}
	if err := sel.print(); err != nil {
		return err
	}
	var shares [3]float64
	sharesOK := false
	if o.hops {
		shares, sharesOK = printHops(reads[2], reads[1], reads[0])
	}
	readRPS, writeRPS := reads[0].rps(), writes.rps()
	fmt.Printf("read_rps=%.0f pgbench_select_tps=%.0f read_ratio=%.2f write_rps=%.0f pgbench_tpcb_tps=%.0f write_ratio=%.2f read_p99_ms=%.2f write_p99_ms=%.2f",
		readRPS, sel.tps(), readRPS/sel.tps(), writeRPS, tpcb.tps(), writeRPS/tpcb.tps(),
		ms(reads[0].quantile(0.99)), ms(writes.quantile(0.99)))
	if reads[0].pgKnown && sel.pgKnown {
		// What the ratio would be if both got the same CPU.
		fmt.Printf(" read_cpu_ratio=%.2f", sel.cpuPerOp()/reads[0].cpuPerOp())
	}
	if sharesOK {
		fmt.Printf(" read_share_query=%.2f read_share_dynamic=%.2f read_share_edge=%.2f", shares[0], shares[1], shares[2])
	}
	fmt.Println()
	return nil
}

// printHops says what each hop adds to a read: the CPU a read costs this
// process and PostgreSQL, with the query alone, through dynamic's HTTP
// server, and through the edge too; each hop is the difference with the
// layer below. CPU is counted per process, so other work on a shared
// machine does not enter it, unlike throughput (printed too, as the inverse
// of requests per second: on saturated cores, the machine's time a request
// takes). The dynamic hop includes the bench's HTTP client, as the full path
// does: the edge hop is the edge's server, its client to dynamic and their
// system calls.
func printHops(query, dyn, full *load) (shares [3]float64, ok bool) {
	cq, cd, ce := 1/query.rps(), 1/dyn.rps(), 1/full.rps()
	fmt.Printf("read hops by throughput: query %.0f us (%.0f%%), dynamic's HTTP handling +%.0f us (%.0f%%), edge +%.0f us (%.0f%%) of %.0f us of the machine per read\n",
		cq*1e6, 100*cq/ce, (cd-cq)*1e6, 100*(cd-cq)/ce, (ce-cd)*1e6, 100*(ce-cd)/ce, ce*1e6)
	if !query.pgKnown || !dyn.pgKnown || !full.pgKnown {
		return shares, false
	}
	q, d, e := query.cpuPerOp(), dyn.cpuPerOp(), full.cpuPerOp()
	pg := us(full.pgCPU) / float64(len(full.lat))
	fmt.Printf("read hops by CPU: query %.0f us (%.0f%%), dynamic's HTTP handling +%.0f us (%.0f%%), edge +%.0f us (%.0f%%) of %.0f us per read, of which PostgreSQL %.0f us (%.0f%%)\n",
		q, 100*q/e, d-q, 100*(d-q)/e, e-d, 100*(e-d)/e, e, pg, 100*pg/e)
	return [3]float64{q / e, (d - q) / e, (e - d) / e}, true
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// startProfile starts a CPU profile into the file name; stop ends it.
func startProfile(name string) (stop func(), err error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

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

type chapter struct {
	PassageID string
	verses    []string
}

func allChapters(x *bible.Index) []chapter {
	var out []chapter
	for _, b := range x.Books {
		for _, c := range b.Chapters {
			ch := chapter{PassageID: c.PassageID}
			for _, v := range c.Verses {
				ch.verses = append(ch.verses, v.PassageID)
			}
			out = append(out, ch)
		}
	}
	return out
}

// mrandFor gives each worker its own generator.
func mrandFor(w int) *mrand.Rand {
	return mrand.New(mrand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
}

// platformTokens makes the provider create its signing key (by asking for
// its JWKS) and signs one access token per user with it, with the claims
// the provider's access tokens carry.
func platformTokens(ctx context.Context, db *postgres.DB, dynURL string, users []string) ([]string, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", dynURL+"/.well-known/jwks.json", nil)
	req.Header.Set(wire.HeaderEdgeToken, edgeToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("jwks: %w", err)
	}
	res.Body.Close()
	keys, err := db.SigningKeys(ctx)
	if err != nil || len(keys) == 0 {
		return nil, fmt.Errorf("signing keys: %d, %v", len(keys), err)
	}
	k, err := x509.ParsePKCS8PrivateKey(keys[0].PrivateDER)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	signer, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("signing key is %T", k)
	}
	bearers := make([]string, len(users))
	now := time.Now()
	for i, u := range users {
		tok, err := jwt.Sign(signer, keys[0].KID, jwt.Claims{Subject: u, Audience: []string{appKey}, IssuedAt: now,
			ExpiresAt: now.Add(time.Hour), ID: fmt.Sprintf("b0b0b0b0-0000-4000-8000-%012d", i)})
		if err != nil {
			return nil, err
		}
		bearers[i] = "Bearer " + tok
	}
	return bearers, nil
}
