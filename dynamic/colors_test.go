package dynamic_test

import (
	"strings"
	"testing"
)

// GET /v1/highlights/recent-colors and PUT /v1/highlights, as the live
// clients call them (live-routes.md).
func TestRecentColorsAndRecolour(t *testing.T) {
	e := newEnv(t)
	colors := func() string {
		r := e.do(req{method: "GET", path: "/v1/highlights/recent-colors", user: userID})
		if r.status != 200 {
			t.Fatalf("recent colours: %d %s", r.status, r.body)
		}
		return strings.TrimSpace(string(r.body))
	}
	if r := e.do(req{method: "GET", path: "/v1/highlights/recent-colors", user: userID}); r.status != 403 {
		t.Errorf("without the grant: %d, want 403", r.status)
	}
	e.grant(userID, appID)
	const defaults = `{"color":"fde68a"},{"color":"bbf7d0"},{"color":"bfdbfe"},{"color":"fbcfe8"},{"color":"fed7aa"}`
	if got, want := colors(), `{"data":[`+defaults+`]}`; got != want {
		t.Errorf("no highlights: %s, want %s", got, want)
	}
	if r := e.do(req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.16", "112233", rid(1))}); r.status != 201 {
		t.Fatalf("post: %d %s", r.status, r.body)
	}
	e.clock.Add(1)
	// PUT recolours (200 with the highlight), and says 200 again for the
	// same colour: it is idempotent.
	for i, want := range []int{200, 200} {
		r := e.do(req{method: "PUT", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.16", "bfdbfe", rid(2+i))})
		if r.status != want || string(r.body) != `{"bible_id":9001,"passage_id":"JHN.3.16","color":"bfdbfe"}` {
			t.Errorf("put %d: %d %s", i, r.status, r.body)
		}
	}
	if r := e.do(req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "GEN.1.1", "445566", rid(9))}); r.status != 201 {
		t.Fatalf("post: %d %s", r.status, r.body)
	}
	got := colors()
	if !strings.HasPrefix(got, `{"data":[{"color":"445566"},{"color":"bfdbfe"},{"color":"fde68a"}`) ||
		strings.Count(got, "bfdbfe") != 1 || strings.Contains(got, "112233") {
		t.Errorf("after highlighting: %s", got)
	}
}
