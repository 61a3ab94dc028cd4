package acceptance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bibleplatform/platform/dynamic/postgres/pgtest"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish/s3/s3test"
)

// TestDeployTopology starts the topology of docs/deploy.md from its
// commands, as binaries in bin/: publish builds into an S3 store (MinIO),
// one dynamic on PostgreSQL, two edges on ports of their own sharing each
// app's allowance (--edges 2), secrets in the environment as the unit
// files give them. Through each edge a content read answers and a
// highlight write lands, and each highlight is read back through the
// other edge; dynamic's /readyz answers on its own port.
func TestDeployTopology(t *testing.T) {
	root := repotest.Root(t)
	buildBinaries(t, root)
	minio := s3test.Start(t)
	store := minio.URL(minio.NewBucket(t), "deploy")
	dir := t.TempDir()
	bin := func(name string) string { return filepath.Join(root, "bin", name) }
	dbURL := pgtest.Empty(t)
	secrets := []string{
		"DATABASE_URL=" + dbURL,
		"EDGE_TOKEN=deploy-test-edge-token",
		"CSRF_KEY=deploy-test-csrf-key",
		"EDGE_PAGE_TOKEN_KEY=deploy-test-page-token-key",
	}
	env := append(append(cleanEnv(), minio.Env()...), secrets...)
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin(name), args...)
		cmd.Dir, cmd.Env = root, env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
		}
		return string(out)
	}
	run("publish", "build", "--content", "fixtures/content", "--store", store)
	// The demo apps and keys, a user token and the user's grant to the
	// demo app (docs/dynamic.md, Admin CLI).
	run("dynamic", "seed", "--store", store)
	var demo demo
	b, err := os.ReadFile(filepath.Join(root, "fixtures", "demo-keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &demo); err != nil {
		t.Fatal(err)
	}
	const user = "0d6e6a52-3f0c-4a4e-9a51-7f3c2b1d0e11"
	key := filepath.Join(dir, "jwt-ed25519.pem")
	token := strings.TrimSpace(run("dynamic", "users", "token", "--user", user, "--key", key))
	run("dynamic", "users", "grant", "--user", user, "--app", demo.AppID)

	dynamicAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	dynamicURL := "http://" + dynamicAddr
	dyn := startService(t, dir, "dynamic", env, bin("dynamic"), "serve", "--listen", dynamicAddr, "--store", store,
		"--jwt-keys", strings.TrimSuffix(key, ".pem")+".pub.pem")
	waitReady(t, dynamicURL, dyn)

	var edges []string
	for i := range 2 {
		addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
		base := "http://" + addr
		cache := filepath.Join(dir, fmt.Sprintf("edge%d", i))
		e := startService(t, dir, fmt.Sprintf("edge%d", i), env, bin("edge"), "serve", "--store", store,
			"--listen", addr, "--public-url", base,
			"--access", dynamicURL+"/internal/access", "--dynamic", dynamicURL,
			"--access-cache", filepath.Join(cache, "access.json"), "--disk-cache", filepath.Join(cache, "packs"),
			"--edges", "2", "--usage-report", "200ms")
		waitReady(t, base, e)
		edges = append(edges, base)
	}

	do := func(method, url, body string, user bool) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-SVC-App-Key", demo.AppKey)
		if user {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	passages := []string{"JHN.3.16", "JHN.3.17"}
	for i, base := range edges {
		if code, body := do("GET", base+"/v1/bibles/9001/passages/JHN.3.16?format=text", "", false); code != 200 || !strings.Contains(body, "JHN.3.16") {
			t.Errorf("edge %d: content read: %d %.200s", i, code, body)
		}
		if code, body := do("POST", base+"/v1/highlights", highlightBody(passages[i], "ffcc00"), true); code != 201 {
			t.Errorf("edge %d: highlight write: %d %.200s", i, code, body)
		}
	}
	for i, base := range edges {
		other := passages[1-i]
		code, body := do("GET", base+"/v1/highlights?bible_id=9001&passage_id="+other, "", true)
		if code != 200 || highlightColors([]byte(body))[other] != "ffcc00" {
			t.Errorf("edge %d: the highlight written through the other edge: %d %.200s", i, code, body)
		}
	}
	// Both edges report the six requests they admitted for the demo app
	// (docs/portal.md, Usage).
	checkUsage(t, dbURL, demo.AppID, 6)
	// dynamic's access log (on by default) has the writes, each with its
	// duration in microseconds; lines reach the log every 100 ms.
	time.Sleep(300 * time.Millisecond)
	logged, err := os.ReadFile(dyn.log)
	if err != nil {
		t.Fatal(err)
	}
	if log := string(logged); !strings.Contains(log, `"method":"POST","path":"/v1/highlights","route":"/v1/highlights","status":201`) ||
		!strings.Contains(log, `"duration_us":`) {
		t.Errorf("dynamic's access log lacks the highlight writes or their duration_us")
	}
	if t.Failed() {
		for _, name := range []string{"dynamic", "edge0", "edge1"} {
			t.Log(tailOf(filepath.Join(dir, name+".log")))
		}
	}
}

// service is a process of the topology, its standard error in a log file.
type service struct {
	name string
	log  string
	done chan error
}

// startService starts one long-running binary and stops it (SIGTERM, then
// SIGKILL after 20 s) when the test ends.
func startService(t *testing.T, dir, name string, env []string, path string, args ...string) *service {
	t.Helper()
	s := &service{name: name, log: filepath.Join(dir, name+".log"), done: make(chan error, 1)}
	logf, err := os.Create(s.log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { s.done <- cmd.Wait(); logf.Close() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

// waitReady waits up to a minute for base's /readyz to answer 200.
func waitReady(t *testing.T, base string, s *service) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := http.Get(base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		select {
		case err := <-s.done:
			t.Fatalf("%s exited (%v):\n%s", s.name, err, tailOf(s.log))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready within a minute:\n%s", s.name, tailOf(s.log))
		}
	}
}

// tail is the end of a log file under its name, for a failure message;
// ok is false when the file cannot be read (and out says why).
func tail(path string) (out string, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error(), false
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return "--- " + filepath.Base(path) + "\n" + string(b), true
}

// tailOf is tail's text alone.
func tailOf(path string) string {
	out, _ := tail(path)
	return out
}
