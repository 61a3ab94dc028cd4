package respond

import (
	"bufio"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestRequestField checks that a prepared name reads what fasthttp's Peek
// reads, from requests read off a connection with the names normalised (as
// the edge's server reads them) and as sent.
func TestRequestField(t *testing.T) {
	f := NewRequestField("X-SVC-App-Key")
	for _, tc := range []struct {
		fields   string
		asSent   bool // the server does not normalise names
		want     string
		wantAsIs bool // Peek of the name as given finds want too
	}{
		{"X-SVC-App-Key: k1\r\n", false, "k1", true},
		{"x-svc-app-key: k2\r\n", false, "k2", true},
		{"X-Svc-App-Key: k3\r\nX-SVC-App-Key: k4\r\n", false, "k3", true},
		{"Accept: */*\r\n", false, "", true},
		{"X-SVC-App-Key:\r\n", false, "", true},
		{"X-SVC-App-Key: k5\r\n", true, "k5", true},
		{"x-svc-app-key: k6\r\n", true, "", true},
		// Stored as sent, under the normalised spelling: found, where
		// Peek of the name as given misses a name that differs in case.
		{"X-Svc-App-Key: k7\r\n", true, "k7", false},
	} {
		var h fasthttp.RequestHeader
		if tc.asSent {
			h.DisableNormalizing()
		}
		raw := "GET / HTTP/1.1\r\nHost: h\r\n" + tc.fields + "\r\n"
		if err := h.Read(bufio.NewReader(strings.NewReader(raw))); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if got := string(f.Peek(&h)); got != tc.want {
			t.Errorf("%q (as sent %v): got %q, want %q", tc.fields, tc.asSent, got, tc.want)
		}
		if got := string(h.Peek("X-SVC-App-Key")); (got == tc.want) != tc.wantAsIs {
			t.Errorf("%q (as sent %v): Peek %q, prepared %q", tc.fields, tc.asSent, got, tc.want)
		}
	}
}

func TestIsFieldName(t *testing.T) {
	for _, tc := range []struct {
		k, canonical string
		want         bool
	}{
		{"Accept-Encoding", "Accept-Encoding", true},
		{"accept-encoding", "Accept-Encoding", true},
		{"ACCEPT-ENCODING", "Accept-Encoding", true},
		{"Accept-Encodinh", "Accept-Encoding", false},
		{"Accept-Encodings", "Accept-Encoding", false},
		{"If-Range", "If-Match", false},
		{"", "Range", false},
		{"R@nge", "Range", false}, // '@' is not 'a' folded
	} {
		if got := IsFieldName([]byte(tc.k), tc.canonical); got != tc.want {
			t.Errorf("IsFieldName(%q, %q) = %v, want %v", tc.k, tc.canonical, got, tc.want)
		}
	}
}
