package acceptance

import (
	"fmt"
	"os"
	"strings"
	"testing"

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
	licenceRules(e)
	httpRules(e)
	dynamicRules(e, fx)
	catalogueRules(e, fx)
	surfaceRules(e)
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
