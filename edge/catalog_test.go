package edge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/publish"
)

// The catalogue tests serve the committed fixtures (fixtures/content) built
// by the real build, so that the site pack, the font files and the Bible
// objects are exactly what `publish build` writes.

// catalogStore publishes the fixtures into a fresh directory store.
func catalogStore(t testing.TB) *publish.Dir {
	t.Helper()
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = build.Build(context.Background(), build.Options{
		Content: filepath.Join(repoRoot(t), "fixtures", "content"), Store: store,
		ReaderURL: "https://read.example.org/versions/",
	})
	if err != nil {
		t.Fatalf("build the fixtures: %v", err)
	}
	return store
}

func newCatalogEdge(t testing.TB, mod func(*Config)) *testEdge {
	t.Helper()
	return startTestEdge(t, catalogStore(t), mod)
}

func (e *testEdge) getJSON(t testing.TB, target string, want int, headers ...string) (*http.Response, map[string]any) {
	t.Helper()
	resp, body := e.do(t, "GET", target, append([]string{"X-SVC-App-Key: " + keyDemo}, headers...)...)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d %s, want %d", target, resp.StatusCode, body, want)
	}
	if len(body) == 0 {
		return resp, nil
	}
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("GET %s: %v in %s", target, err, body)
	}
	return resp, v
}

func dataIDs(v map[string]any) []string {
	var out []string
	for _, x := range v["data"].([]any) {
		out = append(out, fmt.Sprint(x.(map[string]any)["id"]))
	}
	return out
}

func TestBiblesCollection(t *testing.T) {
	e := newCatalogEdge(t, nil)
	cases := []struct {
		query string
		key   string
		want  string // ids, or a status
	}{
		{"language_ranges[]=en", keyDemo, "[9001]"},
		{"language_ranges[]=EN", keyDemo, "[9001]"},
		{"language_ranges[]=*", keyDemo, "[9001 9002 9003]"},
		{"language_ranges[]=e*", keyDemo, "[9001 9002]"},
		{"language_ranges[]=fr&language_ranges[]=es&language_ranges[]=en", keyDemo, "[9002]"},
		{"language_ranges[]=he&language_ranges[]=*", keyDemo, "[9003]"},
		{"language_ranges[]=fr", keyDemo, "204"},
		{"language_ranges[]=es", keyUnlicensed, "204"},
		{"language_ranges[]=es&all_available=true", keyUnlicensed, "[9002]"},
		{"language_ranges[]=*", keyUnlicensed, "[9001 9003]"},
		{"language_ranges[]=*&license_id=2", keyDemo, "[9002 9003]"},
		{"language_ranges[]=*&license_id=7", keyDemo, "204"},
		{"", keyDemo, "422"},
		{"language_ranges[]=en_US", keyDemo, "400"},
		{"language_ranges[]=en%20US", keyDemo, "400"},
		{"language_ranges[]=", keyDemo, "400"},
		{"language_ranges[]=en&page_size=0", keyDemo, "422"},
		{"language_ranges[]=en&page_size=100", keyDemo, "422"},
		{"language_ranges[]=en&page_size=*", keyDemo, "422"},
		{"language_ranges[]=en&page_size=*&fields[]=id&fields[]=title&fields[]=books&fields[]=info", keyDemo, "422"},
		{"language_ranges[]=en&fields[]=nope", keyDemo, "422"},
		{"language_ranges[]=en&license_id=x", keyDemo, "422"},
		{"language_ranges[]=en&all_available=perhaps", keyDemo, "422"},
		{"language_ranges[]=en&page_token=forged", keyDemo, "400"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			resp, body := e.do(t, "GET", "/v1/bibles?"+tc.query, "X-SVC-App-Key: "+tc.key)
			if strings.HasPrefix(tc.want, "[") {
				if resp.StatusCode != 200 {
					t.Fatalf("status %d %s", resp.StatusCode, body)
				}
				var v map[string]any
				json.Unmarshal(body, &v)
				if got := fmt.Sprint(dataIDs(v)); got != tc.want {
					t.Errorf("got %s, want %s", got, tc.want)
				}
				if got, want := v["total_size"], float64(len(v["data"].([]any))); got != want {
					t.Errorf("total_size %v, want %v", got, want)
				}
				return
			}
			if got := fmt.Sprint(resp.StatusCode); got != tc.want {
				t.Errorf("status %s %s, want %s", got, body, tc.want)
			}
			if resp.StatusCode == 204 && len(body) != 0 {
				t.Errorf("204 with a body %q", body)
			}
		})
	}
}

// TestBiblesCollectionAgreesWithBible: an item of the collection is the
// Bible object the Bible route serves.
func TestBiblesCollectionAgreesWithBible(t *testing.T) {
	e := newCatalogEdge(t, nil)
	_, list := e.getJSON(t, "/v1/bibles?language_ranges[]=*", 200)
	for _, item := range list["data"].([]any) {
		id := fmt.Sprint(item.(map[string]any)["id"])
		_, one := e.getJSON(t, "/v1/bibles/"+id, 200)
		got, _ := json.Marshal(item)
		want, _ := json.Marshal(one)
		if string(got) != string(want) {
			t.Errorf("Bible %s in the collection:\n%s\nwant\n%s", id, got, want)
		}
	}
}

// pageAll follows next_page_token from first to the end and returns every
// id seen, failing on a duplicate or a total_size that disagrees.
func pageAll(t *testing.T, e *testEdge, first string, total bool, headers ...string) []string {
	t.Helper()
	var ids []string
	seen := map[string]bool{}
	target := first
	var size any
	for n := 0; ; n++ {
		if n > 1000 {
			t.Fatal("more than 1000 pages")
		}
		_, v := e.getJSON(t, target, 200, headers...)
		for _, id := range dataIDs(v) {
			if seen[id] {
				t.Fatalf("%s: %s on two pages", first, id)
			}
			seen[id] = true
			ids = append(ids, id)
		}
		if total {
			if size != nil && v["total_size"] != size {
				t.Fatalf("total_size changed from %v to %v", size, v["total_size"])
			}
			size = v["total_size"]
		} else if _, ok := v["total_size"]; ok {
			t.Fatalf("%s has total_size", first)
		}
		tok, ok := v["next_page_token"].(string)
		if !ok {
			break
		}
		if tok == "" {
			t.Fatal("empty next_page_token; it must be absent on the last page")
		}
		target = first + "&page_token=" + url.QueryEscape(tok)
	}
	if total && size != float64(len(ids)) {
		t.Errorf("%s: total_size %v, saw %d", first, size, len(ids))
	}
	return ids
}

func TestPagingEveryCollection(t *testing.T) {
	e := newCatalogEdge(t, nil)
	allLangs := lang.All()
	var langIDs []string
	for _, l := range allLangs {
		langIDs = append(langIDs, l.ID)
	}
	cases := []struct {
		first string
		total bool
		want  []string
	}{
		{"/v1/bibles?language_ranges[]=*&page_size=1", true, []string{"9001", "9002", "9003"}},
		{"/v1/bibles?language_ranges[]=*&page_size=2&fields[]=title&fields[]=id", true, []string{"9001", "9002", "9003"}},
		{"/v1/languages?page_size=99", true, langIDs},
		{"/v1/languages?page_size=7&fields[]=id", true, langIDs},
		{"/v1/languages?page_size=3&country=ES&fields[]=id", true, lang.Prominent("ES")},
		{"/v1/languages?page_size=1&bibles_available=true&fields[]=id", true, []string{"en", "es", "he"}},
		{"/v1/organizations?page_size=1", false, []string{"e5aaf952-2601-4eb8-af08-bc2e48aa31fc", "e88fbc6b-9864-482f-a534-0f2e0251faeb"}},
		{"/v1/organizations/e5aaf952-2601-4eb8-af08-bc2e48aa31fc/bibles?page_size=1", true, []string{"9002", "9003"}},
	}
	for _, tc := range cases {
		t.Run(tc.first, func(t *testing.T) {
			got := pageAll(t, e, tc.first, tc.total)
			if tc.want == nil {
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %d items %.200v, want %d %.200v", len(got), got, len(tc.want), tc.want)
			}
		})
	}
}

func TestPageTokens(t *testing.T) {
	e := newCatalogEdge(t, nil)
	_, v := e.getJSON(t, "/v1/languages?page_size=2&fields[]=id", 200)
	tok := v["next_page_token"].(string)
	// Another query's token, a flipped byte, and junk are all 400 with a
	// message.
	flipped := []byte(tok)
	flipped[3] ^= 1
	for _, target := range []string{
		"/v1/languages?page_size=2&country=ES&page_token=" + tok,
		"/v1/bibles?language_ranges[]=*&page_token=" + tok,
		"/v1/languages?page_token=" + string(flipped),
		"/v1/languages?page_token=%00%01",
		"/v1/languages?page_token=" + strings.Repeat("A", 34),
	} {
		_, body := e.getJSON(t, target, 400)
		if body["message"] == "" {
			t.Errorf("%s: no message", target)
		}
	}
	// A token from another edge process (another key) is refused too.
	other := newCatalogEdge(t, func(c *Config) { c.PageTokenKey = []byte("another key") })
	other.getJSON(t, "/v1/languages?page_size=2&fields[]=id&page_token="+tok, 400)
	// Page size and fields may change between pages.
	e.getJSON(t, "/v1/languages?page_size=9&page_token="+tok, 200)
}

func TestFieldsProjection(t *testing.T) {
	e := newCatalogEdge(t, nil)
	cases := []struct {
		target string
		want   []string
	}{
		{"/v1/bibles?language_ranges[]=en&fields[]=title&fields[]=id", []string{"id", "title"}},
		{"/v1/bibles?language_ranges[]=*&page_size=*&fields[]=id&fields[]=title&fields[]=language_tag", []string{"id", "language_tag", "title"}},
		{"/v1/languages?page_size=3&fields[]=localized_name&fields[]=id", []string{"id", "localized_name"}},
		{"/v1/languages?page_size=*&fields[]=id&fields[]=language", []string{"id", "language"}},
		{"/v1/organizations?fields[]=name", []string{"name"}},
		{"/v1/organizations/e5aaf952-2601-4eb8-af08-bc2e48aa31fc/bibles?fields[]=id", []string{"id"}},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			_, v := e.getJSON(t, tc.target, 200)
			for _, item := range v["data"].([]any) {
				var got []string
				for k := range item.(map[string]any) {
					got = append(got, k)
				}
				sort.Strings(got)
				if !slices.Equal(got, tc.want) {
					t.Errorf("fields %v, want %v", got, tc.want)
				}
			}
		})
	}
	_, v := e.getJSON(t, "/v1/languages?page_size=*&fields[]=id", 200)
	if n := len(v["data"].([]any)); n != len(lang.All()) || v["total_size"] != float64(n) {
		t.Errorf("page_size=* gave %d of %v", n, v["total_size"])
	}
	if _, ok := v["next_page_token"]; ok {
		t.Error("page_size=* has a next page")
	}
	for _, target := range []string{"/v1/languages?fields[]=ids", "/v1/organizations?fields[]=names", "/v1/languages?page_size=*", "/v1/languages?page_size=abc"} {
		_, v := e.getJSON(t, target, 422)
		if v["detail"] == nil {
			t.Errorf("%s: no detail", target)
		}
	}
}

func TestLanguageRedirects(t *testing.T) {
	e := newCatalogEdge(t, nil)
	cases := []struct{ from, to string }{
		{"iw", "he"}, {"in", "id"}, {"tl", "fil"}, {"por", "pt"}, {"eng", "en"},
		{"zh-TW", "zh-Hant-TW"}, {"zh-HK", "zh-Hant-HK"}, {"zh-Hans", "zh"}, {"sr-Cyrl", "sr"},
		{"es-MX", "es"}, {"pt-br", "pt-BR"}, {"EN", "en"}, {"en-US-u-ca-gregory", "en"}, {"en-US", "en"},
		// Canonical ids answer directly.
		{"sr-Latn", ""}, {"es-419", ""}, {"pt-BR", ""}, {"zh-Hant-TW", ""}, {"en", ""}, {"he", ""},
	}
	for _, tc := range cases {
		t.Run(tc.from, func(t *testing.T) {
			resp, body := e.do(t, "GET", "/v1/languages/"+tc.from+"?x=1", "X-SVC-App-Key: "+keyDemo)
			if tc.to == "" {
				if resp.StatusCode != 200 {
					t.Fatalf("status %d %s, want 200", resp.StatusCode, body)
				}
				var v map[string]any
				json.Unmarshal(body, &v)
				if v["id"] != tc.from {
					t.Errorf("id %v", v["id"])
				}
				return
			}
			if resp.StatusCode != 301 {
				t.Fatalf("status %d %s, want 301", resp.StatusCode, body)
			}
			if got, want := resp.Header.Get("Location"), "/v1/languages/"+tc.to+"?x=1"; got != want {
				t.Errorf("Location %q, want %q", got, want)
			}
		})
	}
	for _, id := range []string{"qqa", "und", "x-private", "en-", "a", strings.Repeat("a", 300)} {
		if resp, _ := e.do(t, "GET", "/v1/languages/"+id, "X-SVC-App-Key: "+keyDemo); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", id, resp.StatusCode)
		}
	}
}

func TestLanguageNegotiation(t *testing.T) {
	e := newCatalogEdge(t, nil)
	cases := []struct {
		accept, id, locale, name string
	}{
		{"fr-CH, fr;q=0.9, de;q=0.8, *;q=0.5", "en", "fr-CH", "anglais"},
		{"de", "en", "de", "Englisch"},
		{"", "en", "en", "English"},
		{"garbage;;q=x, ???", "en", "en", "English"},
		{"xx-YY, es;q=0.2", "de", "es", "alemán"},
		{"en;q=0, he", "en", "he", "אנגלית"},
	}
	for _, tc := range cases {
		resp, v := e.getJSON(t, "/v1/languages/"+tc.id, 200, "Accept-Language: "+tc.accept)
		if got := resp.Header.Get("Content-Language"); got != tc.locale {
			t.Errorf("%q: Content-Language %q, want %q", tc.accept, got, tc.locale)
		}
		if v["localized_name"] != tc.name {
			t.Errorf("%q: localized_name %v, want %q", tc.accept, v["localized_name"], tc.name)
		}
		if !strings.Contains(resp.Header.Get("Vary"), "Accept-Language") {
			t.Errorf("Vary %q", resp.Header.Get("Vary"))
		}
	}
	_, en := e.getJSON(t, "/v1/languages/en", 200)
	if en["default_bible_id"] != float64(9001) {
		t.Errorf("en default_bible_id %v, want 9001", en["default_bible_id"])
	}
	names := en["display_names"].(map[string]any)
	if names["fr"] != "anglais" || names["en"] != "English" {
		t.Errorf("display_names fr %v en %v", names["fr"], names["en"])
	}
	speak, write := en["speaking_population"].(float64), en["writing_population"].(float64)
	if speak < 1.64e9*0.9 || speak > 1.64e9*1.1 || write < 1.33e9*0.9 || write > 1.33e9*1.1 {
		t.Errorf("English populations %v speaking, %v writing", speak, write)
	}
	_, fr := e.getJSON(t, "/v1/languages/fr", 200)
	if _, ok := fr["default_bible_id"]; ok {
		t.Errorf("fr has default_bible_id %v without a Bible", fr["default_bible_id"])
	}
}

// TestCatalogueHTTP: the catalogue answers with the edge's HTTP semantics
// (ETag, 304, encodings, Vary, HEAD), needs a key, and refuses other
// methods.
func TestCatalogueHTTP(t *testing.T) {
	e := newCatalogEdge(t, nil)
	paths := []string{"/v1/bibles?language_ranges[]=*", "/v1/languages?page_size=3", "/v1/languages/en",
		"/v1/organizations", "/v1/organizations/e5aaf952-2601-4eb8-af08-bc2e48aa31fc",
		"/v1/organizations/e5aaf952-2601-4eb8-af08-bc2e48aa31fc/bibles", "/v1/fonts", "/v1/fonts/1",
		"/v1/fonts/1/stylesheet", "/v1/verse_of_the_days", "/v1/verse_of_the_days/60"}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			if resp, _ := e.do(t, "GET", p); resp.StatusCode != 401 {
				t.Errorf("without a key: %d", resp.StatusCode)
			}
			if resp, _ := e.do(t, "POST", p, "X-SVC-App-Key: "+keyDemo); resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("POST: %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
			}
			resp, plain := e.do(t, "GET", p, "X-SVC-App-Key: "+keyDemo)
			tag := resp.Header.Get("ETag")
			if resp.StatusCode != 200 || tag == "" || !strings.HasPrefix(tag, `"`) || !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
				t.Fatalf("GET: %d ETag %q Vary %q", resp.StatusCode, tag, resp.Header.Get("Vary"))
			}
			if resp, body := e.do(t, "GET", p, "X-SVC-App-Key: "+keyDemo, "If-None-Match: "+tag); resp.StatusCode != 304 || len(body) != 0 {
				t.Errorf("If-None-Match: %d", resp.StatusCode)
			}
			resp, _ = e.do(t, "GET", p, "X-SVC-App-Key: "+keyDemo, "Accept-Encoding: gzip")
			if len(plain) > 1000 && resp.Header.Get("Content-Encoding") != "gzip" {
				t.Errorf("gzip: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
			}
			if resp, body := e.do(t, "HEAD", p, "X-SVC-App-Key: "+keyDemo); resp.StatusCode != 200 || len(body) != 0 {
				t.Errorf("HEAD: %d, %d bytes", resp.StatusCode, len(body))
			}
			// The same request again is the same representation.
			if resp, again := e.do(t, "GET", p, "X-SVC-App-Key: "+keyDemo); resp.Header.Get("ETag") != tag || string(again) != string(plain) {
				t.Error("a second GET differs")
			}
		})
	}
	// The list of Bibles an app may read is the app's own.
	resp, _ := e.do(t, "GET", "/v1/bibles?language_ranges[]=*", "X-SVC-App-Key: "+keyDemo)
	if cc := resp.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
		t.Errorf("licensed Bible list Cache-Control %q", cc)
	}
	resp, _ = e.do(t, "GET", "/v1/bibles?language_ranges[]=*&all_available=true", "X-SVC-App-Key: "+keyDemo)
	if cc := resp.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "public") {
		t.Errorf("all_available Cache-Control %q", cc)
	}
	for _, p := range []string{"/v1/bibles/", "/v1/languages/", "/v1/languages/en/x", "/v1/fonts/1/x", "/v1/organizations/x/y", "/v1/verse_of_the_days/1/2"} {
		if resp, _ := e.do(t, "GET", p, "X-SVC-App-Key: "+keyDemo); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
}

// TestBiblesWithoutSiteList: a build whose site pack does not list its
// Bibles (or that has no site pack) is listed from the Bibles' own packs.
func TestBiblesWithoutSiteList(t *testing.T) {
	e := newTestEdge(t, nil)
	_, v := e.getJSON(t, "/v1/bibles?language_ranges[]=*&fields[]=id", 200)
	if got := fmt.Sprint(dataIDs(v)); got != "[9001 9002 9003]" {
		t.Errorf("Bibles %s", got)
	}
	_, v = e.getJSON(t, "/v1/organizations", 200)
	if len(v["data"].([]any)) != 0 {
		t.Errorf("organizations without a site pack: %v", v)
	}
}
