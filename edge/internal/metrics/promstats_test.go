package metrics

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// Requests recorded in any shard come out of /metrics summed, as
// cumulative buckets with the sum and count Prometheus expects.
func TestRequestStats(t *testing.T) {
	var m Requests
	l := NewLatency("edge", &m)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, d := range []time.Duration{40 * time.Microsecond, 200 * time.Microsecond, 40 * time.Second} {
				m.Record(ClassPassage, 200, 100, int64(d))
			}
		})
	}
	wg.Wait()
	m.Record(ClassVerse, 404, 10, int64(time.Millisecond))
	if n := m.Requests(ClassPassage, StatusIndex(200)); n != 12 {
		t.Errorf("passage 200: %d requests, want 12", n)
	}
	if n := m.Bytes(ClassPassage); n != 1200 {
		t.Errorf("passage: %d bytes, want 1200", n)
	}
	var buf bytes.Buffer
	if err := l.Write(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`edge_request_duration_seconds_bucket{class="passage",code="200",le="5e-05"} 4`,
		`edge_request_duration_seconds_bucket{class="passage",code="200",le="0.0001"} 4`,
		`edge_request_duration_seconds_bucket{class="passage",code="200",le="0.00025"} 8`,
		`edge_request_duration_seconds_bucket{class="passage",code="200",le="30"} 8`,
		`edge_request_duration_seconds_bucket{class="passage",code="200",le="+Inf"} 12`,
		`edge_request_duration_seconds_sum{class="passage",code="200"} 160.00096`,
		`edge_request_duration_seconds_count{class="passage",code="200"} 12`,
		`edge_request_duration_seconds_bucket{class="verse",code="404",le="0.001"} 1`,
		`edge_request_duration_seconds_bucket{class="verse",code="404",le="0.0005"} 0`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	if strings.Contains(out, `class="chapter"`) {
		t.Errorf("a series without requests shows:\n%s", out)
	}
}

// The counters of many goroutines add up.
func TestHotCounter(t *testing.T) {
	var c HotCounter
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				c.Inc()
			}
		})
	}
	wg.Wait()
	if n := c.Load(); n != 8000 {
		t.Fatalf("%d, want 8000", n)
	}
}

// BenchmarkRecordParallel shows the sharded counters on many cores
// (-cpu 1,2,4,…): per-request cost should stay flat as cores are added.
func BenchmarkRecordParallel(b *testing.B) {
	var m Requests
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Record(ClassPassage, 200, 1000, 60000)
		}
	})
}
