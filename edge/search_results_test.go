package edge

import (
	"encoding/json"
	"strings"
	"testing"
)

type unifiedAnswer struct {
	Verses []struct {
		Reference string `json:"reference"`
	} `json:"verses"`
	Topics []struct {
		ID   *int64 `json:"id"`
		Text string `json:"text"`
	} `json:"topics"`
	UserIntent       string   `json:"user_intent"`
	DidYouMean       []string `json:"did_you_mean"`
	SearchInsteadFor *string  `json:"search_instead_for"`
}

func (e *testEdge) unified(t *testing.T, want int, kv ...string) (unifiedAnswer, map[string]any) {
	t.Helper()
	_, v := e.getJSON(t, searchURL("/v1-beta/search-results", kv...), want)
	var a unifiedAnswer
	b, _ := json.Marshal(v)
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return a, v
}

func TestSearchResults(t *testing.T) {
	e := newCatalogEdge(t, nil)
	a, raw := e.unified(t, 200, "query", "light", "bible_id", "9001", "language_ranges[]", "en")
	if len(a.Verses) == 0 || len(a.Topics) == 0 || a.Topics[0].Text != "Light" || a.UserIntent != "text" {
		t.Fatalf("light: %+v", a)
	}
	if len(raw) != 5 { // verses, topics, user_intent, did_you_mean, search_instead_for
		t.Errorf("fields %v, want verses, topics, user_intent, did_you_mean, search_instead_for", raw)
	}
	for _, v := range a.Verses {
		if !strings.HasPrefix(v.Reference, "JHN.") && !strings.HasPrefix(v.Reference, "GEN.1.") {
			t.Errorf("verse %s: not where the fixtures speak of light", v.Reference)
		}
	}
	// fields[] picks the parts; the other comes back empty.
	if a, _ := e.unified(t, 200, "query", "light", "bible_id", "9001", "language_ranges[]", "en", "fields[]", "topics"); len(a.Verses) != 0 || len(a.Topics) == 0 || a.UserIntent != "topical" {
		t.Errorf("fields[]=topics: %+v", a)
	}
	if a, _ := e.unified(t, 200, "query", "light", "bible_id", "9001", "language_ranges[]", "en", "fields[]", "verses"); len(a.Verses) == 0 || len(a.Topics) != 0 {
		t.Errorf("fields[]=verses: %+v", a)
	}
	if a, _ := e.unified(t, 200, "query", "light", "bible_id", "9001", "language_ranges[]", "en", "fields[]", "verses", "fields[]", "topics"); len(a.Verses) == 0 || len(a.Topics) == 0 {
		t.Errorf("both fields: %+v", a)
	}
	// Topics only need no Bible; without language_ranges[] they follow the
	// Bible's language.
	if a, _ := e.unified(t, 200, "query", "amor", "language_ranges[]", "es", "fields[]", "topics"); len(a.Topics) != 1 || a.Topics[0].Text != "Amor" {
		t.Errorf("topics without a Bible: %+v", a)
	}
	if a, _ := e.unified(t, 200, "query", "luz", "bible_id", "9002"); len(a.Topics) == 0 || a.Topics[0].Text != "Luz" {
		t.Errorf("topics in the Bible's language: %+v", a)
	}
	// user_intent goes to verse search: a reference.
	if a, _ := e.unified(t, 200, "query", "John 3:16", "bible_id", "9001", "language_ranges[]", "en"); a.UserIntent != "reference" || len(a.Verses) != 1 || a.Verses[0].Reference != "JHN.3.16" {
		t.Errorf("John 3:16: %+v", a)
	}
	if a, _ := e.unified(t, 200, "query", "John 3:16", "bible_id", "9001", "language_ranges[]", "en", "user_intent", "text"); a.UserIntent != "text" {
		t.Errorf("John 3:16 as text: %+v", a)
	}
	// A typo: corrected for verses and for topics.
	if a, _ := e.unified(t, 200, "query", "ligth", "bible_id", "9001", "language_ranges[]", "en"); a.SearchInsteadFor == nil || *a.SearchInsteadFor != "light" || len(a.Topics) == 0 {
		t.Errorf("ligth: %+v", a)
	}
	// Licence: verses of a Bible the app may not read are 403; its topics
	// alone are not text of the Bible.
	resp, _ := e.do(t, "GET", searchURL("/v1-beta/search-results", "query", "luz", "bible_id", "9002"), "X-SVC-App-Key: "+keyUnlicensed)
	if resp.StatusCode != 403 {
		t.Errorf("unlicensed Bible: %d, want 403", resp.StatusCode)
	}
	resp, _ = e.do(t, "GET", searchURL("/v1-beta/search-results", "query", "luz", "bible_id", "9002", "fields[]", "topics"), "X-SVC-App-Key: "+keyUnlicensed)
	if resp.StatusCode != 200 {
		t.Errorf("unlicensed Bible, topics only: %d, want 200", resp.StatusCode)
	}
	// A licensed Bible's results are private; an open one's public.
	resp, _ = e.do(t, "GET", searchURL("/v1-beta/search-results", "query", "luz", "bible_id", "9002"), "X-SVC-App-Key: "+keyDemo)
	if cc := resp.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
		t.Errorf("licensed Bible: Cache-Control %q", cc)
	}
	resp, body := e.do(t, "GET", searchURL("/v1/search-results", "query", "light", "bible_id", "9001"), "X-SVC-App-Key: "+keyDemo)
	tag := resp.Header.Get("ETag")
	if cc := resp.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "public") || tag == "" {
		t.Errorf("open Bible: Cache-Control %q ETag %q", cc, tag)
	}
	if resp, _ := e.do(t, "GET", searchURL("/v1/search-results", "query", "light", "bible_id", "9001"), "X-SVC-App-Key: "+keyDemo, "If-None-Match: "+tag); resp.StatusCode != 304 {
		t.Errorf("If-None-Match: %d", resp.StatusCode)
	}
	if _, again := e.do(t, "GET", searchURL("/v1/search-results", "query", "light", "bible_id", "9001"), "X-SVC-App-Key: "+keyDemo); string(again) != string(body) {
		t.Error("the cached answer differs")
	}
	// The live service's path is the same operation; its five keys are
	// always there, search_instead_for null without a correction.
	_, live := e.do(t, "GET", searchURL("/v1/search-unified", "query", "light", "bible_id", "9001"), "X-SVC-App-Key: "+keyDemo)
	if string(live) != string(body) || !strings.HasSuffix(string(body), `"search_instead_for":null}`) {
		t.Errorf("search-unified %s; want search-results' answer %s, search_instead_for null", live, body)
	}
	e.unified(t, 404, "query", "x", "bible_id", "12345")
	for loc, kv := range map[string][]string{
		"query":             {"bible_id", "9001"},
		"bible_id":          {"query", "x", "language_ranges[]", "en"},
		"fields[]":          {"query", "x", "bible_id", "9001", "fields[]", "text"},
		"user_intent":       {"query", "x", "bible_id", "9001", "user_intent", "guess"},
		"language_ranges[]": {"query", "x", "fields[]", "topics"},
	} {
		_, v := e.unified(t, 422, kv...)
		d := v["detail"].([]any)[0].(map[string]any)
		if l := d["loc"].([]any); l[1] != loc {
			t.Errorf("%v: loc %v, want %s", kv, l, loc)
		}
	}
}
