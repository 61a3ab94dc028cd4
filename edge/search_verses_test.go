package edge

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

type verseAnswer struct {
	Verses []struct {
		Reference string `json:"reference"`
		Text      string `json:"text"`
		Matches   []struct {
			Start int `json:"start"`
			End   int `json:"end"`
		} `json:"matches"`
	} `json:"verses"`
	UserIntent       string   `json:"user_intent"`
	DidYouMean       []string `json:"did_you_mean"`
	SearchInsteadFor string   `json:"search_instead_for"`
	NextPageToken    string   `json:"next_page_token"`
}

func searchURL(path string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return path + "?" + v.Encode()
}

func TestSearchVerses(t *testing.T) {
	e := newTestEdge(t, nil)
	key := "X-SVC-App-Key: " + keyDemo
	for _, path := range []string{"/v1/search-verses", "/v1-beta/search-verses"} {
		resp, body := e.do(t, "GET", searchURL(path, "query", "God loved", "bible_id", "9001"), key)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		var a verseAnswer
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
		if len(a.Verses) != 1 || a.Verses[0].Reference != "JHN.3.16" || a.UserIntent != "text" || a.DidYouMean == nil {
			t.Errorf("%s: %s", path, body)
		}
		// Exactly the wire format without fields[], the last two keys null
		// on a last page without a correction.
		if strings.Contains(string(body), `"text"`+":") || !strings.HasSuffix(string(body), `"search_instead_for":null,"next_page_token":null}`) {
			t.Errorf("%s: %s", path, body)
		}
		if resp.Header.Get("Cache-Control") == "" || resp.Header.Get("Etag") == "" || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s: headers %v", path, resp.Header)
		}
		// Revalidation.
		resp, _ = e.do(t, "GET", searchURL(path, "query", "God loved", "bible_id", "9001"), key, "If-None-Match: "+resp.Header.Get("Etag"))
		if resp.StatusCode != 304 {
			t.Errorf("%s: revalidation %d", path, resp.StatusCode)
		}
	}

	// fields[]=text: the text with the matched words' offsets.
	_, body := e.do(t, "GET", searchURL("/v1/search-verses", "query", "loved world", "bible_id", "9001", "fields[]", "text"), key)
	var a verseAnswer
	json.Unmarshal(body, &a)
	if len(a.Verses) != 1 || len(a.Verses[0].Matches) != 2 {
		t.Fatalf("fields[]=text: %s", body)
	}
	for _, m := range a.Verses[0].Matches {
		w := string([]rune(a.Verses[0].Text)[m.Start:m.End])
		if w != "loved" && w != "world" {
			t.Errorf("match %q", w)
		}
	}

	// Reference intent, in the Bible's own language; typo correction.
	for _, c := range []struct{ bible, q, intent, want, instead string }{
		{"9001", "John 3:16-17", "reference", "JHN.3.16 JHN.3.17", ""},
		{"9001", "jn 3 18", "", "JHN.3.18", ""},
		{"9002", "Juan 3:17", "unknown", "JHN.3.17", ""},
		// No verse holds both words: the verses holding most of them,
		// and the words the first one holds.
		{"9002", "jesus envio", "", "JHN.3.17", "envio"},
		{"9002", "envio hijo", "", "JHN.3.17", ""},
		{"9001", "belives", "", "JHN.3.18", "believes"},
		{"9003", "בראשית", "", "GEN.1.1", ""},
	} {
		resp, body := e.do(t, "GET", searchURL("/v1/search-verses", "query", c.q, "bible_id", c.bible, "user_intent", c.intent), key)
		if resp.StatusCode != 200 {
			t.Fatalf("%q: %d %s", c.q, resp.StatusCode, body)
		}
		var a verseAnswer
		json.Unmarshal(body, &a)
		var got []string
		for _, v := range a.Verses {
			got = append(got, v.Reference)
		}
		if strings.Join(got, " ") != c.want || a.SearchInsteadFor != c.instead {
			t.Errorf("%q in %s: %s", c.q, c.bible, body)
		}
	}
}

func TestSearchVersesPaging(t *testing.T) {
	e := newTestEdge(t, nil)
	key := "X-SVC-App-Key: " + keyDemo
	var got []string
	tok := ""
	for range 10 {
		kv := []string{"query", "God", "bible_id", "9001", "page_size", "1"}
		if tok != "" {
			kv = append(kv, "page_token", tok)
		}
		resp, body := e.do(t, "GET", searchURL("/v1/search-verses", kv...), key)
		if resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		var a verseAnswer
		json.Unmarshal(body, &a)
		for _, v := range a.Verses {
			got = append(got, v.Reference)
		}
		if tok = a.NextPageToken; tok == "" {
			break
		}
	}
	slices.Sort(got)
	if strings.Join(got, " ") != "JHN.3.16 JHN.3.17" {
		t.Errorf("pages: %v", got)
	}
	// A token is bound to its query.
	_, body := e.do(t, "GET", searchURL("/v1/search-verses", "query", "God", "bible_id", "9001", "page_size", "1"), key)
	var a verseAnswer
	json.Unmarshal(body, &a)
	resp, _ := e.do(t, "GET", searchURL("/v1/search-verses", "query", "world", "bible_id", "9001", "page_token", a.NextPageToken), key)
	if resp.StatusCode != 400 {
		t.Errorf("token of another query: %d", resp.StatusCode)
	}
}

func TestSearchVersesErrors(t *testing.T) {
	e := newTestEdge(t, nil)
	key := "X-SVC-App-Key: " + keyDemo
	long := strings.Repeat("a", 101)
	for _, c := range []struct {
		target string
		header string
		status int
		param  string
	}{
		{searchURL("/v1/search-verses", "query", "God", "bible_id", "9001"), "", 401, ""},
		{searchURL("/v1/search-verses", "query", "God", "bible_id", "9001"), "X-SVC-App-Key: " + keyArchived, 412, ""},
		{searchURL("/v1/search-verses", "query", "God", "bible_id", "9002"), "X-SVC-App-Key: " + keyUnlicensed, 403, ""},
		{searchURL("/v1/search-verses", "query", "God", "bible_id", "1234"), key, 404, ""},
		{searchURL("/v1/search-verses", "bible_id", "9001"), key, 422, "query"},
		{searchURL("/v1/search-verses", "query", "", "bible_id", "9001"), key, 422, "query"},
		{searchURL("/v1/search-verses", "query", long, "bible_id", "9001"), key, 422, "query"},
		{searchURL("/v1/search-verses", "query", "God"), key, 422, "bible_id"},
		{searchURL("/v1/search-verses", "query", "God", "bible_id", "-3"), key, 422, "bible_id"},
		{searchURL("/v1/search-verses", "query", "God", "bible_id", "9001", "page_size", "100"), key, 422, "page_size"},
		{searchURL("/v1/search-verses", "query", "God", "bible_id", "9001", "page_size", "0"), key, 422, "page_size"},
		{searchURL("/v1/search-verses", "query", "God", "bible_id", "9001", "user_intent", "maybe"), key, 422, "user_intent"},
		{searchURL("/v1/search-verses", "query", "God", "bible_id", "9001", "fields[]", "html"), key, 422, "fields[]"},
		{searchURL("/v1/search-verses", "query", "God", "bible_id", "9001", "page_token", "forged"), key, 400, ""},
	} {
		var hs []string
		if c.header != "" {
			hs = append(hs, c.header)
		}
		resp, body := e.do(t, "GET", c.target, hs...)
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d %s, want %d", c.target, resp.StatusCode, body, c.status)
			continue
		}
		if c.status == 422 {
			var d struct {
				Detail []struct {
					Loc []string `json:"loc"`
				} `json:"detail"`
			}
			if json.Unmarshal(body, &d) != nil || len(d.Detail) != 1 || d.Detail[0].Loc[1] != c.param {
				t.Errorf("%s: %s", c.target, body)
			}
		}
	}
	resp, _ := e.do(t, "POST", searchURL("/v1/search-verses", "query", "God", "bible_id", "9001"), key)
	if resp.StatusCode != 405 {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}

// An answer that fits in one packet is served as it is to the request
// that computes it, whatever it accepts; asked for again, from the
// answer cache, it comes in the coding asked for, each coding with its
// own ETag and the identity one unchanged (compose.Answer's tests show
// longer ones compressed for the request that computes them). An answer
// from the cache allocates nothing.
func TestSearchVersesShortAnswer(t *testing.T) {
	e := newTestEdge(t, nil)
	uri := searchURL("/v1/search-verses", "query", "God", "bible_id", "9001", "fields[]", "text")
	tags := map[string]string{}
	for i, ae := range []string{"br", "", "gzip", "br"} {
		resp, body := e.do(t, "GET", uri, "X-SVC-App-Key: "+keyDemo, "Accept-Encoding: "+ae)
		if resp.StatusCode != 200 {
			t.Fatalf("%q: %d %s", ae, resp.StatusCode, body)
		}
		want := ae
		if i == 0 {
			want = "" // computed
		}
		ce := resp.Header.Get("Content-Encoding")
		if ce != want {
			t.Errorf("request %d, %q: Content-Encoding %q, want %q", i, ae, ce, want)
		}
		tag := resp.Header.Get("Etag")
		if old, ok := tags[ce]; ok && old != tag || tag == "" {
			t.Errorf("request %d, %q: ETag %s, before %s", i, ae, tag, old)
		}
		tags[ce] = tag
	}
	if len(tags) != 3 {
		t.Errorf("ETags %v, want one per coding", tags)
	}

	if raceEnabled {
		return // the race detector's instrumentation allocates
	}
	var ctx fasthttp.RequestCtx
	serve := func() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI(uri)
		ctx.Request.Header.Set("X-SVC-App-Key", keyDemo)
		ctx.Request.Header.Set("Accept-Encoding", "gzip, br")
		e.srv.Handler(&ctx)
	}
	serve()
	if ctx.Response.StatusCode() != 200 {
		t.Fatalf("%d %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
	least := testing.AllocsPerRun(100, serve)
	for range 4 {
		least = min(least, testing.AllocsPerRun(100, serve))
	}
	if least != 0 {
		t.Errorf("%v allocations per answer from the cache, want 0", least)
	}
}
