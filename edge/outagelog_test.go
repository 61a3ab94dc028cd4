package edge

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/publish"
)

// Requests forwarded to a dynamic that cannot be reached are answered 503
// each, and logged once.
func TestGatewayOutageLoggedOnce(t *testing.T) {
	ts := httptest.NewServer(&upstream{})
	url := ts.URL
	ts.Close()
	var buf syncBuffer
	e := newTestEdge(t, func(c *Config) {
		c.DynamicURL = url
		c.Log = slog.New(slog.NewTextHandler(&buf, nil))
	})
	for range 5 {
		if resp, _ := e.do(t, "GET", "/v1/licenses", demo); resp.StatusCode != 503 {
			t.Fatalf("GET /v1/licenses with dynamic down = %d, want 503", resp.StatusCode)
		}
	}
	if got := strings.Count(buf.String(), "level=WARN"); got != 1 {
		t.Errorf("%d warnings for 5 requests to an unreachable dynamic, want 1:\n%s", got, buf.String())
	}
	if strings.Contains(buf.String(), "level=ERROR") {
		t.Errorf("an unreachable dynamic is logged as an error per request:\n%s", buf.String())
	}
}

// downStore is a store whose current pointer cannot be read.
type downStore struct{ publish.Store }

func (downStore) Current(context.Context) (string, error) {
	return "", errors.New("dial tcp 10.0.0.9:9000: connection refused")
}

// The build watcher polling a store that does not answer warns once, not
// once a poll.
func TestBuildWatcherOutageLoggedOnce(t *testing.T) {
	store, _ := sharedStore(t)
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	srv, err := New(Config{Store: store, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	w := &BuildWatcher{Store: downStore{store}, Server: srv, Interval: 5 * time.Millisecond, Log: log}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	w.Run(ctx)
	if got := strings.Count(buf.String(), "build check failed"); got != 1 {
		t.Errorf("%d warnings in 200 ms of polls every 5 ms, want 1:\n%s", got, buf.String())
	}
}

// An edge that serves another build than its access snapshot names, for
// longer than a publish takes to reach both, is told so (once an
// interval), and told again when they agree.
func TestAccessWatcherBuildMismatch(t *testing.T) {
	store, build := sharedStore(t)
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	srv, err := New(Config{Store: store, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	bw := &BuildWatcher{Store: store, Server: srv, Interval: time.Second, Log: log}
	if err := bw.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	w := &AccessWatcher{Server: srv, Log: log}
	start := time.Now()
	for _, step := range []struct {
		build string
		after time.Duration
		warns int // warnings logged so far
	}{
		{build, 0, 0},
		{"another", 0, 0},                                // a publish reaching dynamic first
		{"another", BuildMismatchGrace / 2, 0},           // still within the grace
		{"another", BuildMismatchGrace, 1},               // past it: warned
		{"another", BuildMismatchGrace + time.Second, 1}, // not again within the interval
		{build, BuildMismatchGrace + 2*time.Second, 1},
	} {
		w.build = step.build
		w.checkBuild(start.Add(step.after))
		if got := strings.Count(buf.String(), "serves another build than dynamic follows"); got != step.warns {
			t.Fatalf("snapshot build %q after %v: %d warnings, want %d:\n%s", step.build, step.after, got, step.warns, buf.String())
		}
	}
	if !strings.Contains(buf.String(), "dynamic_build=another") || !strings.Contains(buf.String(), "follow the same build again") {
		t.Errorf("the warning names both builds and its end is logged:\n%s", buf.String())
	}
}
