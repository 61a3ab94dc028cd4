package acceptance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bibleplatform/platform/internal/repotest"
)

var npmCI struct {
	once sync.Once
	err  error
}

// sdkRules runs acceptance/js/sdk.mjs, the live service's own JavaScript
// client (@youversion/platform-core, pinned) pointed at this pass's edge,
// and folds its PASS/FAIL lines into the report under the same groups and
// gate as the Go rules.
func sdkRules(t *testing.T, e *env, root string) {
	dir := filepath.Join(root, "acceptance", "js")
	npmCI.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		npmCI.err = repotest.NPMCI(ctx, dir)
	})
	if npmCI.err != nil {
		e.rule("edge/sdk.harness", func(c *C) { c.Fatalf("%v", npmCI.err) })
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "sdk.mjs")
	cmd.Dir = dir
	record := filepath.Join(t.TempDir(), "answers.jsonl")
	cmd.Env = append(os.Environ(), "SDK_BASE_URL="+e.base, "SDK_APP_KEY="+e.demo.AppKey, "SDK_RECORD="+record)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "PASS "), strings.HasPrefix(line, "FAIL "):
			ok := strings.HasPrefix(line, "PASS ")
			name, why, _ := strings.Cut(line[5:], ": ")
			group, rest, found := strings.Cut(name, "/")
			if !found {
				group, rest = "edge", name
			}
			e.rep.add(result{pass: e.pass, group: group, name: rest, ok: ok, why: why})
			n++
		case strings.HasPrefix(line, "NOTE "):
			e.rep.note(fmt.Sprintf("[%s] %s", e.pass, line[5:]))
		}
	}
	// The harness itself must run to its end: a crash half way would
	// otherwise just mean fewer rules.
	e.rule("edge/sdk.harness-ran", func(c *C) {
		if err != nil {
			c.Errorf("node sdk.mjs: %v\n%s", err, stderr.String())
		}
		if n == 0 {
			c.Errorf("node sdk.mjs reported no rule")
		}
	})
	exampleRule(e, root)
	// What the official client received is held to the OpenAPI document
	// like every answer of the Go rules.
	e.rule("edge/sdk.openapi", func(c *C) {
		b, err := os.ReadFile(record)
		if err != nil {
			c.Fatalf("the client's answers: %v", err)
		}
		lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
		for _, l := range lines {
			var a struct {
				Method, URL string
				Status      int
				Headers     map[string]string
				Body        []byte // base64 in JSON
			}
			if err := json.Unmarshal(l, &a); err != nil {
				c.Fatalf("record %q: %v", l, err)
			}
			req, err := http.NewRequest(a.Method, a.URL, nil)
			if err != nil {
				c.Fatalf("record %q: %v", l, err)
			}
			h := http.Header{}
			for k, v := range a.Headers {
				h.Set(k, v)
			}
			c.conform(req, &resp{method: a.Method, path: req.URL.RequestURI(), status: a.Status, h: h, body: a.Body})
		}
		if len(lines) < 20 {
			c.Errorf("only %d answers recorded", len(lines))
		}
	})
}

var exampleCI struct {
	once sync.Once
	err  error
}

// exampleRule runs examples/js/reader.mjs, the client example of
// docs/clients.md, against this pass's edge: it must run to its end.
func exampleRule(e *env, root string) {
	e.rule("edge/sdk.example", func(c *C) {
		dir := filepath.Join(root, "examples", "js")
		exampleCI.once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			exampleCI.err = repotest.NPMCI(ctx, dir)
		})
		if exampleCI.err != nil {
			c.Fatalf("%v", exampleCI.err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", "reader.mjs")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "BASE_URL="+e.base, "APP_KEY="+e.demo.AppKey)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "\nok") {
			c.Errorf("node examples/js/reader.mjs: %v\n%s", err, out)
		}
	})
}
