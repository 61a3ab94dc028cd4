package dynamic_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/edge"
)

func TestUsageRoute(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	day := e.clock.Now().UTC().Format(time.DateOnly)
	ok := fmt.Sprintf(`{"edge":"edge-a","seq":1,"counts":[{"app":%q,"bible":9001,"day":%q,"requests":3}]}`, appID, day)
	if r := e.do(req{method: "POST", path: "/internal/usage", body: ok, edge: "-"}); r.status != 401 {
		t.Errorf("without the edge token: %d", r.status)
	}
	old := e.clock.Now().AddDate(0, 0, -8).UTC().Format(time.DateOnly)
	for body, loc := range map[string]string{
		`{"edge":"","seq":1,"counts":[]}`:    "edge",
		`{"edge":"a b","seq":1,"counts":[]}`: "edge",
		`{"edge":"a","seq":0,"counts":[]}`:   "seq",
		`{"edge":"a","seq":1,"counts":[{"app":"x","bible":1,"day":"` + day + `","requests":1}]}`:              "app",
		`{"edge":"a","seq":1,"counts":[{"app":"` + appID + `","bible":-1,"day":"` + day + `","requests":1}]}`: "bible",
		`{"edge":"a","seq":1,"counts":[{"app":"` + appID + `","bible":1,"day":"` + old + `","requests":1}]}`:  "day",
		`{"edge":"a","seq":1,"counts":[{"app":"` + appID + `","bible":1,"day":"26/11/2026","requests":1}]}`:   "day",
		`{"edge":"a","seq":1,"counts":[{"app":"` + appID + `","bible":1,"day":"` + day + `","requests":0}]}`:  "requests",
		`{"edge":"a","seq":1,"counts":[],"extra":1}`:                                                          "",
		`not json`: "",
	} {
		wantValidation(t, e, "/internal/usage", body, loc)
	}
	// The same batch twice (an edge whose answer was lost sends it again)
	// counts once.
	for range 2 {
		if r := e.do(req{method: "POST", path: "/internal/usage", body: ok}); r.status != 204 {
			t.Fatalf("a good batch: %d %s", r.status, r.body)
		}
	}
	got, err := e.db.AppUsage(ctx, appID, e.clock.Now().AddDate(0, 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Requests != 3 || got[0].BibleID != 9001 {
		t.Errorf("usage after a batch sent twice: %+v, want 3 requests of 9001", got)
	}
}

// TestUsageTwoEdges: requests of three apps through two edges, each
// running its reporting loop, are counted in PostgreSQL per app and Bible
// within one report interval of the last request, and only once.
func TestUsageTwoEdges(t *testing.T) {
	ctx := context.Background()
	env := newTrendingEnv(t)
	const every = 500 * time.Millisecond
	var edges []*testEdge
	for range 2 {
		e := startEdge(t, env.store, env.dyn.URL(), func(cfg *edge.Config) { cfg.UsageReportInterval = every })
		runUsage(t, e)
		edges = append(edges, e)
	}
	type key struct {
		app   int
		bible int32
	}
	want := map[key]int64{}
	send := func(e *testEdge, app int, path string, bible int32, n int) {
		t.Helper()
		for range n {
			r := throughEdge(t, http.DefaultClient, "GET", e.url+path, env.keys[app], "", "")
			if r.status != 200 && r.status != 403 {
				t.Fatalf("GET %s: %d %s", path, r.status, r.body)
			}
			want[key{app, bible}]++
		}
	}
	send(edges[0], 0, "/v1/bibles/9001/passages/JHN.3.16", 9001, 7)
	send(edges[1], 0, "/v1/bibles/9001/passages/JHN.3.17", 9001, 5)
	send(edges[1], 0, "/v1/bibles/9002/books", 9002, 2)
	send(edges[0], 1, "/v1/bibles/9001/books/JHN", 9001, 3)
	send(edges[1], 1, "/v1/bibles?language_ranges[]=en", 0, 4)
	send(edges[0], 2, "/v1/languages?language_ranges[]=*", 0, 1)
	// Refused before an app is known: counted nowhere.
	throughEdge(t, http.DefaultClient, "GET", edges[0].url+"/v1/bibles/9001/passages/JHN.3.16", "bpk_unknown", "", "")
	last := time.Now()

	counted := func() map[key]int64 {
		got := map[key]int64{}
		for i := range env.keys {
			days, err := env.db.AppUsage(ctx, fmt.Sprintf("5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9b0%d", i), last.AddDate(0, 0, -1))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range days {
				got[key{i, d.BibleID}] += d.Requests
			}
		}
		return got
	}
	same := func(a, b map[key]int64) bool { return fmt.Sprint(a) == fmt.Sprint(b) }
	var got map[key]int64
	for got = counted(); !same(got, want); got = counted() {
		// One interval, and the time a report and its transaction take.
		if time.Since(last) > every+time.Second {
			t.Fatalf("%v after the last request: counted %v, want %v", time.Since(last), got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("counted %d keys %v after the last request", len(got), time.Since(last).Round(time.Millisecond))
	// Later reports add nothing twice.
	time.Sleep(3 * every)
	if got := counted(); !same(got, want) {
		t.Errorf("after more reports: counted %v, want %v", got, want)
	}
	var m strings.Builder
	for _, e := range edges {
		r := throughEdge(t, http.DefaultClient, "GET", e.url+"/metrics", "", "", "")
		m.Write(r.body)
	}
	if !strings.Contains(m.String(), "edge_usage_dropped_total 0") {
		t.Errorf("metrics show usage dropped:\n%s", m.String())
	}
}

// wantValidation posts body to path and wants a 422 whose first detail's
// location ends in loc ("" when any will do).
func wantValidation(t *testing.T, e *env, path, body, loc string) {
	t.Helper()
	r := e.do(req{method: "POST", path: path, body: body})
	if r.status != 422 {
		t.Errorf("%s: %d, want 422", body, r.status)
		return
	}
	var v struct {
		Detail []struct{ Loc []any }
	}
	r.json(t, &v)
	if loc != "" && fmt.Sprint(v.Detail[0].Loc[len(v.Detail[0].Loc)-1]) != loc {
		t.Errorf("%s: loc %v, want %s", body, v.Detail[0].Loc, loc)
	}
}

// runUsage runs an edge's usage reporting loop until the test ends, and
// waits for its last report.
func runUsage(t *testing.T, e *testEdge) {
	loop, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.srv.RunUsage(loop); close(done) }()
	t.Cleanup(func() { stop(); <-done })
}
