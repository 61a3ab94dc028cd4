package edge

import (
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/edge/internal/searchapi"
)

// The search tests serve the committed fixtures, whose topics files
// (fixtures/content/topics) are built by the real build.

func topicTexts(t testing.TB, v map[string]any) string {
	t.Helper()
	var out []string
	for _, x := range v["topics"].([]any) {
		out = append(out, x.(map[string]any)["text"].(string))
	}
	return strings.Join(out, ",")
}

func TestSearchTopics(t *testing.T) {
	e := newCatalogEdge(t, nil)
	for _, c := range []struct {
		query, ranges, want, instead, dym string
	}{
		{"love", "en", "Love", "", ""},
		{"lov", "en", "Love", "", ""},
		{"light dark", "en", "Light", "", ""},
		{"courage", "en", "Fear and anxiety", "", ""},
		{"forgivnes", "en", "Forgiveness", "forgiveness", ""},
		{"lvoe", "en", "Love", "love", ""},
		{"salvacion", "es", "Salvación", "", ""},
		{"perdon", "es", "Perdón", "", ""},
		{"amr", "es", "", "", ""},
		{"creacin", "es", "Creación", "creacion", ""},
		// The first range whose topics answer wins; "fr" has none.
		{"amor", "fr&language_ranges[]=en&language_ranges[]=es", "Amor", "", ""},
		{"love", "en-GB&language_ranges[]=es", "", "", ""},
		{"love", "*", "Love", "", ""},
		{"zzzz", "en", "", "", ""},
	} {
		target := "/v1-beta/search-topics?query=" + url.QueryEscape(c.query) + "&language_ranges[]=" + c.ranges
		_, v := e.getJSON(t, target, 200)
		got := ""
		if v["topics"] != nil {
			got = topicTexts(t, v)
		}
		instead, _ := v["search_instead_for"].(string)
		dym, _ := json.Marshal(v["did_you_mean"])
		wantDym := "[]"
		if c.dym != "" {
			wantDym = `["` + c.dym + `"]`
		}
		if got != c.want || instead != c.instead || string(dym) != wantDym {
			t.Errorf("%s: topics %q instead %q dym %s; want %q %q %s", target, got, instead, dym, c.want, c.instead, wantDym)
		}
	}
	// The wire shape: id, text, subtopics; no passages.
	_, v := e.getJSON(t, "/v1/search-topics?query=love&language_ranges[]=en", 200)
	first := v["topics"].([]any)[0].(map[string]any)
	if len(first) != 3 || first["id"] != 1.0 || first["subtopics"].([]any)[0] != "God's love" {
		t.Errorf("topic = %v", first)
	}
	// All four keys, as the live service sends them: search_instead_for
	// null without a correction, total_size the topics' number.
	if instead, ok := v["search_instead_for"]; !ok || instead != nil {
		t.Errorf("search_instead_for = %v (present %v); want null", instead, ok)
	}
	if n, ok := v["total_size"].(float64); !ok || int(n) != len(v["topics"].([]any)) || len(v) != 4 {
		t.Errorf("total_size = %v in %v; want the topics' number, four keys", v["total_size"], v)
	}
}

func TestSearchQueries(t *testing.T) {
	e := newCatalogEdge(t, nil)
	for _, c := range []struct {
		query, ranges, want string
	}{
		{"lo", "en", "Love:topic,Loving one another:topic"},
		{"gen", "en", "Genesis:book"},
		{"ligh", "en", "Light:topic,Light in the darkness:topic"},
		{"darkn", "en", "darkness:vocabulary,Light in the darkness:topic"},
		{"sal", "es", "Salvación:topic,Salmos:book"},
		{"zzq", "en", ""},
		{"gen", "fr&language_ranges[]=en", "Genesis:book"},
	} {
		target := "/v1-beta/search-queries?query=" + url.QueryEscape(c.query) + "&language_ranges[]=" + c.ranges
		want := 200
		if c.want == "" {
			want = 204
		}
		resp, v := e.getJSON(t, target, want)
		if want == 204 {
			if v != nil || resp.Header.Get("Content-Type") != "" {
				t.Errorf("%s: 204 with a body or Content-Type %q", target, resp.Header.Get("Content-Type"))
			}
			continue
		}
		var got []string
		for _, x := range v["data"].([]any) {
			m := x.(map[string]any)
			got = append(got, m["text"].(string)+":"+m["source"].(string))
		}
		if s := strings.Join(got, ","); !strings.HasPrefix(s, c.want) {
			t.Errorf("%s: %s; want it to start with %s", target, s, c.want)
		}
	}
	// Trending without a dynamic service to learn from: nothing to suggest.
	e.getJSON(t, "/v1-beta/search-queries?trending=true&language_ranges[]=en", 204)
}

func TestSearchRequests(t *testing.T) {
	e := newCatalogEdge(t, nil)
	paths := []string{
		"/v1-beta/search-topics?query=love&language_ranges[]=en",
		"/v1/search-topics?query=love&language_ranges[]=en",
		"/v1-beta/search-queries?query=lo&language_ranges[]=en",
		"/v1/search-queries?query=lo&language_ranges[]=en",
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			if resp, _ := e.do(t, "GET", p); resp.StatusCode != 401 {
				t.Errorf("without a key: %d", resp.StatusCode)
			}
			if resp, _ := e.do(t, "GET", p, "X-SVC-App-Key: "+keyArchived); resp.StatusCode != 412 {
				t.Errorf("archived app: %d", resp.StatusCode)
			}
			if resp, _ := e.do(t, "POST", p, "X-SVC-App-Key: "+keyDemo); resp.StatusCode != 405 {
				t.Errorf("POST: %d", resp.StatusCode)
			}
			resp, plain := e.do(t, "GET", p, "X-SVC-App-Key: "+keyDemo)
			tag := resp.Header.Get("ETag")
			if resp.StatusCode != 200 || tag == "" || !strings.HasPrefix(resp.Header.Get("Cache-Control"), "public") {
				t.Fatalf("GET: %d ETag %q Cache-Control %q", resp.StatusCode, tag, resp.Header.Get("Cache-Control"))
			}
			if resp, body := e.do(t, "GET", p, "X-SVC-App-Key: "+keyDemo, "If-None-Match: "+tag); resp.StatusCode != 304 || len(body) != 0 {
				t.Errorf("If-None-Match: %d", resp.StatusCode)
			}
			if resp, again := e.do(t, "GET", p, "X-SVC-App-Key: "+keyDemo); resp.Header.Get("ETag") != tag || string(again) != string(plain) {
				t.Error("a second GET differs")
			}
		})
	}
	// Compression: a long enough answer is sent compressed when asked.
	resp, _ := e.do(t, "GET", "/v1-beta/search-queries?query=l&language_ranges[]=en", "X-SVC-App-Key: "+keyDemo, "Accept-Encoding: br, gzip")
	if ce := resp.Header.Get("Content-Encoding"); ce != "br" && ce != "gzip" {
		t.Errorf("Content-Encoding %q", ce)
	}
	e.do(t, "GET", paths[0], "X-SVC-App-Key: "+keySlow)
	e.do(t, "GET", paths[0], "X-SVC-App-Key: "+keySlow)
	if resp, _ = e.do(t, "GET", paths[0], "X-SVC-App-Key: "+keySlow); resp.StatusCode != 429 {
		t.Errorf("over the rate limit: %d", resp.StatusCode)
	}
	long := strings.Repeat("a", 101)
	for target, loc := range map[string]string{
		"/v1-beta/search-topics?language_ranges[]=en":                    "query",
		"/v1-beta/search-topics?query=&language_ranges[]=en":             "query",
		"/v1-beta/search-topics?query=" + long + "&language_ranges[]=en": "query",
		"/v1-beta/search-topics?query=love":                              "language_ranges[]",
		"/v1-beta/search-queries?language_ranges[]=en":                   "query",
		"/v1-beta/search-queries?trending=maybe&language_ranges[]=en":    "trending",
		"/v1-beta/search-queries?trending=true":                          "language_ranges[]",
	} {
		_, v := e.getJSON(t, target, 422)
		d := v["detail"].([]any)[0].(map[string]any)
		if l := d["loc"].([]any); l[0] != "query" || l[1] != loc {
			t.Errorf("%s: loc %v, want [query %s]", target, l, loc)
		}
	}
	// A language range the spec does not allow is 400, as on the Bibles
	// collection.
	for _, target := range []string{
		"/v1-beta/search-topics?query=love&language_ranges[]=en_US",
		"/v1-beta/search-topics?query=love&language_ranges[]=toolonglang",
		"/v1-beta/search-queries?query=x&language_ranges[]=e1",
	} {
		if _, v := e.getJSON(t, target, 400); v["message"] == nil {
			t.Errorf("%s: %v, want a message", target, v)
		}
	}
	// A query of 100 characters, accents counted as one, is accepted.
	e.getJSON(t, "/v1-beta/search-topics?query="+url.QueryEscape(strings.Repeat("é", 100))+"&language_ranges[]=en", 200)
	for _, p := range []string{"/v1-beta/search-nothing", "/v1/search-", "/v1-beta/search-topics/x"} {
		if resp, _ := e.do(t, "GET", p, "X-SVC-App-Key: "+keyDemo); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
}

// TestTopicsDuringStoreOutage: an edge restarted while the store is
// unreachable answers topic searches and suggestions from its disk cache,
// where the first edge's background load put them.
func TestTopicsDuringStoreOutage(t *testing.T) {
	store, start := restartableEdges(t, catalogStore(t), "")
	root := store.Root()
	first, err := start()
	if err != nil {
		t.Fatal(err)
	}
	// Wait for the background load of every language's aids (no request
	// asks for Spanish before the outage).
	st := first.srv.site.Load()
	for deadline := time.Now().Add(10 * time.Second); !searchapi.AidsLoaded(st); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the languages' aids not loaded after 10 s")
		}
	}
	if err := os.Rename(root, root+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := start()
	if err == nil {
		t.Fatal("the build check succeeded with the store gone")
	}
	_, v := second.getJSON(t, "/v1-beta/search-topics?query=amor&language_ranges[]=es", 200)
	if got := topicTexts(t, v); got != "Amor" {
		t.Errorf("during the outage: topics %q, want Amor", got)
	}
	second.getJSON(t, "/v1-beta/search-queries?query=gen&language_ranges[]=en", 200)
}

// TestSuggestionsLicensed: book names and vocabulary come only from
// Bibles the asking app may read. The unlicensed app reads no Spanish
// Bible, so it gets no Spanish word or book name however it types, where
// the licensed app gets them; a licensed answer drawn from a Bible that
// is not open is private.
func TestSuggestionsLicensed(t *testing.T) {
	e := newCatalogEdge(t, nil)
	fromText := func(key, prefix string) (n int, cacheControl string) {
		resp, body := e.do(t, "GET", "/v1-beta/search-queries?query="+url.QueryEscape(prefix)+"&language_ranges[]=es", "X-SVC-App-Key: "+key)
		if resp.StatusCode == 204 {
			return 0, resp.Header.Get("Cache-Control")
		}
		var v struct {
			Data []struct{ Text, Source string }
		}
		if err := json.Unmarshal(body, &v); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", prefix, resp.StatusCode, body)
		}
		for _, d := range v.Data {
			if d.Source != "topic" {
				n++
			}
		}
		return n, resp.Header.Get("Cache-Control")
	}
	licensed := 0
	for _, p := range strings.Split("a b c d e f g h i j l m n o p q r s t u v y", " ") {
		n, cc := fromText(keyDemo, p)
		licensed += n
		if n > 0 && !strings.HasPrefix(cc, "private") {
			t.Errorf("%s: Cache-Control %q for words of a Bible that is not open", p, cc)
		}
		if n, _ := fromText(keyUnlicensed, p); n > 0 {
			t.Errorf("%s: the unlicensed app got %d suggestions from the Spanish Bible's text", p, n)
		}
	}
	if licensed == 0 {
		t.Fatal("the licensed app got no Spanish words: the test shows nothing")
	}
}
