package edge

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestIDOnlyAllowance: requests that name an app only by its public id
// have their own allowance per client address, and a flood of them never
// costs the app's keyed requests (issue: 400 quick requests with the id
// alone put the app's real users into 429).
func TestIDOnlyAllowance(t *testing.T) {
	ts := httptest.NewServer(&upstream{})
	defer ts.Close()
	now := time.Unix(1_800_000_000, 0)
	e := newTestEdge(t, func(c *Config) {
		c.DynamicURL = ts.URL
		c.Now = func() time.Time { return now } // no refill during the test
	})
	const slowApp = "0b6f7c1e-0000-4000-8000-000000000004" // 1/s, burst 2
	allowed, refused := 0, 0
	for range 400 {
		resp, body := e.do(t, "GET", "/data-exchange?token=x&x-svc-app-id="+slowApp)
		switch resp.StatusCode {
		case 429:
			refused++
			if resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "only by its id") {
				t.Fatalf("id-only 429 without Retry-After or its own message: %v %s", resp.Header, body)
			}
		case 201:
			allowed++
		default:
			t.Fatalf("id-only request: %d %s", resp.StatusCode, body)
		}
	}
	if allowed != DefaultIDOnlyRate.Burst || refused != 400-DefaultIDOnlyRate.Burst {
		t.Errorf("id-only: %d allowed, %d refused; want the address's burst of %d allowed", allowed, refused, DefaultIDOnlyRate.Burst)
	}
	for i := range 2 {
		if resp, body := e.do(t, "POST", "/v1/highlights", "X-SVC-App-Key: "+keySlow); resp.StatusCode != 201 {
			t.Fatalf("keyed request %d after the id-only flood: %d %s, want it forwarded", i+1, resp.StatusCode, body)
		}
	}
}
