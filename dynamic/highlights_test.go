package dynamic_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func post(bibleID any, passage, color, requestID string) string {
	return fmt.Sprintf(`{"request_id":%q,"highlight":{"bible_id":%v,"passage_id":%q,"color":%q}}`,
		requestID, bibleID, passage, color)
}

func rid(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

func TestHighlightsLifecycle(t *testing.T) {
	e := newEnv(t)
	e.grant(userID, appID)
	steps := []struct {
		name   string
		r      req
		status int
		body   string // exact JSON body; "" for none
	}{
		{"empty chapter is 204", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3", user: userID}, 204, ""},
		{"create one verse", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.16", "ffcc00", rid(1))},
			201, `{"bible_id":9001,"passage_id":"JHN.3.16","color":"ffcc00"}`},
		{"same colour again is 409", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.16", "ffcc00", rid(2))},
			409, `{"message":"The user already has this highlight."}`},
		{"retry of the first is its answer", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.16", "ffcc00", rid(1))},
			201, `{"bible_id":9001,"passage_id":"JHN.3.16","color":"ffcc00"}`},
		{"the same id with the JSON spelt otherwise is still a retry", req{method: "POST", path: "/v1/highlights", user: userID,
			body: `{"highlight":{"color":"ffcc00","passage_id":"JHN.3.16","bible_id":9001},"request_id":"` + rid(1) + `"}`},
			201, `{"bible_id":9001,"passage_id":"JHN.3.16","color":"ffcc00"}`},
		{"the same id with another highlight is refused", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.17", "ffcc00", rid(1))},
			422, `{"detail":[{"loc":["body","request_id"],"msg":"request_id was already used for a different highlight","type":"value_error"}]}`},
		{"nor was it written", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3.17", user: userID}, 204, ""},
		{"another colour recolours", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.16", "00ff00", rid(3))},
			201, `{"bible_id":9001,"passage_id":"JHN.3.16","color":"00ff00"}`},
		{"range across chapters", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.18-4.1", "0000ff", rid(4))},
			201, `{"bible_id":9001,"passage_id":"JHN.3.18","color":"0000ff"}`},
		{"chapter lists verses", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3", user: userID}, 200,
			`{"data":[{"bible_id":9001,"passage_id":"JHN.3.16","color":"00ff00"},{"bible_id":9001,"passage_id":"JHN.3.18","color":"0000ff"}]}`},
		{"range read", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3.17-4.2", user: userID}, 200,
			`{"data":[{"bible_id":9001,"passage_id":"JHN.3.18","color":"0000ff"},{"bible_id":9001,"passage_id":"JHN.4.1","color":"0000ff"}]}`},
		{"other user sees nothing", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3", user: otherUser}, 403, ""},
		{"other Bible is separate", req{method: "GET", path: "/v1/highlights?bible_id=9002&passage_id=JHN.3", user: userID}, 204, ""},
		{"delete a verse", req{method: "DELETE", path: "/v1/highlights/JHN.3.16?bible_id=9001", user: userID}, 204, ""},
		{"delete again is still 204", req{method: "DELETE", path: "/v1/highlights/JHN.3.16?bible_id=9001", user: userID}, 204, ""},
		{"after verse delete", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3.16", user: userID}, 204, ""},
		{"delete a whole chapter", req{method: "DELETE", path: "/v1/highlights/JHN.3?bible_id=9001", user: userID}, 204, ""},
		{"chapter 4 kept", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.4", user: userID}, 200,
			`{"data":[{"bible_id":9001,"passage_id":"JHN.4.1","color":"0000ff"}]}`},
		{"delete a range", req{method: "DELETE", path: "/v1/highlights/JHN.3.18-4.2?bible_id=9001", user: userID}, 204, ""},
		{"all gone", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.4.1", user: userID}, 204, ""},
	}
	for _, s := range steps {
		got := e.do(s.r)
		if got.status != s.status {
			t.Fatalf("%s: status %d (%s), want %d", s.name, got.status, got.body, s.status)
		}
		if s.body != "" && strings.TrimSpace(string(got.body)) != s.body {
			t.Errorf("%s: body %s, want %s", s.name, got.body, s.body)
		}
		if s.status == 204 && (len(got.body) != 0 || got.header.Get("Content-Type") != "") {
			t.Errorf("%s: 204 with body %q and Content-Type %q", s.name, got.body, got.header.Get("Content-Type"))
		}
	}
}

func TestHighlightErrors(t *testing.T) {
	e := newEnv(t)
	e.grant(userID, appID)
	tests := []struct {
		name   string
		r      req
		status int
		loc    string // for 422: the first entry's loc, joined by "."
		msg    string // when set: the message (or the first entry's msg)
	}{
		{"no bearer token", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3"}, 401, "", ""},
		{"bad bearer token", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3", bearer: "Bearer not.a.jwt"}, 401, "", ""},
		{"no grant for this app", req{method: "GET", app: otherApp, path: "/v1/highlights?bible_id=9001&passage_id=JHN.3", user: userID}, 403, "", "The user has not granted the highlights permission to this app."},
		{"no grant post", req{method: "POST", app: otherApp, path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.16", "ffcc00", rid(1))}, 403, "", ""},
		{"no grant delete", req{method: "DELETE", app: otherApp, path: "/v1/highlights/JHN.3?bible_id=9001", user: userID}, 403, "", ""},
		{"missing bible_id", req{method: "GET", path: "/v1/highlights?passage_id=JHN.3", user: userID}, 422, "query.bible_id", ""},
		{"bible_id not a number", req{method: "GET", path: "/v1/highlights?bible_id=abc&passage_id=JHN.3", user: userID}, 422, "query.bible_id", ""},
		{"missing passage_id", req{method: "GET", path: "/v1/highlights?bible_id=9001", user: userID}, 422, "query.passage_id", ""},
		{"malformed passage_id", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN", user: userID}, 422, "query.passage_id", `invalid passage id "JHN": want BOOK.CHAPTER[.VERSE]`},
		{"unknown Bible", req{method: "GET", path: "/v1/highlights?bible_id=1234&passage_id=JHN.3", user: userID}, 404, "", "Bible 1234 is not published."},
		{"unknown book", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=REV.1", user: userID}, 404, "", "Book REV is not in this Bible."},
		{"unknown chapter", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.9", user: userID}, 404, "", "Chapter JHN.9 is not in this Bible."},
		{"unknown verse", req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3.99", user: userID}, 404, "", "Verse JHN.3.99 is not in this Bible."},
		{"post unknown verse", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.99", "ffcc00", rid(1))}, 404, "", ""},
		{"post a chapter", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3", "ffcc00", rid(1))}, 400, "", ""},
		{"post an intro", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.INTRO", "ffcc00", rid(1))}, 400, "", ""},
		{"backwards range", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.18-16", "ffcc00", rid(1))}, 400, "", "The passage range JHN.3.18-16 ends before it starts."},
		{"upper-case colour", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.16", "FFCC00", rid(1))}, 422, "body.highlight.color", ""},
		{"bad request_id", req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, "JHN.3.16", "ffcc00", "nope")}, 422, "body.request_id", ""},
		{"bible_id a string", req{method: "POST", path: "/v1/highlights", user: userID, body: post(`"x"`, "JHN.3.16", "ffcc00", rid(1))}, 422, "body.highlight.bible_id", ""},
		{"no highlight", req{method: "POST", path: "/v1/highlights", user: userID, body: `{"request_id":"` + rid(1) + `"}`}, 422, "body.highlight", ""},
		// The decoder's Go type (struct { BibleID json.RawMessage … }) is
		// said in JSON's words.
		{"highlight not an object", req{method: "POST", path: "/v1/highlights", user: userID, body: `{"request_id":"` + rid(1) + `","highlight":"x"}`}, 422, "body.highlight", "Input should be a valid object"},
		{"not JSON", req{method: "POST", path: "/v1/highlights", user: userID, body: `{nope`}, 422, "body", ""},
		{"delete without bible_id", req{method: "DELETE", path: "/v1/highlights/JHN.3", user: userID}, 422, "query.bible_id", ""},
		{"delete unknown verse", req{method: "DELETE", path: "/v1/highlights/JHN.3.99?bible_id=9001", user: userID}, 404, "", ""},
		{"wrong method", req{method: "PATCH", path: "/v1/highlights", user: userID}, 405, "", ""},
	}
	for _, tt := range tests {
		got := e.do(tt.r)
		if got.status != tt.status {
			t.Errorf("%s: status %d (%s), want %d", tt.name, got.status, got.body, tt.status)
			continue
		}
		if tt.loc != "" {
			var v struct {
				Detail []struct {
					Loc []string `json:"loc"`
					Msg string   `json:"msg"`
				} `json:"detail"`
			}
			got.json(t, &v)
			if len(v.Detail) == 0 || strings.Join(v.Detail[0].Loc, ".") != tt.loc {
				t.Errorf("%s: detail %s, want loc %s", tt.name, got.body, tt.loc)
			}
		}
		if (tt.status == 403 || tt.status == 404 || tt.status == 400) && !strings.Contains(string(got.body), `"message"`) {
			t.Errorf("%s: body %s has no message", tt.name, got.body)
		}
		if tt.msg != "" {
			var v struct {
				Message string `json:"message"`
				Detail  []struct {
					Msg string `json:"msg"`
				} `json:"detail"`
			}
			got.json(t, &v)
			if len(v.Detail) > 0 {
				v.Message = v.Detail[0].Msg
			}
			if v.Message != tt.msg {
				t.Errorf("%s: message %q, want %q", tt.name, v.Message, tt.msg)
			}
		}
		for _, leak := range []string{"struct", "json.", "SQLSTATE", ".go:", ": not found", "bible."} {
			if strings.Contains(string(got.body), leak) {
				t.Errorf("%s: body %s shows %q", tt.name, got.body, leak)
			}
		}
	}
}

// Many concurrent creations of the same highlight leave one row: one 201,
// the rest 409 (distinct request ids) or the first answer (same id).
func TestConcurrentSameHighlight(t *testing.T) {
	e := newEnv(t)
	e.grant(userID, appID)
	const n = 50
	for _, sameID := range []bool{false, true} {
		verse := map[bool]string{false: "GEN.1.1", true: "GEN.1.2"}[sameID]
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := rid(1000 + i)
				if sameID {
					id = rid(999)
				}
				statuses[i] = e.do(req{method: "POST", path: "/v1/highlights", user: userID, body: post(9001, verse, "abcdef", id)}).status
			}()
		}
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		want := map[int]int{201: 1, 409: n - 1}
		if sameID {
			want = map[int]int{201: n}
		}
		if fmt.Sprint(count) != fmt.Sprint(want) {
			t.Errorf("same request id %v: statuses %v, want %v", sameID, count, want)
		}
		got := e.do(req{method: "GET", path: "/v1/highlights?bible_id=9001&passage_id=" + verse, user: userID})
		if got.status != http.StatusOK || strings.Count(string(got.body), "passage_id") != 1 {
			t.Errorf("same request id %v: after the race got %d %s, want one highlight", sameID, got.status, got.body)
		}
	}
}

// Unknown paths and methods answer in the spec's JSON shape, and a body
// over the 64 KiB limit is 413 with {message}, not a 422 decode error.
func TestJSONErrorsAndBodyLimit(t *testing.T) {
	e := newEnv(t)
	e.grant(userID, appID)
	for _, c := range []struct {
		r      req
		status int
		allow  string
	}{
		{req{method: "GET", path: "/v1/highlights/JHN.3.16/x?bible_id=9001", user: userID}, 404, ""},
		{req{method: "GET", path: "/v1/apps/" + appID + "/nothing", user: userID}, 404, ""},
		{req{method: "GET", path: "/data-exchange/nothing"}, 404, ""},
		{req{method: "PATCH", path: "/v1/highlights", user: userID}, 405, "GET, HEAD, POST, PUT"},
		{req{method: "POST", path: "/v1/highlights", user: userID,
			body: `{"pad":"` + strings.Repeat("x", 100<<10) + `"}`}, 413, ""},
		{req{method: "POST", path: "/data-exchange/token", user: userID,
			body: `{"pad":"` + strings.Repeat("x", 100<<10) + `"}`}, 413, ""},
	} {
		r := c.r
		got := e.do(r)
		var v struct{ Message string }
		err := json.Unmarshal(got.body, &v)
		if got.status != c.status || err != nil || v.Message == "" || !strings.HasPrefix(got.header.Get("Content-Type"), "application/json") ||
			got.header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d %s %q (Allow %q), want %d with a JSON message", r.method, r.path[:min(len(r.path), 60)],
				got.status, got.header.Get("Content-Type"), got.body[:min(len(got.body), 80)], got.header.Get("Allow"), c.status)
		}
	}
}
