package edge

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/publish"
)

func TestOrganizations(t *testing.T) {
	e := newCatalogEdge(t, nil)
	const south, open = "e5aaf952-2601-4eb8-af08-bc2e48aa31fc", "e88fbc6b-9864-482f-a534-0f2e0251faeb"
	cases := []struct {
		id, accept, lang, name string
	}{
		// No French description: the header names both languages.
		{open, "fr", "fr, en", "Atelier des Écritures ouvertes"},
		{open, "fr-CA", "fr, en", "Atelier des Écritures ouvertes"},
		{open, "es", "es", "Taller de las Escrituras Abiertas"},
		{open, "de", "en", "Open Scripture Workshop"},
		{south, "fr, en;q=0.5", "en", "Southern Word Society"},
		// No Accept-Language is English (the spec's default), not the
		// primary language, when there is an English name.
		{south, "", "en", "Southern Word Society"},
		{south, "de", "es", "Sociedad de la Palabra del Sur"},
		{strings.ToUpper(south), "he", "he, es", "אגודת הדבר של הדרום"},
	}
	for _, tc := range cases {
		resp, v := e.getJSON(t, "/v1/organizations/"+tc.id, 200, "Accept-Language: "+tc.accept)
		if v["name"] != tc.name || resp.Header.Get("Content-Language") != tc.lang {
			t.Errorf("%s %q: name %v, Content-Language %q; want %q, %q", tc.id, tc.accept, v["name"],
				resp.Header.Get("Content-Language"), tc.name, tc.lang)
		}
		if _, ok := v["names"]; ok {
			t.Error("the source's names map leaks")
		}
	}
	_, v := e.getJSON(t, "/v1/organizations?bible_ids[]=9002", 200)
	if got := fmt.Sprint(dataIDs(v)); got != "["+south+"]" {
		t.Errorf("bible_ids[]=9002: %s", got)
	}
	_, v = e.getJSON(t, "/v1/organizations?bible_ids[]=9001&bible_ids[]=9003", 200)
	if got := len(dataIDs(v)); got != 2 {
		t.Errorf("bible_ids[]=9001,9003: %d organizations", got)
	}
	e.getJSON(t, "/v1/organizations?bible_ids[]=x", 422)
	e.getJSON(t, "/v1/organizations/not-a-uuid", 422)
	e.getJSON(t, "/v1/organizations/00000000-0000-4000-8000-000000000000", 404)
	e.getJSON(t, "/v1/organizations/00000000-0000-4000-8000-000000000000/bibles", 404)
}

func TestFonts(t *testing.T) {
	e := newCatalogEdge(t, nil)
	_, v := e.getJSON(t, "/v1/fonts", 200)
	if len(v["data"].([]any)) != 1 {
		t.Fatalf("fonts %v", v)
	}
	_, f := e.getJSON(t, "/v1/fonts/1", 200)
	if f["family"] != "Crimson Pro" || f["slug"] != "crimson-pro" {
		t.Errorf("font 1: %v", f)
	}
	var urls []string
	for _, vr := range f["variants"].([]any) {
		for _, src := range vr.(map[string]any)["sources"].([]any) {
			s := src.(map[string]any)
			if s["format"] != "woff2" {
				t.Errorf("format %v", s["format"])
			}
			urls = append(urls, s["url"].(string))
		}
	}
	if len(urls) != 3 {
		t.Fatalf("%d sources", len(urls))
	}
	// The URL is absolute and serves the file, immutable, without a key.
	u, err := url.Parse(urls[0])
	if err != nil || u.Scheme != "http" || u.Host != "edge.test" {
		t.Fatalf("font URL %q", urls[0])
	}
	resp, body := e.do(t, "GET", u.Path)
	want, _ := os.ReadFile(filepath.Join(repoRoot(t), "fixtures", "content", "fonts", "files", filepath.Base(u.Path)))
	if resp.StatusCode != 200 || string(body) != string(want) || resp.Header.Get("Content-Type") != "font/woff2" {
		t.Fatalf("font file: %d %s, %d bytes, want %d", resp.StatusCode, resp.Header.Get("Content-Type"), len(body), len(want))
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
		t.Errorf("font file Cache-Control %q", cc)
	}
	// Its 304 keeps the same Cache-Control (RFC 9110 §15.4.5).
	if r304, _ := e.do(t, "GET", u.Path, "If-None-Match: "+resp.Header.Get("ETag")); r304.StatusCode != 304 ||
		r304.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("font file revalidated: %d, Cache-Control %q; want 304 with the 200's", r304.StatusCode, r304.Header.Get("Cache-Control"))
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Error("font file without Access-Control-Allow-Origin: browsers refuse cross-origin fonts")
	}
	// An older hash is sent to the current file; an unknown file is 404.
	stale := "/v1/fonts/files/" + "0123456789abcdef/" + filepath.Base(u.Path)
	if resp, _ := e.do(t, "GET", stale); resp.StatusCode != 301 || resp.Header.Get("Location") != u.Path {
		t.Errorf("stale font URL: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := e.do(t, "GET", "/v1/fonts/files/"+"0123456789abcdef/nope.woff2"); resp.StatusCode != 404 {
		t.Errorf("unknown font file: %d", resp.StatusCode)
	}

	e.getJSON(t, "/v1/fonts/2", 404)
	e.getJSON(t, "/v1/fonts/abc", 422)
	for _, key := range []string{"", "?app_key=" + keyDemo} {
		headers := []string{}
		if key == "" {
			headers = append(headers, "X-SVC-App-Key: "+keyDemo)
		}
		resp, css := e.do(t, "GET", "/v1/fonts/1/stylesheet"+key, headers...)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
			t.Fatalf("stylesheet: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if n := strings.Count(string(css), "@font-face"); n != 3 {
			t.Errorf("%d @font-face", n)
		}
		for _, want := range []string{`font-family: "Crimson Pro";`, "font-display: swap;", `url("` + urls[0] + `") format("woff2")`, "font-style: italic;", "font-weight: 700;"} {
			if !strings.Contains(string(css), want) {
				t.Errorf("stylesheet lacks %s:\n%s", want, css)
			}
		}
	}
	if resp, _ := e.do(t, "GET", "/v1/fonts/1/stylesheet"); resp.StatusCode != 401 {
		t.Errorf("stylesheet without a key: %d", resp.StatusCode)
	}
	if resp, _ := e.do(t, "GET", "/v1/fonts/1/stylesheet?app_key=wrong"); resp.StatusCode != 401 {
		t.Errorf("stylesheet with a wrong key: %d", resp.StatusCode)
	}
	pub := newCatalogEdge(t, func(c *Config) { c.PublicURL = "https://api.example.org/" })
	resp, f = pub.getJSON(t, "/v1/fonts/1", 200)
	src := f["variants"].([]any)[0].(map[string]any)["sources"].([]any)[0].(map[string]any)["url"].(string)
	if !strings.HasPrefix(src, "https://api.example.org/v1/fonts/files/") {
		t.Errorf("with PublicURL: %s", src)
	}
	if cc := resp.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "public") {
		t.Errorf("font with PublicURL: Cache-Control %q, want public", cc)
	}
	// Without PublicURL the URLs come from the Host header: a shared cache
	// must not hand one client's Host to another.
	for _, p := range []string{"/v1/fonts", "/v1/fonts/1", "/v1/fonts/1/stylesheet"} {
		resp, _ := e.do(t, "GET", p, "X-SVC-App-Key: "+keyDemo)
		if cc := resp.Header.Get("Cache-Control"); resp.StatusCode != 200 || !strings.HasPrefix(cc, "private") {
			t.Errorf("%s built from the Host header: %d, Cache-Control %q; want 200, private", p, resp.StatusCode, cc)
		}
	}
}

func TestVerseOfTheDay(t *testing.T) {
	e := newCatalogEdge(t, nil)
	var calendar []publish.VerseOfTheDay
	b, _ := os.ReadFile(filepath.Join(repoRoot(t), "fixtures", "content", "verse_of_the_day.json"))
	if err := json.Unmarshal(b, &calendar); err != nil {
		t.Fatal(err)
	}
	// The live service's canonical path, and the spec's kept as an alias
	// that answers the same with Deprecation and its successor's Link.
	for _, base := range []string{"/v1/verse-of-the-days", "/v1/verse_of_the_days"} {
		alias := base == "/v1/verse_of_the_days"
		resp, v := e.getJSON(t, base, 200)
		if n := len(v["data"].([]any)); n != 366 || n != len(calendar) {
			t.Errorf("%s: %d days", base, n)
		}
		if dep, link := resp.Header.Get("Deprecation"), resp.Header.Get("Link"); alias != (dep == "true") || alias != (link == `</v1/verse-of-the-days>; rel="successor-version"`) {
			t.Errorf("%s: Deprecation %q Link %q", base, dep, link)
		}
		for _, d := range calendar {
			_, got := e.getJSON(t, fmt.Sprintf("%s/%d", base, d.Day), 200)
			if got["day"] != float64(d.Day) || got["passage_id"] != d.PassageID || len(got) != 2 {
				t.Errorf("day %d: %v, want %s", d.Day, got, d.PassageID)
			}
		}
		for target, want := range map[string]int{"0": 404, "367": 404, "-1": 404, "abc": 422,
			"+1": 404, "001": 404, "01": 404, "1.0": 422, "99999999999": 422} {
			resp, _ := e.getJSON(t, base+"/"+target, want)
			if alias != (resp.Header.Get("Deprecation") == "true") {
				t.Errorf("%s/%s: Deprecation %q", base, target, resp.Header.Get("Deprecation"))
			}
		}
	}
}
