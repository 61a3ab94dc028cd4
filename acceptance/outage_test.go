package acceptance

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish/s3/s3test"
)

// TestOutage is the fault test: a stack as `make run` starts it, over
// MinIO and a PostgreSQL cluster of its own, with request loops in flight
// while PostgreSQL crashes and comes back, dynamic is killed (run.sh
// restarts it), and MinIO stops and comes back. Throughout, content
// answers 200; user routes answer their normal statuses, or 503 with
// Retry-After while something they need is down (never 500, 502 or a
// dropped connection); they recover without restarting anything else; and
// every highlight acknowledged before or during the outages is still there.
func TestOutage(t *testing.T) {
	root := repotest.Root(t)
	buildBinaries(t, root)
	pg := startOwnPostgres(t, root)
	minio := s3test.Start(t)
	if minio.External {
		t.Skip("the fault test stops MinIO: it needs one it started (S3_TEST_ENDPOINT is set)")
	}
	store := minio.URL(minio.NewBucket(t), "outage")
	st := startStack(t, root, store, append(minio.Env(), "DATABASE_URL="+pg.url))
	e := &env{pass: "outage", base: st.demo.BaseURL, demo: st.demo, client: newClient(), rep: &report{out: io.Discard}}
	user := hdr{"Authorization": "Bearer " + st.demo.UserToken}

	setup := func(name string, fn func(c *C)) {
		t.Helper()
		e.rule("outage/"+name, fn)
		if r := e.rep.results[len(e.rep.results)-1]; !r.ok {
			t.Fatalf("%s: %s\n%s", name, r.why, st.logs())
		}
	}
	setup("grant", func(c *C) {
		r := c.do("POST", "/data-exchange/token", user, `{"requested_permissions":["highlights"]}`)
		c.status(r, 201)
		_, done := consent(c, str(obj(c.json(r, exchangeTokenSchema))["token"]), "x-svc-app-id="+st.demo.AppID, "approve")
		if q := callbackQuery(c, done); q.Get("data_exchange_status") != "granted" {
			c.Fatalf("consent: %v", q)
		}
	})
	// Highlights written before any outage, and the content the loops
	// read (fetched once, so that the edge holds it).
	before := map[string]string{}
	setup("highlights-before", func(c *C) {
		for v := 1; v <= 10; v++ {
			id, color := fmt.Sprintf("JHN.1.%d", v), fmt.Sprintf("a0b0%02x", v)
			c.status(c.do("POST", "/v1/highlights", user, highlightBody(id, color)), 201)
			before[id] = color
		}
	})
	content := []string{"/v1/bibles/9001", "/v1/bibles/9001/index", "/v1/bibles/9001/passages/JHN.3.16?format=html"}
	setup("content-before", func(c *C) {
		for _, p := range content {
			c.status(c.get(p, nil), 200)
		}
	})

	pr := &probes{phase: "steady", before: before, acked: map[string]string{}, last: map[string]string{}, perPhase: map[string]int{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	loop := func(every time.Duration, fn func(client *http.Client, i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := newClient()
			client.Timeout = 10 * time.Second
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(every):
				}
				fn(client, i)
			}
		}()
	}
	loop(150*time.Millisecond, func(client *http.Client, i int) {
		p := content[i%len(content)]
		if r, err := send(client, e, "GET", p, nil, ""); err != nil || r.status != 200 {
			pr.violation("content %s: %s", p, describe(r, err))
		}
	})
	loop(100*time.Millisecond, func(client *http.Client, i int) {
		r, err := send(client, e, "GET", "/v1/highlights?bible_id=9001&passage_id=JHN.1", user, "")
		if pr.userRoute("read", r, err, 200) {
			pr.checkBefore(r)
		}
	})
	loop(100*time.Millisecond, func(client *http.Client, i int) {
		id, color := fmt.Sprintf("JHN.2.%d", i%10+1), fmt.Sprintf("c0%04x", i%0x10000)
		pr.attempt(id, color)
		r, err := send(client, e, "POST", "/v1/highlights", user, highlightBody(id, color))
		if pr.userRoute("write", r, err, 201, 409) {
			pr.ack(id, color)
		}
	})

	edgePid := readPid(t, st, "edge")
	phase := func(name string, down, up func()) {
		t.Helper()
		pr.begin(name)
		down()
		time.Sleep(4 * time.Second)
		up()
		if err := pr.recovered(90 * time.Second); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		t.Logf("%s: %s", name, pr.summary())
	}
	dynamicPid := readPid(t, st, "dynamic")
	phase("postgres", func() { pg.run(t, "crash") }, func() { pg.run(t, "") })
	if p := readPid(t, st, "dynamic"); p != dynamicPid {
		t.Errorf("dynamic was restarted during the PostgreSQL outage (pid %d, then %d): it should have waited it out", dynamicPid, p)
	}
	phase("dynamic", func() { syscall.Kill(dynamicPid, syscall.SIGKILL) }, func() {})
	dynamicPid = readPid(t, st, "dynamic")
	phase("store", func() { minio.Stop(t) }, func() { minio.Restart(t) })
	close(stop)
	wg.Wait()

	if p := readPid(t, st, "dynamic"); p != dynamicPid {
		t.Errorf("dynamic was restarted during the store outage")
	}
	if p := readPid(t, st, "edge"); p != edgePid {
		t.Errorf("the edge was restarted (pid %d, then %d): it must ride out every outage", edgePid, p)
	}
	for _, v := range pr.violations() {
		t.Error(v)
	}
	// Every acknowledged highlight is there, in its colour.
	setup("highlights-after", func(c *C) {
		for chapter, want := range map[string]map[string]string{"JHN.1": before, "JHN.2": pr.settled()} {
			r := c.get("/v1/highlights?bible_id=9001&passage_id="+chapter, user)
			c.status(r, 200)
			got := highlightColors(r.body)
			for id, color := range want {
				if got[id] != color {
					c.Errorf("%s: colour %q after the outages, want %q", id, got[id], color)
				}
			}
		}
	})
	if t.Failed() {
		t.Log(st.logs())
	}
}

func highlightBody(passage, color string) string {
	return fmt.Sprintf(`{"request_id":%q,"highlight":{"bible_id":9001,"passage_id":%q,"color":%q}}`, newUUID(), passage, color)
}

func highlightColors(body []byte) map[string]string {
	var v struct {
		Data []struct {
			PassageID string `json:"passage_id"`
			Color     string `json:"color"`
		} `json:"data"`
	}
	json.Unmarshal(body, &v)
	out := map[string]string{}
	for _, h := range v.Data {
		out[h.PassageID] = h.Color
	}
	return out
}

// send is one request of a loop: no retries, and a transport error is
// returned rather than ending the test.
func send(client *http.Client, e *env, method, path string, h hdr, body string) (*resp, error) {
	req, err := e.newRequest(method, path, h, body)
	if err != nil {
		return nil, err
	}
	r, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	return &resp{method: method, path: path, status: r.StatusCode, h: r.Header, body: b}, nil
}

func describe(r *resp, err error) string {
	if err != nil {
		return err.Error()
	}
	return r.String()
}

// probes collects what the loops saw.
type probes struct {
	mu          sync.Mutex
	phase       string
	bad         []string
	perPhase    map[string]int
	unavailable int       // 503s with Retry-After in this phase
	lastOK      time.Time // the latest user-route success
	began       time.Time
	before      map[string]string
	acked, last map[string]string // write loop: colour acknowledged, colour last tried, per verse
}

func (p *probes) violation(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// A few per phase: enough to see what went wrong in each.
	if p.perPhase[p.phase]++; p.perPhase[p.phase] <= 6 {
		p.bad = append(p.bad, fmt.Sprintf("[%s] ", p.phase)+fmt.Sprintf(format, args...))
	}
}

func (p *probes) violations() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bad
}

func (p *probes) begin(phase string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.unavailable, p.began = phase, 0, time.Now()
}

// userRoute checks a user route's answer: one of ok (true), or 503 with
// Retry-After (false); anything else is a violation.
func (p *probes) userRoute(what string, r *resp, err error, ok ...int) bool {
	switch {
	case err != nil:
		p.violation("%s: %v", what, err)
	case r.status == 503 && r.h.Get("Retry-After") != "":
		p.mu.Lock()
		p.unavailable++
		p.mu.Unlock()
	case slices.Contains(ok, r.status):
		p.mu.Lock()
		p.lastOK = time.Now()
		p.mu.Unlock()
		return true
	default:
		p.violation("%s: %s (want %v, or 503 with Retry-After)", what, r, ok)
	}
	return false
}

func (p *probes) checkBefore(r *resp) {
	got := highlightColors(r.body)
	for id, color := range p.before {
		if got[id] != color {
			p.violation("highlight %s written before the outage reads %q, want %q", id, got[id], color)
		}
	}
}

func (p *probes) attempt(id, color string) {
	p.mu.Lock()
	p.last[id] = color
	p.mu.Unlock()
}

func (p *probes) ack(id, color string) {
	p.mu.Lock()
	p.acked[id] = color
	p.mu.Unlock()
}

// settled are the verses whose last write was acknowledged, with its
// colour: a write that answered 503 may or may not have landed.
func (p *probes) settled() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]string{}
	for id, c := range p.acked {
		if p.last[id] == c {
			out[id] = c
		}
	}
	return out
}

// recovered waits until a user route has succeeded since the phase's
// service came back.
func (p *probes) recovered(within time.Duration) error {
	back := time.Now()
	for deadline := back.Add(within); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		p.mu.Lock()
		ok := p.lastOK.After(back)
		p.mu.Unlock()
		if ok {
			return nil
		}
	}
	return fmt.Errorf("user routes did not recover within %s of the service coming back", within)
}

func (p *probes) summary() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("%d answers 503 with Retry-After, recovered %s after the outage began",
		p.unavailable, time.Since(p.began).Round(100*time.Millisecond))
}

func readPid(t *testing.T, st *stack, name string) int {
	t.Helper()
	for range 50 {
		b, err := os.ReadFile(filepath.Join(st.runDir, name+".pid"))
		if n, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no %s.pid in the run directory: run.sh does not supervise %s", name, name)
	return 0
}

// ownPostgres is a PostgreSQL cluster of the test's own (scripts/db.sh with
// PG_STATE), so that crashing it touches no other test.
type ownPostgres struct {
	root, state, url string
	env              []string
}

func startOwnPostgres(t *testing.T, root string) *ownPostgres {
	t.Helper()
	state, err := os.MkdirTemp("", "outage-pg-")
	if err != nil {
		t.Fatal(err)
	}
	// The server runs as its own user when the test runs as root: it must
	// be able to reach its data directory.
	os.Chmod(state, 0o755)
	p := &ownPostgres{root: root, state: state,
		env: append(cleanEnv(), "PG_STATE="+state, "DB_PORT="+strconv.Itoa(freePort(t)))}
	t.Cleanup(func() {
		p.run(t, "stop")
		if data, err := filepath.EvalSymlinks(filepath.Join(state, "data")); err == nil {
			os.RemoveAll(data)
		}
		os.RemoveAll(state)
	})
	p.url = p.run(t, "")
	return p
}

// run runs scripts/db.sh with arg ("" starts the server and prints its URL).
func (p *ownPostgres) run(t *testing.T, arg string) string {
	t.Helper()
	var args []string
	if arg != "" {
		args = []string{arg}
	}
	cmd := exec.Command(filepath.Join(p.root, "scripts", "db.sh"), args...)
	cmd.Env = p.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/db.sh %s: %v\n%s", arg, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}
