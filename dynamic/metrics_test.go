package dynamic_test

import (
	"context"
	"strings"
	"testing"
)

// /metrics needs no edge token and shows the request histograms by route
// and status, the build followed, and the Go runtime and process series.
func TestMetrics(t *testing.T) {
	e := newEnv(t)
	if r := e.do(req{method: "GET", path: "/v1/apps/" + appID}); r.status != 200 {
		t.Fatalf("GET app: %d", r.status)
	}
	build, err := e.store.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := e.do(req{method: "GET", path: "/metrics", edge: "-", app: "-"})
	if r.status != 200 {
		t.Fatalf("/metrics without the edge token: %d %s", r.status, r.body)
	}
	for _, want := range []string{
		`dynamic_request_duration_seconds_bucket{code="200",route="/v1/apps/{app_id}",le="0.005"}`,
		`dynamic_build_info{build="` + build + `"} 1`,
		"go_goroutines ",
		"process_resident_memory_bytes ",
	} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
