package acceptance

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			npmCI.err = fmt.Errorf("npm ci in acceptance/js: %v\n%s", err, out)
		}
	})
	if npmCI.err != nil {
		e.rule("edge/sdk.harness", func(c *C) { c.Fatalf("%v", npmCI.err) })
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "sdk.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SDK_BASE_URL="+e.base, "SDK_APP_KEY="+e.demo.AppKey)
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
}
