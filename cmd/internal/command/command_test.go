package command

import (
	"bytes"
	"log/slog"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

type testCLI struct {
	Logging `embed:"" envprefix:"TEST_"`
	Build   struct {
		Content string `help:"Content directory." required:""`
	} `cmd:"" help:"Build."`
}

// A mistyped flag prints the error with kong's suggestion first, and one
// line that says where the usage is, not the usage itself.
func TestUsageErrorFirst(t *testing.T) {
	var c testCLI
	p, err := kong.New(&c, kong.Name("publish"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Parse([]string{"build", "--contnet", "x"})
	if err == nil {
		t.Fatal("no error for --contnet")
	}
	var out bytes.Buffer
	if code := usageError(&out, "publish", err); code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "publish: error: unknown flag --contnet") ||
		!strings.Contains(lines[0], `did you mean "--content"?`) || lines[1] != `Run "publish build --help" for usage.` {
		t.Errorf("got:\n%s", out.String())
	}
}

// --log-format text and json, and the level, from flags or environment.
func TestLogging(t *testing.T) {
	t.Setenv("TEST_LOG_FORMAT", "text")
	var c testCLI
	p, err := kong.New(&c, kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse([]string{"--log-level", "warn", "build", "--content", "x"}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	log := NewLogger(&out, c.logging())
	log.Info("hidden")
	log.Warn("shown", "k", "v")
	if got := out.String(); strings.Contains(got, "hidden") || !strings.Contains(got, "level=WARN msg=shown k=v") {
		t.Errorf("text log: %q", got)
	}
	out.Reset()
	NewLogger(&out, &Logging{LogLevel: slog.LevelInfo, LogFormat: "json"}).Info("x", "k", 1)
	if got := out.String(); !strings.HasPrefix(got, `{"time":`) || !strings.Contains(got, `"k":1`) {
		t.Errorf("json log: %q", got)
	}
	if _, err := p.Parse([]string{"--log-format", "xml", "build", "--content", "x"}); err == nil {
		t.Error("--log-format xml accepted")
	}
}

// SetMemoryLimit sets the runtime's soft limit, unless GOMEMLIMIT does.
func TestSetMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	t.Setenv("GOMEMLIMIT", "")
	if !SetMemoryLimit(3<<30) || debug.SetMemoryLimit(-1) != 3<<30 {
		t.Errorf("limit %d; want %d", debug.SetMemoryLimit(-1), int64(3<<30))
	}
	debug.SetMemoryLimit(old)
	t.Setenv("GOMEMLIMIT", "2GiB")
	if SetMemoryLimit(3<<30) || debug.SetMemoryLimit(-1) != old {
		t.Errorf("limit %d with GOMEMLIMIT set; want it left at %d", debug.SetMemoryLimit(-1), old)
	}
}

// A credential a library logs, even inside a group it builds with
// LogValue, reaches the log only as a digest; other fields are untouched.
func TestLoggerRedactsCredentials(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		var buf bytes.Buffer
		log := NewLogger(&buf, &Logging{LogLevel: slog.LevelInfo, LogFormat: format})
		log.Warn("auth request: not redirecting", slog.Group("auth_request",
			slog.String("client_id", "demo_0b5133d9473121c7e1abb248248e8fcd"),
			slog.String("redirect_uri", "http://127.0.0.1:1/cb")),
			"refresh_token", "rt-secret", "password", "hunter2-but-longer")
		out := buf.String()
		for _, secret := range []string{"demo_0b5133d9473121c7e1abb248248e8fcd", "rt-secret", "hunter2-but-longer"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s: the log holds %q:\n%s", format, secret, out)
			}
		}
		if !strings.Contains(out, "http://127.0.0.1:1/cb") || !strings.Contains(out, "sha256:") {
			t.Errorf("%s: want the redirect URI kept and digests in place of credentials:\n%s", format, out)
		}
	}
}
