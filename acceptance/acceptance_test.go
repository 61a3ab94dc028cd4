package acceptance

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/publish/s3/s3test"
)

// landed is THE gate. Every rule belongs to one group (the part of its name
// before "/"). A failing rule of a landed group fails the Go test, and so
// `make test` and CI; a failing rule of any other group is printed and
// counted but does not fail the test, because its feature has not been
// built yet. When a feature lands, flip its group to true here.
var landed = map[string]bool{
	"edge":      true, // Bible content routes: shapes, passages, 404/422/400
	"keys":      true, // App Keys: 401 missing vs unknown, 412 archived
	"licences":  true, // 403 on content, 200 on metadata
	"http":      true, // HTTP semantics: 304, 206, 405, encodings, 429, 308, CORS
	"dynamic":   true, // highlights, consent flow (303), apps, permissions, licences
	"catalogue": true, // /v1/bibles collection, languages, organizations, fonts, verse of the day
}

// TestAcceptance starts the real stack the way `make run` does and walks
// the spec against it through real sockets: first with the directory store,
// then with the store in MinIO. It prints one line per rule and ends with
// "N passed, N failed".
func TestAcceptance(t *testing.T) {
	root := repoRoot(t)
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
	// The verdict: catalogue failures are listed but only the landed
	// groups fail the test.
	var fatal, pending []string
	for _, r := range rep.results {
		if r.ok {
			continue
		}
		if landed[r.group] {
			fatal = append(fatal, r.line())
		} else {
			pending = append(pending, r.line())
		}
	}
	if len(fatal) > 0 {
		fmt.Printf("%d failing rules in landed groups (these fail the test):\n", len(fatal))
		for _, f := range fatal {
			fmt.Println("  " + f)
		}
	}
	if len(pending) > 0 {
		fmt.Printf("%d failing rules in groups not marked landed (not fatal; see `landed` in acceptance_test.go)\n", len(pending))
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if len(fatal) > 0 {
		t.Errorf("%d rules of landed groups failed (listed above)", len(fatal))
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
