package acceptance

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish/s3/s3test"
)

// TestAcceptance starts the real stack the way `make run` does and walks
// the spec against it through real sockets: first with the directory store,
// then with the store in MinIO. It prints one line per rule and ends with
// "N passed, N failed".
func TestAcceptance(t *testing.T) {
	root := repotest.Root(t)
	buildBinaries(t, root)
	fx := loadFixtures(t, root)
	rep := &report{out: os.Stdout}

	passes := []struct {
		name  string
		setup func(t *testing.T) (store string, env []string)
	}{
		{"dir", func(t *testing.T) (string, []string) { return "", nil }},
		{"minio", func(t *testing.T) (string, []string) {
			srv := s3test.Start(t)
			return srv.URL(srv.NewBucket(t), "acceptance"), srv.Env()
		}},
	}
	for _, p := range passes {
		t.Run(p.name, func(t *testing.T) {
			store, extra := p.setup(t)
			st := startStack(t, root, store, extra)
			e := &env{pass: p.name, base: st.demo.BaseURL, demo: st.demo, client: newClient(), rep: rep}
			fmt.Printf("=== acceptance pass %s: %s (store %s)\n", p.name, e.base, redactStore(st.store))
			runRules(t, e, fx, root, st)
			secretsNotLogged(t, st)
		})
	}

	passed, failed := rep.counts()
	var failing []string
	for _, r := range rep.results {
		if !r.ok {
			failing = append(failing, r.line())
		}
	}
	if len(failing) > 0 {
		fmt.Printf("%d failing rules:\n", len(failing))
		for _, f := range failing {
			fmt.Println("  " + f)
		}
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		t.Errorf("%d rules failed (listed above)", failed)
	}
}

// runRules runs every rule of the suite against one stack.
func runRules(t *testing.T, e *env, fx *fixtures, root string, st *stack) {
	keyRules(e)
	contentRules(e, fx)
	mappingRules(e)
	votdInRules(e)
	listRules(e)
	parallelRules(e)
	licenceRules(e)
	httpRules(e)
	dynamicRules(e, fx)
	catalogueRules(e, fx)
	surfaceRules(e)
	searchRules(e)
	topicRules(e)
	unifiedRules(e)
	sdkRules(t, e, root)
	tlsRules(t, e, root, st)
	// Last: it spends an app's whole allowance.
	rateLimitRules(e)
}

// redactStore keeps credentials out of the log (the URL has none today,
// but an endpoint query might grow some).
func redactStore(s string) string {
	if i := strings.IndexByte(s, '?'); i >= 0 {
		return s[:i] + "?…"
	}
	return s
}

// secretsNotLogged sends requests the servers cannot parse, carrying the
// demo App Keys, the user's bearer token and the account's password, then
// stops the stack and reads every log its services wrote (run.sh's own
// output prints the demo credentials on purpose, so it is not read): no
// secret any rule sent may appear in them, quoted or not.
func secretsNotLogged(t *testing.T, st *stack) {
	t.Helper()
	d := st.demo
	secrets := map[string]string{"app key": d.AppKey, "archived app key": d.ArchivedAppKey,
		"unlicensed app key": d.UnlicensedAppKey, "bearer token": d.UserToken, "password": d.AccountPassword}
	host := strings.TrimPrefix(d.BaseURL, "http://")
	for _, raw := range []string{
		"GET /v1/bibles HTTP/1.1\r\nHost: a\r\nX-SVC-App-Key: " + d.AppKey + "\r\nAuthorization: Bearer " + d.UserToken + "\r\nX-Bad: \x01\r\n\r\n",
		"POST /auth/sign-in HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\nX-SVC-App-Key: " + d.AppKey + "\r\n\r\nemail=a&password=" + d.AccountPassword,
	} {
		c, err := net.DialTimeout("tcp", host, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte(raw))
		io.Copy(io.Discard, c)
		c.Close()
	}
	st.stop(t)
	logs, _ := filepath.Glob(filepath.Join(st.runDir, "*.log"))
	read := 0
	for _, p := range logs {
		if filepath.Base(p) == "run.log" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		read++
		for what, v := range secrets {
			if v != "" && bytes.Contains(b, []byte(v)) {
				i := bytes.Index(b, []byte(v))
				line := b[bytes.LastIndexByte(b[:i], '\n')+1:]
				if j := bytes.IndexByte(line, '\n'); j >= 0 {
					line = line[:j]
				}
				t.Errorf("%s holds the demo %s: %q", filepath.Base(p), what, line)
			}
		}
	}
	if read < 2 {
		t.Errorf("read %d service logs in %s, want the edge's and dynamic's at least", read, st.runDir)
	}
}
