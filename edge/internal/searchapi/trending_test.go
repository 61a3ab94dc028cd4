package searchapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/bibleplatform/platform/trending"
	"github.com/bibleplatform/platform/wire"
)

// TestReportInParts: a large batch goes to dynamic in parts of at most
// reportPart phrases, with the edge token; a part that fails is kept, with
// the parts after it, for the next report.
func TestReportInParts(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	failOn := 2
	dyn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(wire.HeaderEdgeToken) != "secret" || r.URL.Path != internalSearchQueries {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		var b trending.Batch
		if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		sizes = append(sizes, len(b.Queries))
		if len(sizes) == failOn {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer dyn.Close()
	tr := NewTrends(TrendsConfig{Log: slog.New(slog.DiscardHandler), DynamicURL: dyn.URL, EdgeToken: "secret", Timeout: 5 * time.Second})
	for i := range 2500 {
		tr.count("en", fmt.Sprint("phrase ", i), "app", netip.MustParseAddr("192.0.2.1"), 1)
	}
	if err := tr.Report(context.Background()); err == nil {
		t.Fatal("the failed part was not reported as an error")
	}
	if fmt.Sprint(sizes) != "[1000 1000]" {
		t.Errorf("parts sent %v, want [1000 1000] (the second failed)", sizes)
	}
	if err := tr.Report(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sizes) != "[1000 1000 1000 500]" {
		t.Errorf("parts sent %v, want the 1500 kept sent next time", sizes)
	}
	if b := tr.counter.Take(); b != nil {
		t.Errorf("%d phrases left after a good report", len(b.Queries))
	}
}
