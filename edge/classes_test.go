package edge

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// Each catalogue route family, and the developer surface, has its own
// class in the access log and in /metrics: they are composed on request
// and cost more than the Bibles routes, so their share must show.
func TestRouteClasses(t *testing.T) {
	var buf syncBuffer
	e := newTestEdge(t, func(c *Config) { c.AccessLog = slog.New(slog.NewJSONHandler(&buf, nil)) })
	cases := []struct {
		path, class string
	}{
		{"/v1/bibles", "bibles"},
		{"/v1/bibles/9001", "bible"},
		{"/v1/languages", "languages"},
		{"/v1/languages/en", "languages"},
		{"/v1/organizations", "organizations"},
		{"/v1/fonts", "fonts"},
		{"/v1/fonts/files/x.woff2", "font_files"},
		{"/v1/verse_of_the_days", "votd"},
		{"/v1/verse-of-the-days/60", "votd"},
		{"/v1/openapi.json", "dev"},
		{"/", "dev"},
		{"/v1/languages/en/x", "other"},
		{"/nowhere", "other"},
	}
	for _, c := range cases {
		e.do(t, "GET", c.path, demo)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("%d access-log lines, want %d:\n%s", len(lines), len(cases), buf.String())
	}
	for i, c := range cases {
		var l struct{ Path, Class string }
		if err := json.Unmarshal([]byte(lines[i]), &l); err != nil {
			t.Fatal(err)
		}
		if l.Path != c.path || l.Class != c.class {
			t.Errorf("GET %s: class %q (path %q), want %q", c.path, l.Class, l.Path, c.class)
		}
	}
	_, metrics := e.do(t, "GET", "/metrics")
	for _, class := range []string{"bibles", "languages", "organizations", "fonts", "votd", "dev"} {
		if !bytes.Contains(metrics, []byte(`edge_requests_total{class="`+class+`"`)) {
			t.Errorf("/metrics counts no request of class %q", class)
		}
	}
}
