package acceptance

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// catalogueRules: the Bibles collection, languages, organizations, fonts
// and verse of the day.
func catalogueRules(e *env, fx *fixtures) {
	bibles := collection(bibleSchema, true, true)
	ids := func(v any) []int {
		var out []int
		for _, b := range arr(obj(v)["data"]) {
			out = append(out, int(num(obj(b)["id"])))
		}
		sort.Ints(out)
		return out
	}
	e.rule("catalogue/401.routes-need-a-key", func(c *C) {
		for _, p := range []string{"/v1/bibles?language_ranges[]=en", "/v1/languages", "/v1/languages/en",
			"/v1/organizations", "/v1/fonts", "/v1/fonts/1", "/v1/verse_of_the_days"} {
			r := c.get(p, noKey)
			if r.status != 401 {
				c.Errorf("%s, want 401", r)
			}
		}
	})
	e.rule("catalogue/bibles.by-language", func(c *C) {
		r := c.get("/v1/bibles?language_ranges[]=en", nil)
		c.status(r, 200)
		v := c.json(r, bibles)
		if got := ids(v); fmt.Sprint(got) != "[9001]" {
			c.Errorf("language_ranges[]=en: Bibles %v, want [9001]", got)
		}
		if n := num(obj(v)["total_size"]); n != 1 {
			c.Errorf("total_size %d, want 1", n)
		}
	})
	e.rule("catalogue/bibles.first-range-with-bibles-wins", func(c *C) {
		r := c.get("/v1/bibles?language_ranges[]=fr&language_ranges[]=es&language_ranges[]=en", nil)
		c.status(r, 200)
		if got := ids(c.json(r, bibles)); fmt.Sprint(got) != "[9002]" {
			c.Errorf("fr, es, en: Bibles %v, want [9002] (from es, the first range with Bibles)", got)
		}
	})
	e.rule("catalogue/bibles.wildcard", func(c *C) {
		r := c.get("/v1/bibles?language_ranges[]=*", nil)
		c.status(r, 200)
		if got := ids(c.json(r, bibles)); fmt.Sprint(got) != "[9001 9002 9003]" {
			c.Errorf("language_ranges[]=*: Bibles %v, want all three", got)
		}
	})
	e.rule("catalogue/bibles.no-bibles-204", func(c *C) {
		r := c.get("/v1/bibles?language_ranges[]=fr", nil)
		if r.status == 204 {
			c.emptyBody(r)
			return
		}
		c.status(r, 200)
		if got := ids(c.json(r, bibles)); len(got) != 0 {
			c.Errorf("language_ranges[]=fr: Bibles %v, want none", got)
		}
	})
	e.rule("catalogue/bibles.license_id", func(c *C) {
		r := c.get("/v1/bibles?language_ranges[]=*&license_id=2", nil)
		c.status(r, 200)
		want := keysInt(fx.biblesUnder(2))
		if got := ids(c.json(r, bibles)); fmt.Sprint(got) != fmt.Sprint(want) {
			c.Errorf("license_id=2: Bibles %v, want %v", got, want)
		}
	})
	e.rule("catalogue/bibles.all_available", func(c *C) {
		un := hdr{"X-SVC-App-Key": e.demo.UnlicensedAppKey}
		r := c.get("/v1/bibles?language_ranges[]=es", un)
		if r.status == 200 {
			if got := ids(c.json(r, bibles)); len(got) != 0 {
				c.Errorf("the unlicensed app lists Bibles %v in es without all_available", got)
			}
		} else {
			c.status(r, 204)
		}
		r = c.get("/v1/bibles?language_ranges[]=es&all_available=true", un)
		c.status(r, 200)
		if got := ids(c.json(r, bibles)); fmt.Sprint(got) != "[9002]" {
			c.Errorf("all_available=true: Bibles %v, want [9002]", got)
		}
	})
	e.rule("catalogue/bibles.paging", func(c *C) {
		seen := map[int]bool{}
		token := ""
		for page := 0; page < 5; page++ {
			p := "/v1/bibles?language_ranges[]=*&page_size=1"
			if token != "" {
				p += "&page_token=" + url.QueryEscape(token)
			}
			r := c.get(p, nil)
			c.status(r, 200)
			v := obj(c.json(r, bibles))
			for _, id := range ids(v) {
				if seen[id] {
					c.Errorf("Bible %d on two pages", id)
				}
				seen[id] = true
			}
			if n := len(arr(v["data"])); n > 1 {
				c.Errorf("page_size=1 gave %d items", n)
			}
			token = str(v["next_page_token"])
			if token == "" {
				break
			}
		}
		if len(seen) != 3 {
			c.Errorf("paging with page_size=1 saw %d Bibles, want 3", len(seen))
		}
	})
	e.rule("catalogue/bibles.fields", func(c *C) {
		r := c.get("/v1/bibles?language_ranges[]=*&fields[]=id&fields[]=title", nil)
		c.status(r, 200)
		c.json(r, collection(only(bibleSchema, "id", "title"), true, true))
		r = c.get("/v1/bibles?language_ranges[]=*&page_size=*&fields[]=id&fields[]=title&fields[]=language_tag", nil)
		c.status(r, 200)
		if got := ids(c.json(r, collection(only(bibleSchema, "id", "title", "language_tag"), true, true))); len(got) != 3 {
			c.Errorf("page_size=* gave %v, want all three Bibles", got)
		}
	})
	e.rule("catalogue/bibles.422", func(c *C) {
		c.wantLoc(c.get("/v1/bibles", nil), "language_ranges[]")
		for _, q := range []string{"page_size=0", "page_size=100", "page_size=abc", "page_size=*"} {
			c.wantLoc(c.get("/v1/bibles?language_ranges[]=en&"+q, nil), "page_size")
		}
		c.wantLoc(c.get("/v1/bibles?language_ranges[]=en&license_id=abc", nil), "license_id")
		c.wantLoc(c.get("/v1/bibles?language_ranges[]=en&all_available=perhaps", nil), "all_available")
	})
	e.rule("catalogue/bibles.400-bad-language-range", func(c *C) {
		for _, q := range []string{"en_US", "en%20US", "en.*"} {
			c.errMessage(c.get("/v1/bibles?language_ranges[]="+q, nil), 400)
		}
	})
	e.rule("catalogue/bibles.405", func(c *C) {
		r := c.do("POST", "/v1/bibles", nil, "{}")
		c.status(r, 405)
	})

	languages := collection(languageSchema, true, true)
	e.rule("catalogue/languages", func(c *C) {
		r := c.get("/v1/languages", nil)
		c.status(r, 200)
		v := obj(c.json(r, languages))
		if r.h.Get("Content-Language") == "" {
			c.Errorf("no Content-Language header")
		}
		if num(v["total_size"]) < int64(len(arr(v["data"]))) {
			c.Errorf("total_size %v smaller than the page", v["total_size"])
		}
		for _, l := range arr(v["data"]) {
			checkScript(c, obj(l))
		}
	})
	e.rule("catalogue/languages.paging", func(c *C) {
		r := c.get("/v1/languages?page_size=5", nil)
		c.status(r, 200)
		first := obj(c.json(r, languages))
		if n := len(arr(first["data"])); n != 5 {
			c.Errorf("page_size=5 gave %d items", n)
		}
		tok := str(first["next_page_token"])
		if tok == "" {
			c.Fatalf("no next_page_token on the first page")
		}
		r = c.get("/v1/languages?page_size=5&page_token="+url.QueryEscape(tok), nil)
		c.status(r, 200)
		second := obj(c.json(r, languages))
		a, b := arr(first["data"]), arr(second["data"])
		if len(b) == 0 || str(obj(a[0])["id"]) == str(obj(b[0])["id"]) {
			c.Errorf("the second page repeats the first")
		}
	})
	e.rule("catalogue/languages.fields-and-wildcard", func(c *C) {
		r := c.get("/v1/languages?page_size=*&fields[]=id&fields[]=language", nil)
		c.status(r, 200)
		v := obj(c.json(r, collection(only(languageSchema, "id", "language"), true, true)))
		if int64(len(arr(v["data"]))) != num(v["total_size"]) {
			c.Errorf("page_size=* gave %d of total_size %v", len(arr(v["data"])), v["total_size"])
		}
		c.wantLoc(c.get("/v1/languages?page_size=*", nil), "page_size")
		c.wantLoc(c.get("/v1/languages?page_size=100", nil), "page_size")
	})
	e.rule("catalogue/languages.country", func(c *C) {
		r := c.get("/v1/languages?country=ES&page_size=99", nil)
		c.status(r, 200)
		var got []string
		for _, l := range arr(obj(c.json(r, languages))["data"]) {
			got = append(got, str(obj(l)["id"]))
		}
		if len(got) == 0 || !contains(got, "es") || contains(got, "ja") {
			c.Errorf("country=ES: %v, want Spain's languages (es, not ja)", got)
		}
	})
	e.rule("catalogue/languages.bibles_available", func(c *C) {
		r := c.get("/v1/languages?bibles_available=true&page_size=99", nil)
		c.status(r, 200)
		var got []string
		for _, l := range arr(obj(c.json(r, languages))["data"]) {
			got = append(got, str(obj(l)["id"]))
		}
		sort.Strings(got)
		if fmt.Sprint(got) != "[en es he]" {
			c.Errorf("bibles_available=true: %v, want [en es he]", got)
		}
	})
	e.rule("catalogue/language", func(c *C) {
		r := c.get("/v1/languages/en", hdr{"Accept-Language": "fr"})
		c.status(r, 200)
		l := obj(c.json(r, languageSchema))
		if str(l["id"]) != "en" || str(l["language"]) != "en" {
			c.Errorf("GET /v1/languages/en: id %q language %q", l["id"], l["language"])
		}
		checkScript(c, l)
		if got := r.h.Get("Content-Language"); got != "fr" {
			c.Errorf("Content-Language %q for Accept-Language: fr, want fr", got)
		}
		if ln := str(l["localized_name"]); ln != "anglais" {
			c.Errorf("localized_name %q in French, want anglais", ln)
		}
		r = c.get("/v1/languages/he", nil)
		c.status(r, 200)
		if d := str(obj(c.json(r, languageSchema))["text_direction"]); d != "rtl" {
			c.Errorf("he text_direction %q, want rtl", d)
		}
		r = c.get("/v1/languages/zh-Hant-TW", nil)
		c.status(r, 200)
		c.json(r, languageSchema)
	})
	e.rule("catalogue/language.301-to-canonical", func(c *C) {
		for from, to := range map[string]string{"iw": "he", "es-MX": "es", "zh-TW": "zh-Hant-TW", "EN": "en", "sr-Cyrl": "sr", "en-US": "en", "por": "pt"} {
			r := c.get("/v1/languages/"+from, nil)
			if r.status != 301 {
				c.Errorf("%s, want 301", r)
				continue
			}
			if loc := r.h.Get("Location"); !strings.HasSuffix(loc, "/v1/languages/"+to) {
				c.Errorf("%s redirects to %q, want …/v1/languages/%s", from, loc, to)
			}
		}
	})
	e.rule("catalogue/language.404", func(c *C) {
		if r := c.get("/v1/languages/qqa", nil); r.status != 404 {
			c.Errorf("%s, want 404", r)
		}
	})

	orgA, orgB := fx.bibles[9001].OrganizationID, fx.bibles[9002].OrganizationID
	e.rule("catalogue/organizations", func(c *C) {
		r := c.get("/v1/organizations", nil)
		c.status(r, 200)
		v := obj(c.json(r, collection(organizationSchema, true, false)))
		if len(arr(v["data"])) != len(fx.organizations) {
			c.Errorf("%d organizations, want %d", len(arr(v["data"])), len(fx.organizations))
		}
		r = c.get("/v1/organizations?bible_ids[]=9002", nil)
		c.status(r, 200)
		d := arr(obj(c.json(r, collection(organizationSchema, true, false)))["data"])
		if len(d) != 1 || str(obj(d[0])["id"]) != orgB {
			c.Errorf("bible_ids[]=9002: %d organizations, want only %s", len(d), orgB)
		}
	})
	e.rule("catalogue/organization.accept-language", func(c *C) {
		for _, tc := range []struct {
			org, accept, lang, contentLang string
		}{
			// orgA has no French description: the header must not claim
			// French alone for an English description.
			{orgA, "fr", "fr", "fr, en"},
			{orgA, "de", fx.organizations[orgA].PrimaryLanguage, fx.organizations[orgA].PrimaryLanguage},
			{orgB, "fr, en;q=0.5", "en", "en"},
			// No Accept-Language is the spec's default, English, which orgB
			// has although its primary language is Spanish.
			{orgB, "", "en", "en"},
			{orgB, "de", fx.organizations[orgB].PrimaryLanguage, fx.organizations[orgB].PrimaryLanguage},
		} {
			r := c.get("/v1/organizations/"+tc.org, hdr{"Accept-Language": tc.accept})
			c.status(r, 200)
			o := obj(c.json(r, organizationSchema))
			if want := fx.organizations[tc.org].Names[tc.lang]; str(o["name"]) != want {
				c.Errorf("organization %s, Accept-Language %q: name %q, want %q", tc.org, tc.accept, o["name"], want)
			}
			if got := r.h.Get("Content-Language"); got != tc.contentLang {
				c.Errorf("organization %s, Accept-Language %q: Content-Language %q, want %q", tc.org, tc.accept, got, tc.contentLang)
			}
		}
		c.errMessage(c.get("/v1/organizations/"+newUUID(), nil), 404)
		c.wantLoc(c.get("/v1/organizations/not-a-uuid", nil), "organization_id")
	})
	e.rule("catalogue/organization.bibles", func(c *C) {
		r := c.get("/v1/organizations/"+orgB+"/bibles", nil)
		c.status(r, 200)
		v := c.json(r, collection(bibleSchema, true, true))
		if got := ids(v); fmt.Sprint(got) != "[9002 9003]" {
			c.Errorf("Bibles of organization B %v, want [9002 9003]", got)
		}
	})

	font := fx.fonts[1]
	e.rule("catalogue/fonts", func(c *C) {
		r := c.get("/v1/fonts", nil)
		c.status(r, 200)
		d := arr(obj(c.json(r, collection(fontSchema, false, false)))["data"])
		if len(d) != len(fx.fonts) {
			c.Errorf("%d fonts, want %d", len(d), len(fx.fonts))
		}
		r = c.get("/v1/fonts/1", nil)
		c.status(r, 200)
		f := obj(c.json(r, fontSchema))
		if str(f["slug"]) != font.Slug || str(f["family"]) != font.Family || len(arr(f["variants"])) != len(font.Variants) {
			c.Errorf("font 1 %v, want the fixture's slug, family and %d variants", f, len(font.Variants))
		}
		c.errMessage(c.get("/v1/fonts/999", nil), 404)
		c.wantLoc(c.get("/v1/fonts/abc", nil), "font_id")
	})
	// The Host header must not reach an answer a shared cache keeps: font
	// URLs come from configuration, or the answer is private.
	e.rule("catalogue/fonts.host-header-not-in-public-answers", func(c *C) {
		for _, p := range []string{"/v1/fonts", "/v1/fonts/1", "/v1/fonts/1/stylesheet"} {
			req, err := http.NewRequest("GET", e.base+p, nil)
			if err != nil {
				c.Fatalf("%s: %v", p, err)
			}
			req.Host = "attacker.example"
			req.Header.Set("X-SVC-App-Key", e.demo.AppKey)
			r, err := e.client.Do(req)
			if err != nil {
				c.Fatalf("%s: %v", p, err)
			}
			body, _ := io.ReadAll(r.Body)
			r.Body.Close()
			if r.StatusCode == 200 && strings.Contains(string(body), "attacker.example") &&
				!strings.HasPrefix(r.Header.Get("Cache-Control"), "private") {
				c.Errorf("%s with Host: attacker.example: the host is in an answer cached as %q", p, r.Header.Get("Cache-Control"))
			}
		}
	})
	// A font file is immutable, and its 304 must say so too (RFC 9110
	// §15.4.5: a 304 carries the Cache-Control the 200 would).
	e.rule("catalogue/fonts.file-304-keeps-immutable", func(c *C) {
		r := c.get("/v1/fonts/1", nil)
		c.status(r, 200)
		var src string
		for _, v := range arr(obj(c.json(r, fontSchema))["variants"]) {
			for _, s := range arr(obj(v)["sources"]) {
				if src == "" {
					src = str(obj(s)["url"])
				}
			}
		}
		u, err := url.Parse(src)
		if err != nil || src == "" {
			c.Fatalf("font 1 has no usable source URL %q", src)
		}
		file := c.get(u.Path, noKey)
		c.status(file, 200)
		cc := file.h.Get("Cache-Control")
		if !strings.Contains(cc, "immutable") {
			c.Errorf("font file Cache-Control %q, want immutable", cc)
		}
		again := c.get(u.Path, hdr{"X-SVC-App-Key": "", "If-None-Match": file.h.Get("ETag")})
		c.status(again, 304)
		if got := again.h.Get("Cache-Control"); got != cc {
			c.Errorf("font file 304 Cache-Control %q, want the 200's %q", got, cc)
		}
	})
	e.rule("catalogue/fonts.stylesheet-with-app_key-query", func(c *C) {
		r := c.get("/v1/fonts/1/stylesheet?app_key="+url.QueryEscape(e.demo.AppKey), noKey)
		c.status(r, 200)
		if ct := r.h.Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
			c.Errorf("stylesheet Content-Type %q, want text/css", ct)
		}
		css := string(r.body)
		if n := strings.Count(css, "@font-face"); n != len(font.Variants) {
			c.Errorf("%d @font-face rules, want %d", n, len(font.Variants))
		}
		if !strings.Contains(css, "woff2") || !strings.Contains(css, font.Family) {
			c.Errorf("stylesheet without woff2 URLs or the family name: %.200q", css)
		}
		if r := c.get("/v1/fonts/1/stylesheet", noKey); r.status != 401 {
			c.Errorf("%s, want 401", r)
		}
	})
	e.rule("catalogue/verse-of-the-day", func(c *C) {
		// The live service's canonical path, then the spec's, a deprecated
		// alias (live-routes.md).
		for _, base := range []string{"/v1/verse-of-the-days", "/v1/verse_of_the_days"} {
			r := c.get(base, nil)
			c.status(r, 200)
			d := arr(obj(c.json(r, collection(votdSchema, false, false)))["data"])
			if len(d) != len(fx.votd) {
				c.Errorf("%d days, want %d", len(d), len(fx.votd))
			}
			alias := base == "/v1/verse_of_the_days"
			if dep, link := r.h.Get("Deprecation"), r.h.Get("Link"); alias != (dep == "true" && link == `</v1/verse-of-the-days>; rel="successor-version"`) {
				c.Errorf("%s: Deprecation %q Link %q", base, dep, link)
			}
			for _, day := range []int{1, 60, 366} {
				r := c.get(fmt.Sprintf("%s/%d", base, day), nil)
				c.status(r, 200)
				v := obj(c.json(r, votdSchema))
				if num(v["day"]) != int64(day) || str(v["passage_id"]) != fx.votd[day-1].PassageID {
					c.Errorf("day %d: %v, want %s", day, v, fx.votd[day-1].PassageID)
				}
			}
			// The issue makes a day outside 1..366 a 404 (no such day, like a
			// verse past a chapter's end); a day that is not a number is 422.
			c.errMessage(c.get(base+"/367", nil), 404)
			c.errMessage(c.get(base+"/0", nil), 404)
			c.wantLoc(c.get(base+"/abc", nil), "day")
		}
	})
}

// checkScript: "script: present if in id".
func checkScript(c *C, l map[string]any) {
	id := str(l["id"])
	parts := strings.Split(id, "-")
	if len(parts) >= 2 && len(parts[1]) == 4 {
		if str(l["script"]) != parts[1] {
			c.Errorf("language %s: script %v, want %s", id, l["script"], parts[1])
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
