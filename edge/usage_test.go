package edge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/bibleplatform/platform/wire"
)

// usageSink is a dynamic that takes usage reports and keeps them.
type usageSink struct {
	mu      sync.Mutex
	batches []wire.UsageBatch
}

func (u *usageSink) serve(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != wire.UsagePath || r.Header.Get(wire.HeaderEdgeToken) != "edge-secret" {
			http.NotFound(w, r)
			return
		}
		var b wire.UsageBatch
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &b); err != nil {
			t.Errorf("usage report %s: %v", body, err)
		}
		u.mu.Lock()
		u.batches = append(u.batches, b)
		u.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Requests admitted for an app are counted under the Bible their path
// names; made-up Bible ids and reads refused by the licences count under
// no Bible, and requests refused before an app is known not at all.
func TestUsageCounted(t *testing.T) {
	var sink usageSink
	url := sink.serve(t)
	e := newTestEdge(t, func(c *Config) { c.DynamicURL, c.EdgeToken = url, "edge-secret" })
	key := "X-SVC-App-Key: " + keyDemo
	for _, r := range []struct {
		target  string
		headers []string
		status  int
	}{
		{"/v1/bibles/9001/passages/JHN.3.16", []string{key}, 200},
		{"/v1/bibles/9001/books", []string{key}, 200},
		{"/v1/bibles/9002/passages/JHN.3.16", []string{key}, 200},
		{"/v1/bibles/9001/passages/JHN.3.16", nil, 401},
		{"/v1/bibles/9001/passages/JHN.3.16", []string{"X-SVC-App-Key: nope"}, 401},
		{"/v1/bibles/777777/books", []string{key}, 404},
		{"/v1/bibles/9002/passages/JHN.3.16", []string{"X-SVC-App-Key: " + keyUnlicensed}, 403},
		{"/v1/bibles?language_ranges[]=en", []string{key}, 200},
		{"/healthz", nil, 200},
	} {
		if resp, body := e.do(t, "GET", r.target, r.headers...); resp.StatusCode != r.status {
			t.Fatalf("GET %s: %d, want %d: %s", r.target, resp.StatusCode, r.status, body)
		}
	}
	if err := e.srv.ReportUsage(context.Background()); err != nil {
		t.Fatal(err)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.batches) != 1 {
		t.Fatalf("%d batches, want 1", len(sink.batches))
	}
	got := sink.batches[0].Counts
	slices.SortFunc(got, func(a, b wire.UsageCount) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	day := time.Now().UTC().Format(time.DateOnly)
	want := []wire.UsageCount{
		{App: appDemo, Bible: 0, Day: day, Requests: 2},
		{App: appDemo, Bible: 9001, Day: day, Requests: 2},
		{App: appDemo, Bible: 9002, Day: day, Requests: 1},
		{App: "0b6f7c1e-0000-4000-8000-000000000002", Bible: 0, Day: day, Requests: 1}, // refused by its licences
	}
	if !slices.Equal(got, want) {
		t.Errorf("counts %+v\nwant %+v", got, want)
	}
	if b := sink.batches[0]; b.Seq != 1 || b.Edge == "" {
		t.Errorf("batch edge %q seq %d, want a name and 1", b.Edge, b.Seq)
	}
	var m strings.Builder
	e.srv.writeMetrics(&m)
	if !strings.Contains(m.String(), "edge_usage_reported_total 6\n") {
		t.Errorf("metrics lack edge_usage_reported_total 6:\n%s", m.String())
	}
}

// Counting keeps the hot path free of allocations.
func TestUsageHotPathAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	var sink usageSink
	e := newTestEdge(t, func(c *Config) { c.DynamicURL, c.EdgeToken = sink.serve(t), "edge-secret" })
	var ctx fasthttp.RequestCtx
	hit := func() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI("/v1/bibles/9001/passages/JHN.3.16")
		ctx.Request.Header.SetMethod("GET")
		ctx.Request.Header.Set("X-SVC-App-Key", keyDemo)
		e.srv.Handler(&ctx)
	}
	hit()
	if ctx.Response.StatusCode() != 200 {
		t.Fatalf("status %d", ctx.Response.StatusCode())
	}
	least := testing.AllocsPerRun(100, hit)
	for range 4 {
		least = min(least, testing.AllocsPerRun(100, hit))
	}
	if least != 0 {
		t.Errorf("%v allocations per counted request, want 0", least)
	}
	if got := e.srv.usage.Counter.Take(); len(got) != 1 || got[0].Requests < 500 {
		t.Errorf("counted %+v, want one key with every request", got)
	}
}
