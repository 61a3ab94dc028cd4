package edge

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/represent"
)

// step is one request of a script and what its answer must show. A header
// wanted as "" must be absent; one starting with "~" must contain the rest.
type step struct {
	name    string
	method  string
	path    string
	headers []string
	status  int
	header  map[string]string
	body    []string // substrings of the body
}

func runSteps(t *testing.T, e *testEdge, steps []step) {
	t.Helper()
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			method := s.method
			if method == "" {
				method = "GET"
			}
			resp, body := e.do(t, method, s.path, s.headers...)
			if resp.StatusCode != s.status {
				t.Fatalf("%s %s: status %d, want %d; body %s", method, s.path, resp.StatusCode, s.status, body)
			}
			for k, want := range s.header {
				got, present := resp.Header.Get(k), len(resp.Header.Values(k)) > 0
				switch {
				case want == "" && present:
					t.Errorf("header %s = %q, want absent", k, got)
				case strings.HasPrefix(want, "~") && !strings.Contains(got, want[1:]):
					t.Errorf("header %s = %q, want it to contain %q", k, got, want[1:])
				case want != "" && !strings.HasPrefix(want, "~") && got != want:
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			for _, sub := range s.body {
				if !strings.Contains(string(body), sub) {
					t.Errorf("body %s\nwant it to contain %q", body, sub)
				}
			}
		})
	}
}

const (
	demo       = "X-SVC-App-Key: " + keyDemo
	unlicensed = "X-SVC-App-Key: " + keyUnlicensed
	archived   = "X-SVC-App-Key: " + keyArchived
)

// TestErrorsTable walks the rows of the spec's Errors table that the edge
// owns, and the Authentication rules.
func TestErrorsTable(t *testing.T) {
	e := newTestEdge(t, func(c *Config) { c.MaxRangeVerses = 4 })
	noCORS := map[string]string{"Access-Control-Allow-Origin": ""}
	runSteps(t, e, []step{
		{name: "200 bible", path: "/v1/bibles/9001", headers: []string{demo}, status: 200,
			header: map[string]string{"Content-Type": "application/json; charset=utf-8", "Vary": "Accept-Encoding",
				"Accept-Ranges": "bytes", "Access-Control-Allow-Origin": "*", "X-RateLimit-Limit": "~1"},
			body: []string{`"id":9001`}},
		{name: "200 metadata of an unlicensed Bible", path: "/v1/bibles/9002", headers: []string{unlicensed}, status: 200},
		{name: "200 index of an unlicensed Bible", path: "/v1/bibles/9002/index", headers: []string{unlicensed}, status: 200},
		{name: "403 passage of an unlicensed Bible", path: "/v1/bibles/9002/passages/JHN.3.16", headers: []string{unlicensed},
			status: 403, body: []string{`"message"`, "9002"}},
		{name: "403 range of an unlicensed Bible", path: "/v1/bibles/9002/passages/JHN.3.16-17", headers: []string{unlicensed},
			status: 403, body: []string{"9002"}},
		// Value checks come before the licence (docs/edge.md).
		{name: "422 malformed passage id before the licence", path: "/v1/bibles/9002/passages/JHN-3", headers: []string{unlicensed},
			status: 422, body: []string{`"loc":["path","passage_id_path"]`}},
		{name: "422 format before the licence", path: "/v1/bibles/9002/passages/JHN.3.16?format=pdf", headers: []string{unlicensed},
			status: 422, body: []string{`"loc":["query","format"]`}},
		{name: "401 missing key", path: "/v1/bibles/9001/passages/JHN.3.16", status: 401, header: noCORS,
			body: []string{`"fault"`, `"errorcode":"steps.oauth.v2.FailedToResolveAPIKey"`}},
		{name: "401 unknown key", path: "/v1/bibles/9001", headers: []string{"X-SVC-App-Key: nope"}, status: 401, header: noCORS,
			body: []string{`"faultstring":"Invalid ApiKey"`, `"errorcode":"oauth.v2.InvalidApiKey"`}},
		{name: "412 archived app", path: "/v1/bibles/9001", headers: []string{archived}, status: 412, body: []string{"archived"}},
		{name: "404 unknown Bible", path: "/v1/bibles/9999", headers: []string{demo}, status: 404, body: []string{`"message"`}},
		{name: "404 unknown book", path: "/v1/bibles/9001/books/GEN", headers: []string{demo}, status: 404},
		{name: "404 chapter past the count", path: "/v1/bibles/9001/books/JHN/chapters/99", headers: []string{demo}, status: 404},
		{name: "404 verse past the count", path: "/v1/bibles/9001/books/JHN/chapters/3/verses/99", headers: []string{demo}, status: 404},
		{name: "404 passage verse past the count", path: "/v1/bibles/9001/passages/JHN.3.99", headers: []string{demo}, status: 404},
		{name: "404 passage chapter past the count", path: "/v1/bibles/9001/passages/JHN.99", headers: []string{demo}, status: 404,
			body: []string{"Chapter JHN.99 is not in this Bible."}},
		{name: "404 passage verse of a chapter past the count", path: "/v1/bibles/9001/passages/JHN.99.1", headers: []string{demo},
			status: 404, body: []string{"Chapter JHN.99 is not in this Bible."}},
		{name: "404 passage of a book not in the Bible", path: "/v1/bibles/9001/passages/GEN.1.1", headers: []string{demo}, status: 404,
			body: []string{"Book GEN is not in this Bible."}},
		{name: "404 intro of a book not in the Bible", path: "/v1/bibles/9001/passages/GEN.INTRO", headers: []string{demo}, status: 404,
			body: []string{"Book GEN is not in this Bible."}},
		{name: "404 range past the count", path: "/v1/bibles/9001/passages/JHN.3.16-99", headers: []string{demo}, status: 404},
		{name: "404 intro of a book without one", path: "/v1/bibles/9001/passages/PS2.INTRO", headers: []string{demo}, status: 404},
		{name: "404 unknown path", path: "/v1/nothing", headers: []string{demo}, status: 404},
		{name: "404 unknown path under a Bible", path: "/v1/bibles/9001/books/JHN/pages", headers: []string{demo}, status: 404},
		{name: "405 POST", method: "POST", path: "/v1/bibles/9001", headers: []string{demo}, status: 405,
			header: map[string]string{"Allow": "GET, HEAD"}},
		{name: "405 OPTIONS preflight", method: "OPTIONS", path: "/v1/bibles/9001/passages/JHN.3.16", status: 405,
			header: map[string]string{"Allow": "GET, HEAD"}},
		{name: "422 Bible id not an integer", path: "/v1/bibles/abc", headers: []string{demo}, status: 422,
			body: []string{`"detail"`, `"loc":["path","bible_id_path"]`}},
		{name: "422 Bible id beyond int32", path: "/v1/bibles/2147483648", headers: []string{demo}, status: 422},
		{name: "404 negative Bible id (a valid int32 that names nothing)", path: "/v1/bibles/-1", headers: []string{demo}, status: 404,
			body: []string{`"message"`}},
		{name: "404 Bible id zero", path: "/v1/bibles/0", headers: []string{demo}, status: 404},
		{name: "404 Bible id not canonical", path: "/v1/bibles/09001", headers: []string{demo}, status: 404},
		{name: "422 canon", path: "/v1/bibles/9001/books?canon=apocrypha", headers: []string{demo}, status: 422,
			body: []string{`"loc":["query","canon"]`}},
		{name: "422 boolean", path: "/v1/bibles/9001/passages/JHN.3.16?include_notes=maybe", headers: []string{demo}, status: 422,
			body: []string{`"loc":["query","include_notes"]`}},
		{name: "422 format", path: "/v1/bibles/9001/passages/JHN.3.16?format=pdf", headers: []string{demo}, status: 422},
		{name: "422 malformed passage id", path: "/v1/bibles/9001/passages/JHN-3", headers: []string{demo}, status: 422,
			body: []string{`"loc":["path","passage_id_path"]`, "JHN-3"}},
		{name: "422 book id length", path: "/v1/bibles/9001/books/JOHN", headers: []string{demo}, status: 422},
		{name: "400 backwards range", path: "/v1/bibles/9001/passages/JHN.3.18-16", headers: []string{demo}, status: 400,
			body: []string{"The passage range JHN.3.18-16 ends before it starts."}},
		{name: "400 range too long", path: "/v1/bibles/9001/passages/JHN.3.16-4.2", headers: []string{demo}, status: 400,
			body: []string{"5 verses", "at most 4"}},
		{name: "503 dynamic route without dynamic", path: "/v1/highlights?bible_id=9001&passage_id=JHN.3.16", headers: []string{demo},
			status: 503, header: map[string]string{"Content-Type": "application/json; charset=utf-8"}, body: []string{`"message"`}},
		{name: "401 before 503 on a dynamic route", method: "POST", path: "/v1/highlights", status: 401},
		{name: "503 data exchange by app id", path: "/data-exchange?token=x&x-svc-app-id=" + appDemo, status: 503},
		{name: "healthz needs no key", path: "/healthz", status: 200},
		{name: "readyz", path: "/readyz", status: 200, body: []string{"ready"}},
		{name: "metrics", path: "/metrics", status: 200, body: []string{"edge_requests_total", "edge_access_snapshot_age_seconds",
			`edge_request_duration_seconds_bucket{class="bible",code="200",le="0.005"}`, "go_goroutines ", "process_resident_memory_bytes ",
			`edge_cache_requests_total{cache="composed",result="miss"} `, `edge_cache_hit_ratio{cache="search"} `, `edge_cache_bytes{cache="packs"} `}},
	})
}

func TestHTTPSemantics(t *testing.T) {
	e := newTestEdge(t, nil)
	const p = "/v1/bibles/9001/passages/JHN.3?format=html"
	id, idBody := e.do(t, "GET", p, demo)
	br, brBody := e.do(t, "GET", p, demo, "Accept-Encoding: gzip;q=0.5, br")
	gz, _ := e.do(t, "GET", p, demo, "Accept-Encoding: br;q=0, gzip")
	if got := br.Header.Get("Content-Encoding"); got != "br" {
		t.Fatalf("Content-Encoding = %q, want br", got)
	}
	if got := gz.Header.Get("Content-Encoding"); got != "gzip" {
		t.Fatalf("Content-Encoding = %q, want gzip", got)
	}
	if id.Header.Get("Content-Encoding") != "" {
		t.Fatalf("no Accept-Encoding got %q", id.Header.Get("Content-Encoding"))
	}
	tags := map[string]bool{id.Header.Get("ETag"): true, br.Header.Get("ETag"): true, gz.Header.Get("ETag"): true}
	if len(tags) != 3 {
		t.Errorf("ETags %v: want one per encoding", tags)
	}
	if len(brBody) >= len(idBody) {
		t.Errorf("br body %d bytes, identity %d", len(brBody), len(idBody))
	}
	lastMod := id.Header.Get("Last-Modified")
	head, headBody := e.do(t, "HEAD", p, demo)
	if head.StatusCode != 200 || len(headBody) != 0 || head.Header.Get("Content-Length") != id.Header.Get("Content-Length") {
		t.Errorf("HEAD: %d, %d body bytes, Content-Length %q; want 200, 0, %q", head.StatusCode, len(headBody),
			head.Header.Get("Content-Length"), id.Header.Get("Content-Length"))
	}
	size := len(idBody)
	runSteps(t, e, []step{
		{name: "304 If-None-Match", path: p, headers: []string{demo, `If-None-Match: "other", ` + id.Header.Get("ETag")}, status: 304,
			header: map[string]string{"Vary": "Accept-Encoding", "ETag": id.Header.Get("ETag"), "Content-Encoding": ""}},
		{name: "304 weak comparison", path: p, headers: []string{demo, "If-None-Match: W/" + id.Header.Get("ETag")}, status: 304},
		{name: "200 when the other encoding's tag is sent", path: p, headers: []string{demo, "If-None-Match: " + br.Header.Get("ETag")}, status: 200},
		{name: "304 If-Modified-Since", path: p, headers: []string{demo, "If-Modified-Since: " + lastMod}, status: 304},
		{name: "200 If-Modified-Since earlier", path: p, headers: []string{demo, "If-Modified-Since: Mon, 01 Jan 2024 00:00:00 GMT"}, status: 200},
		{name: "If-None-Match wins over If-Modified-Since", path: p,
			headers: []string{demo, `If-None-Match: "nope"`, "If-Modified-Since: " + lastMod}, status: 200},
		{name: "412 If-Match", path: p, headers: []string{demo, `If-Match: "nope"`}, status: 412},
		{name: "206 one range", path: p, headers: []string{demo, "Range: bytes=0-9"}, status: 206,
			header: map[string]string{"Content-Range": "bytes 0-9/" + itoa(size), "Content-Length": "10"}},
		{name: "206 suffix range", path: p, headers: []string{demo, "Range: bytes=-5"}, status: 206,
			header: map[string]string{"Content-Range": "bytes " + itoa(size-5) + "-" + itoa(size-1) + "/" + itoa(size)}},
		{name: "206 multipart", path: p, headers: []string{demo, "Range: bytes=0-1,5-6"}, status: 206,
			header: map[string]string{"Content-Type": "~multipart/byteranges; boundary="}},
		{name: "416 unsatisfiable", path: p, headers: []string{demo, "Range: bytes=99999-"}, status: 416,
			header: map[string]string{"Content-Range": "bytes */" + itoa(size)}},
		{name: "200 abusive ranges ignored", path: p, headers: []string{demo, "Range: bytes=0-,0-,0-"}, status: 200},
		{name: "200 unknown range unit ignored", path: p, headers: []string{demo, "Range: pages=1-2"}, status: 200},
		{name: "206 If-Range matches", path: p, headers: []string{demo, "Range: bytes=0-9", "If-Range: " + id.Header.Get("ETag")}, status: 206},
		{name: "200 If-Range stale", path: p, headers: []string{demo, "Range: bytes=0-9", `If-Range: "old"`}, status: 200},
		{name: "206 If-Range date", path: p, headers: []string{demo, "Range: bytes=0-9", "If-Range: " + lastMod}, status: 206},
		{name: "identity refused falls back to identity", path: p, headers: []string{demo, "Accept-Encoding: identity;q=0"}, status: 200},
		{name: "public-domain content may be shared", path: "/v1/bibles/9001/passages/JHN.3.16", headers: []string{demo}, status: 200,
			header: map[string]string{"Cache-Control": represent.CachePublic}},
		{name: "licensed content is private", path: "/v1/bibles/9002/passages/JHN.3.16", headers: []string{demo}, status: 200,
			header: map[string]string{"Cache-Control": represent.CachePrivate}},
		{name: "licensed composed range is private", path: "/v1/bibles/9002/passages/JHN.3.16-17", headers: []string{demo}, status: 200,
			header: map[string]string{"Cache-Control": represent.CachePrivate}},
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestPassages(t *testing.T) {
	e := newTestEdge(t, nil)
	get := func(path string) bible.Passage {
		t.Helper()
		resp, body := e.do(t, "GET", path, demo)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		var p bible.Passage
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		path              string
		id, reference     string
		contains, missing []string
	}{
		// Passage rule 2: a chapter defaults to headings and notes, a verse to neither.
		{"/v1/bibles/9001/passages/JHN.3?format=html", "JHN.3", "John 3", []string{"The Love of God", `class="yv-n f"`}, nil},
		{"/v1/bibles/9001/passages/JHN.3?format=html&include_notes=false", "JHN.3", "John 3", []string{"The Love of God"}, []string{"yv-n"}},
		{"/v1/bibles/9001/passages/JHN.3.16?format=html", "JHN.3.16", "John 3:16", []string{`<span class="yv-v" v="16">`}, []string{"The Love of God", "yv-n"}},
		{"/v1/bibles/9001/passages/JHN.3.16?format=html&include_headings=true&include_notes=true", "JHN.3.16", "John 3:16",
			[]string{"The Love of God", "Or only begotten"}, nil},
		// Rule 1: with text, headings and notes are ignored.
		{"/v1/bibles/9001/passages/JHN.3.16?include_notes=true&include_headings=true", "JHN.3.16", "John 3:16",
			[]string{"For God so loved the world,"}, []string{"<", "Or only begotten", "The Love of God"}},
		{"/v1/bibles/9001/passages/jhn.intro?format=html", "JHN.INTRO", "John Introduction", []string{"John wrote this book."}, nil},
		// Ranges composed on request: canonical id, reference, content.
		{"/v1/bibles/9001/passages/JHN.3.16-JHN.4.2?format=html", "JHN.3.16-4.2", "John 3:16-4:2",
			[]string{`v="16"`, `v="18"`, `v="2"`, `<div class="q1">`}, []string{"The Love of God", "yv-n"}},
		{"/v1/bibles/9001/passages/JHN.3.17-18", "JHN.3.17-18", "John 3:17-18",
			[]string{"17 For God didn’t send his Son\n18 He who believes"}, []string{"16"}},
		{"/v1/bibles/9001/passages/JHN.3.16-16", "JHN.3.16", "John 3:16", nil, nil},
		{"/v1/bibles/9001/passages/PS2.1_1.1-2", "PS2.1_1.1-2", "Psalms 151:1-2", []string{"musical instrument"}, nil},
		{"/v1/bibles/9001/passages/PS2.1_1", "PS2.1_1", "Psalms 151", nil, nil},
		{"/v1/bibles/9002/passages/JHN.3.16-17", "JHN.3.16-17", "Juan 3:16-17", []string{"Porque de tal manera"}, nil},
	}
	for _, tt := range tests {
		got := get(tt.path)
		if got.ID != tt.id || got.Reference != tt.reference {
			t.Errorf("%s: id %q reference %q; want %q %q", tt.path, got.ID, got.Reference, tt.id, tt.reference)
		}
		for _, s := range tt.contains {
			if !strings.Contains(got.Content, s) {
				t.Errorf("%s: content %q lacks %q", tt.path, got.Content, s)
			}
		}
		for _, s := range tt.missing {
			if strings.Contains(got.Content, s) {
				t.Errorf("%s: content %q has %q", tt.path, got.Content, s)
			}
		}
		if strings.Contains(tt.path, "format=html") {
			if err := wellFormed(got.Content); err != nil {
				t.Errorf("%s: HTML not balanced: %v\n%s", tt.path, err, got.Content)
			}
		}
	}
}

// wellFormed checks that an HTML fragment is balanced (our markup is XML-
// compatible: no void elements, entities escaped).
func wellFormed(s string) error {
	d := xml.NewDecoder(strings.NewReader(s))
	d.Strict = true
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func TestRateLimit(t *testing.T) {
	e := newTestEdge(t, nil)
	slow := "X-SVC-App-Key: " + keySlow
	for i := 0; i < 2; i++ {
		resp, _ := e.do(t, "GET", "/v1/bibles/9001", slow)
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
		if got, want := resp.Header.Get("X-RateLimit-Remaining"), itoa(1-i); got != want {
			t.Errorf("request %d: X-RateLimit-Remaining %q, want %q", i, got, want)
		}
	}
	runSteps(t, e, []step{{name: "429", path: "/v1/bibles/9001", headers: []string{slow}, status: 429,
		header: map[string]string{"Content-Type": "text/plain; charset=utf-8", "Retry-After": "1",
			"Access-Control-Allow-Origin": "", "X-RateLimit-Remaining": "0"}}})
	// Another app's allowance is its own.
	if resp, _ := e.do(t, "GET", "/v1/bibles/9001", demo); resp.StatusCode != 200 {
		t.Errorf("other app: %d", resp.StatusCode)
	}
	// A refreshed snapshot keeps what the app has used.
	if err := e.srv.SetAccess(testSnapshot()); err != nil {
		t.Fatal(err)
	}
	if resp, _ := e.do(t, "GET", "/v1/bibles/9001", slow); resp.StatusCode != 429 {
		t.Errorf("after refresh: %d, want 429", resp.StatusCode)
	}
	_ = http.StatusOK
}
