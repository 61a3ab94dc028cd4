package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/build/buildtest"
	"github.com/bibleplatform/platform/edge"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
	s3store "github.com/bibleplatform/platform/publish/s3"
	"github.com/bibleplatform/platform/publish/s3/s3test"
)

const appKey = "e2e-app-key"

// testEdge is an edge opened in process on a loopback port.
type testEdge struct {
	srv  *edge.Server
	base string
	stop func() // closes the edge
}

// startEdge opens an edge over store whatever its first build check finds
// (an edge starting while the store is down serves its disk cache), with an
// access snapshot file that licenses appKey for Bible 206.
func startEdge(t *testing.T, ctx context.Context, store publish.Store, cfg edge.Config) *testEdge {
	t.Helper()
	snap := &access.Snapshot{Version: 1, Generated: time.Now(), Apps: []access.App{{
		ID: "00000000-0000-4000-8000-000000000001", Name: "e2e", Status: "live",
		KeyHashes: []string{access.HashKeyHex(appKey)}, Bibles: []int32{206},
		RateLimit: access.Rate{PerSecond: 1e6, Burst: 1e6},
	}}}
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Access = filepath.Join(t.TempDir(), "access.json")
	if err := os.WriteFile(cfg.Access, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.Store, cfg.Poll = store, 100*time.Millisecond
	cfg.Log = slog.New(slog.DiscardHandler)
	srv, err := edge.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Open(ctx, "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { srv.Close() }) }
	t.Cleanup(stop)
	return &testEdge{srv: srv, base: "http://" + srv.Addr(), stop: stop}
}

var client = &http.Client{Timeout: 30 * time.Second}

// get answers status and body; a transport error is status 0.
func (e *testEdge) get(path string) (int, string) {
	req, _ := http.NewRequest("GET", e.base+path, nil)
	req.Header.Set("X-SVC-App-Key", appKey)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (e *testEdge) mustGet(t *testing.T, path string) string {
	t.Helper()
	code, body := e.get(path)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	return body
}

// waitFor polls until cond holds, failing after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}

// publishContent builds content into store through the parallel uploader,
// as `publish build --store s3://…` does.
func publishContent(ctx context.Context, content string, store publish.Store, opt publish.SyncOptions) (*build.Report, publish.SyncReport, error) {
	u := publish.NewUploader(ctx, store, opt)
	// Volumes of 1 MiB: a publish of a few books writes several, as one
	// of a catalogue does of 32 MiB.
	rep, err := build.Build(ctx, build.Options{Content: content, Store: u, VolumeBytes: 1 << 20})
	up, werr := u.Wait(ctx)
	if err == nil {
		err = werr
	}
	return rep, up, err
}

// editUSFM inserts text after the first verse marker `\v VERSE ` of
// chapter CHAPTER of a book of Bible 206.
func editUSFM(t *testing.T, content, book string, chapter, verse int, text string) {
	t.Helper()
	p := filepath.Join(content, "bibles", "206", book+".usfm")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	at := 0
	if chapter > 1 {
		c := regexp.MustCompile(fmt.Sprintf(`\\c %d\s`, chapter)).FindStringIndex(s)
		if c == nil {
			t.Fatalf("%s has no chapter %d", p, chapter)
		}
		at = c[1]
	}
	v := fmt.Sprintf("\\v %d ", verse)
	i := strings.Index(s[at:], v)
	if i < 0 {
		t.Fatalf("%s has no verse %d:%d", p, chapter, verse)
	}
	i += at + len(v)
	if err := os.WriteFile(p, []byte(s[:i]+text+s[i:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPublishToMinIOServeThroughEdge is the end-to-end check: the
// WEB published to a real MinIO and served by the edge through a new
// build, a rollback, a MinIO crash in the middle of a publish and an
// outage while serving.
func TestPublishToMinIOServeThroughEdge(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("publishes the whole WEB to MinIO (about half a minute)")
	}
	minio := s3test.Start(t) // its own server: the test stops it
	store := minio.Store(t, "web")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	content := filepath.Join(t.TempDir(), "content")
	buildtest.AddLicenses(t, content, 1)
	if _, err := build.Import(content, repotest.Shared(t, "bibles", "eng-web"), build.BibleMeta{
		ID: 206, Abbreviation: "WEB", Title: "World English Bible", LanguageTag: "en", LicenseID: 1,
	}, build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cold, up, err := publishContent(ctx, content, store, publish.SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cold publish: %s, %d objects uploaded, %d bytes", time.Since(start).Round(time.Millisecond), up.Uploaded, up.UploadedBytes)
	first := cold.Build

	// Edge A keeps decoded packs in memory; edge B keeps nothing in
	// memory, so that every answer it gives comes from its disk cache or
	// the store.
	a := startEdge(t, ctx, store, edge.Config{DiskCacheDir: t.TempDir(), DiskCacheBytes: 1 << 30})
	bConfig := edge.Config{PackCacheBytes: 1, DiskCacheDir: t.TempDir(), DiskCacheBytes: 1 << 30}
	b := startEdge(t, ctx, store, bConfig)
	top := t // an edge started in a subtest outlives it

	const verse = "/v1/bibles/206/passages/JHN.3.16?format=text"
	var oldVerse string
	warm := []string{verse, "/v1/bibles/206/passages/GEN.1.1", "/v1/bibles/206/passages/JHN.3?format=html",
		"/v1/bibles/206/books/JHN/chapters/3", "/v1/bibles/206", "/v1/bibles/206/books",
		"/v1/bibles/206/passages/PSA.119.105", "/v1/bibles/206/passages/JHN.3.16-18"}
	cached := map[string]string{}
	t.Run("serve", func(t *testing.T) {
		for _, p := range warm {
			cached[p] = a.mustGet(t, p)
		}
		oldVerse = cached[verse]
		if !strings.Contains(oldVerse, "For God so loved the world") {
			t.Fatalf("JHN.3.16 = %.200s", oldVerse)
		}
		for _, p := range warm[:3] {
			if got := b.mustGet(t, p); got != cached[p] {
				t.Errorf("edges A and B disagree on %s", p)
			}
		}
	})

	// A cold pack: the Bible pack (6 MiB) read by ranges, against an
	// edge that fetches packs whole.
	t.Run("ranged read latency", func(t *testing.T) {
		whole := startEdge(t, ctx, store, edge.Config{WholePackMax: -1})
		ranged := startEdge(t, ctx, store, edge.Config{})
		for _, p := range []string{"/v1/bibles/206", "/v1/bibles/206/passages/PSA.119.1"} {
			t0 := time.Now()
			rb := ranged.mustGet(t, p)
			dr := time.Since(t0)
			t0 = time.Now()
			wb := whole.mustGet(t, p)
			dw := time.Since(t0)
			if rb != wb {
				t.Errorf("%s: the ranged read answers differently from the whole pack", p)
			}
			t.Logf("cold %s: ranged read %s, whole pack %s", p, dr.Round(10*time.Microsecond), dw.Round(10*time.Microsecond))
		}
	})

	var second string
	var newVerse string
	t.Run("republish one verse", func(t *testing.T) {
		editUSFM(t, content, "JHN", 3, 16, "Truly, ")
		var stop atomic.Bool
		var wg sync.WaitGroup
		var mu sync.Mutex
		answers := map[string]int{}
		var bad []string
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					code, body := a.get(verse)
					mu.Lock()
					if code != 200 {
						bad = append(bad, fmt.Sprintf("%d %.200s", code, body))
					}
					answers[body]++
					mu.Unlock()
				}
			}()
		}
		t0 := time.Now()
		rep, up, err := publishContent(ctx, content, store, publish.SyncOptions{})
		if err != nil {
			t.Fatal(err)
		}
		second = rep.Build
		t.Logf("one-verse publish: %s, %d uploaded, %d skipped, %d bytes", time.Since(t0).Round(time.Millisecond), up.Uploaded, rep.Skipped, up.UploadedBytes)
		// The chapter's pack and the book's part of the search index
		// (with the book's word counts), in one volume, and the manifest;
		// every other pack is the same content address as before.
		if up.Uploaded != 2 || rep.Written != 3 || rep.Volumes != 1 {
			t.Errorf("uploaded %d objects (build says %d written in %d volumes), want 2: JHN 3's pack and JHN's search part in a volume, and the manifest",
				up.Uploaded, rep.Written, rep.Volumes)
		}
		took := waitFor(t, 5*time.Second, "edge serves the new build", func() bool {
			_, body := a.get(verse)
			return strings.Contains(body, "Truly, ")
		})
		t.Logf("edge switched %s after the publish finished", took.Round(time.Millisecond))
		time.Sleep(100 * time.Millisecond) // a few answers from the new build too
		stop.Store(true)
		wg.Wait()
		_, newVerse = a.get(verse)
		if len(bad) > 0 {
			t.Errorf("%d answers during the switch were errors, e.g. %s", len(bad), bad[0])
		}
		total := 0
		for body, n := range answers {
			total += n
			if body != oldVerse && body != newVerse {
				t.Errorf("%d answers were neither build's: %.200s", n, body)
			}
		}
		t.Logf("%d answers during the switch: %d old, %d new", total, answers[oldVerse], answers[newVerse])
		if answers[oldVerse] == 0 || answers[newVerse] == 0 {
			t.Errorf("the loop did not straddle the switch (%d old, %d new)", answers[oldVerse], answers[newVerse])
		}
	})

	t.Run("rollback", func(t *testing.T) {
		got, err := publish.Rollback(ctx, store, "")
		if err != nil {
			t.Fatal(err)
		}
		if got != first {
			t.Fatalf("rolled back to %s, want the first build %s", got, first)
		}
		// Each edge polls on its own clock: wait for both before comparing
		// their answers.
		for _, e := range []*testEdge{a, b} {
			waitFor(t, 5*time.Second, "edge serves the rolled-back text", func() bool {
				_, body := e.get(verse)
				return body == oldVerse
			})
		}
		if _, err := publish.Rollback(ctx, store, second); err != nil {
			t.Fatal(err)
		}
		for _, e := range []*testEdge{a, b} {
			waitFor(t, 5*time.Second, "edge serves the new text again", func() bool {
				_, body := e.get(verse)
				return body == newVerse
			})
		}
		// What both edges serve from now on, and hold in their caches. A
		// pack goes on the disk cache when it is wanted a second time (its
		// first miss reads the entry by range; docs/edge.md, "Cache tiers"),
		// so B is asked twice.
		for _, p := range warm {
			cached[p] = a.mustGet(t, p)
			for range 2 {
				if got := b.mustGet(t, p); got != cached[p] {
					t.Errorf("edges A and B disagree on %s", p)
				}
			}
		}
	})

	// MinIO dies in the middle of a publish touching a dozen books: the
	// publish fails, and both edges keep serving the previous build from
	// their caches while readiness reports the outage.
	books := []string{"GEN", "EXO", "LEV", "NUM", "DEU", "JOS", "JDG", "RUT", "MAT", "MRK", "LUK", "ACT"}
	t.Run("MinIO killed mid-publish", func(t *testing.T) {
		for _, bk := range books {
			editUSFM(t, content, bk, 1, 1, "Behold, ")
		}
		s := s3test.NewStopAfter(store, 3, func() { minio.Stop(t) })
		// Few attempts: the retries' backoff would only make the test
		// wait for a failure that is certain.
		t0 := time.Now()
		_, _, err := publishContent(ctx, content, s, publish.SyncOptions{Attempts: 2, Backoff: 10 * time.Millisecond})
		failed := time.Since(t0)
		<-s.Stopped
		t.Logf("publish failed after %s; MinIO stopped after %s", failed.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
		if err == nil {
			t.Fatal("the publish succeeded although MinIO went down in the middle")
		}
		t.Logf("publish failed as it should after %d uploads: %.200v", s.Landed(), err)
	})

	t.Run("outage while serving", func(t *testing.T) {
		for _, e := range []*testEdge{a, b} {
			waitFor(t, 10*time.Second, "readiness reports the outage", func() bool {
				code, _ := e.get("/readyz")
				return code == 503
			})
			_, reason := e.get("/readyz")
			if !strings.Contains(reason, "object store unreachable") {
				t.Errorf("readyz reason: %q", reason)
			}
			if code, _ := e.get("/healthz"); code != 200 {
				t.Errorf("healthz = %d during the outage, want 200", code)
			}
		}
		for _, p := range warm {
			if code, body := a.get(p); code != 200 || body != cached[p] {
				t.Errorf("edge A during the outage: GET %s = %d %.200s", p, code, body)
			}
		}
		// B holds nothing in memory: its answers come from disk.
		before := metric(t, b, `edge_pack_reads_total{tier="disk"}`)
		for _, p := range warm[:3] {
			if code, body := b.get(p); code != 200 || body != cached[p] {
				t.Errorf("edge B (disk) during the outage: GET %s = %d %.200s", p, code, body)
			}
		}
		if got := metric(t, b, `edge_pack_reads_total{tier="disk"}`) - before; got < 2 {
			t.Errorf("edge B served %g packs from disk during the outage, want 2", got)
		}
		// Never read before: not cached anywhere.
		code, body := a.get("/v1/bibles/206/passages/REV.22.21")
		if code != 503 || strings.Contains(body, "connect") || strings.Contains(body, "127.0.0.1") {
			t.Errorf("uncached passage during the outage = %d %s, want 503 without internals", code, body)
		}
		if metric(t, a, "edge_store_up") != 0 || metric(t, a, "edge_store_errors_total") == 0 {
			t.Error("metrics do not show the outage")
		}
	})

	// Edge B is replaced by a new process on the same disk cache while
	// MinIO is still down: it finds the build it last served in the cache
	// and serves what the cache holds. From here on, B is the new edge.
	t.Run("edge restarted during the outage", func(t *testing.T) {
		b.stop()
		// A store made as the edge binary makes it (storeurl.OpenLazy):
		// no request until the first read.
		lazy, err := s3store.New(store.Config(), minio.Creds())
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		c := startEdge(top, ctx, lazy, bConfig)
		t.Logf("restarted edge up after %s", time.Since(t0).Round(time.Millisecond))
		b = c
		if got := b.srv.Build(); got != second {
			t.Fatalf("restarted edge serves build %q, want %s, the one it served before", got, second)
		}
		for _, p := range warm[:3] {
			if code, body := b.get(p); code != 200 || body != cached[p] {
				t.Errorf("restarted edge during the outage: GET %s = %d %.200s", p, code, body)
			}
		}
		if code, reason := b.get("/readyz"); code != 503 || !strings.Contains(reason, "object store unreachable") {
			t.Errorf("restarted edge: readyz = %d %q, want 503 naming the outage", code, reason)
		}
		if code, _ := b.get("/healthz"); code != 200 {
			t.Errorf("restarted edge: healthz = %d, want 200", code)
		}
		code, body := b.get("/v1/bibles/206/passages/REV.22.21")
		if code != 503 || !json.Valid([]byte(body)) || !strings.Contains(body, `"message"`) || strings.Contains(body, "127.0.0.1") {
			t.Errorf("restarted edge, uncached passage = %d %s; want 503 with a JSON message, without internals", code, body)
		}
	})

	t.Run("MinIO back: rerun completes, edges recover", func(t *testing.T) {
		minio.Restart(t)
		for _, e := range []*testEdge{a, b} {
			took := waitFor(t, 10*time.Second, "readiness recovers", func() bool {
				code, _ := e.get("/readyz")
				return code == 200
			})
			t.Logf("ready again %s after MinIO restarted", took.Round(time.Millisecond))
		}
		if cur, err := store.Current(ctx); err != nil || cur != second {
			t.Fatalf("after the failed publish Current = %s, %v; want %s", cur, err, second)
		}
		rep, up, err := publishContent(ctx, content, store, publish.SyncOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("rerun: %d uploaded, %d skipped (the unchanged, and what landed before the crash)", up.Uploaded, rep.Skipped)
		if rep.Build == second {
			t.Fatal("the rerun did not make a new build")
		}
		for _, e := range []*testEdge{a, b} {
			waitFor(t, 5*time.Second, "edge serves the rerun's build", func() bool {
				_, body := e.get("/v1/bibles/206/passages/GEN.1.1")
				return strings.Contains(body, "Behold, ")
			})
			if got := e.mustGet(t, "/v1/bibles/206/passages/REV.22.21"); !strings.Contains(got, "grace") {
				t.Errorf("REV.22.21 after recovery = %.200s", got)
			}
		}
		// The restarted edge serves everything, the catalogue and the
		// Bible pack read by ranges included.
		for _, p := range warm {
			b.mustGet(t, p)
		}
		for _, e := range []*testEdge{a, b} {
			var lines []string
			for _, l := range strings.Split(e.mustGet(t, "/metrics"), "\n") {
				if strings.HasPrefix(l, "edge_pack_reads_total") || strings.HasPrefix(l, "edge_store_errors_total") {
					lines = append(lines, strings.TrimPrefix(l, "edge_"))
				}
			}
			t.Logf("edge %s: %s", e.base, strings.Join(lines, "  "))
		}
	})
}

// metric reads one sample from the edge's /metrics.
func metric(t *testing.T, e *testEdge, name string) float64 {
	t.Helper()
	for _, l := range strings.Split(e.mustGet(t, "/metrics"), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			var f float64
			fmt.Sscan(v, &f)
			return f
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}
