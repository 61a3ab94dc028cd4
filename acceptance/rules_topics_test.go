package acceptance

import (
	"net/url"
	"strconv"
	"strings"
)

// Topic search and query suggestions, from ../shared/reference/search-api.md
// and docs/search.md, against the fixtures' topics (fixtures/content/topics).
var (
	topicSchema = tObject{req: map[string]schema{
		"id": tNullable{i32}, "text": s, "subtopics": tArray{of: s},
	}}
	topicsSchema = tObject{
		// All four always present, as the live service sends them.
		req: map[string]schema{"topics": tArray{of: topicSchema}, "did_you_mean": tArray{of: s},
			"search_instead_for": tNullable{s}, "total_size": i32},
	}
	suggestionsSchema = tObject{req: map[string]schema{"data": tArray{min: 1, of: tObject{
		req: map[string]schema{"text": s, "source": tNullable{s}},
	}}}}
)

func topicRules(e *env) {
	texts := func(v any) string {
		var out []string
		for _, t := range arr(obj(v)["topics"]) {
			out = append(out, str(obj(t)["text"]))
		}
		return strings.Join(out, ",")
	}
	topics := func(c *C, query, ranges string) any {
		r := c.get("/v1-beta/search-topics?query="+url.QueryEscape(query)+"&language_ranges[]="+ranges, nil)
		c.status(r, 200)
		return c.json(r, topicsSchema)
	}
	e.rule("search/topics.401-412", func(c *C) {
		for _, p := range []string{"/v1-beta/search-topics?query=love&language_ranges[]=en",
			"/v1/search-queries?query=lo&language_ranges[]=en", "/v1-beta/search-queries?trending=true&language_ranges[]=en"} {
			if r := c.get(p, noKey); r.status != 401 {
				c.Errorf("%s, want 401", r)
			}
			c.errMessage(c.get(p, hdr{"X-SVC-App-Key": e.demo.ArchivedAppKey}), 412)
		}
	})
	e.rule("search/topics.prefix", func(c *C) {
		v := topics(c, "lov", "en")
		if got := texts(v); got != "Love" {
			c.Errorf("lov: topics %q, want Love", got)
		}
		if instead := obj(v)["search_instead_for"]; instead != nil {
			c.Errorf("search_instead_for %v without a correction, want null", instead)
		}
	})
	e.rule("search/topics.typo", func(c *C) {
		v := topics(c, "forgivnes", "en")
		if got, instead := texts(v), str(obj(v)["search_instead_for"]); got != "Forgiveness" || instead != "forgiveness" {
			c.Errorf("forgivnes: topics %q instead of %q, want Forgiveness instead of forgiveness", got, instead)
		}
	})
	e.rule("search/topics.accents-folded", func(c *C) {
		if got := texts(topics(c, "salvacion", "es")); got != "Salvación" {
			c.Errorf("salvacion in es: %q, want Salvación", got)
		}
	})
	e.rule("search/topics.first-range-with-topics-wins", func(c *C) {
		if got := texts(topics(c, "amor", "fr&language_ranges[]=en&language_ranges[]=es")); got != "Amor" {
			c.Errorf("amor in fr, en, es: %q, want Amor (es)", got)
		}
	})
	e.rule("search/topics.nothing-is-an-empty-list", func(c *C) {
		if got := texts(topics(c, "zzzz", "en")); got != "" {
			c.Errorf("zzzz: %q, want no topics", got)
		}
	})
	e.rule("search/suggestions", func(c *C) {
		r := c.get("/v1-beta/search-queries?query=gen&language_ranges[]=en", nil)
		c.status(r, 200)
		v := c.json(r, suggestionsSchema)
		if first := obj(arr(obj(v)["data"])[0]); str(first["text"]) != "Genesis" {
			c.Errorf("gen: first suggestion %v, want Genesis", first)
		}
		if r.h.Get("ETag") == "" || !strings.HasPrefix(r.h.Get("Cache-Control"), "public") {
			c.Errorf("gen: ETag %q Cache-Control %q", r.h.Get("ETag"), r.h.Get("Cache-Control"))
		}
		if r2 := c.get("/v1-beta/search-queries?query=gen&language_ranges[]=en", hdr{"If-None-Match": r.h.Get("ETag")}); r2.status != 304 {
			c.Errorf("If-None-Match: %s, want 304", r2)
		}
	})
	e.rule("search/suggestions.none-204", func(c *C) {
		r := c.get("/v1/search-queries?query=zzqx&language_ranges[]=en", nil)
		c.status(r, 204)
		c.emptyBody(r)
	})
	e.rule("search/trending.shape", func(c *C) {
		r := c.get("/v1-beta/search-queries?trending=true&language_ranges[]=en", nil)
		if r.status == 204 {
			c.emptyBody(r)
			return
		}
		c.status(r, 200)
		c.json(r, suggestionsSchema)
	})
	e.rule("search/422.query-and-ranges", func(c *C) {
		long := strings.Repeat("a", 101)
		for p, param := range map[string]string{
			"/v1-beta/search-topics?language_ranges[]=en":                      "query",
			"/v1-beta/search-topics?query=&language_ranges[]=en":               "query",
			"/v1-beta/search-topics?query=" + long + "&language_ranges[]=en":   "query",
			"/v1-beta/search-topics?query=love":                                "language_ranges[]",
			"/v1-beta/search-queries?trending=yes-please&language_ranges[]=en": "trending",
		} {
			c.wantLoc(c.get(p, nil), param)
		}
	})
}

// unifiedRules: search-results, verses and topics together.
func unifiedRules(e *env) {
	unified := tObject{
		req: map[string]schema{"verses": tArray{of: tObject{req: map[string]schema{"reference": verseRef}}},
			"topics": tArray{of: topicSchema}, "user_intent": s, "did_you_mean": tArray{of: s},
			"search_instead_for": tNullable{s}},
	}
	e.rule("search/results.verses-and-topics", func(c *C) {
		r := c.get("/v1-beta/search-results?query=light&bible_id=9001&language_ranges[]=en&user_intent=unknown", nil)
		c.status(r, 200)
		v := obj(c.json(r, unified))
		if len(arr(v["verses"])) == 0 || len(arr(v["topics"])) == 0 {
			c.Errorf("light in 9001: %d verses, %d topics; want both", len(arr(v["verses"])), len(arr(v["topics"])))
		}
	})
	e.rule("search/results.fields", func(c *C) {
		r := c.get("/v1/search-results?query=light&bible_id=9001&language_ranges[]=en&fields[]=topics", nil)
		c.status(r, 200)
		v := obj(c.json(r, unified))
		if len(arr(v["verses"])) != 0 || len(arr(v["topics"])) == 0 {
			c.Errorf("fields[]=topics: %d verses, %d topics; want topics only", len(arr(v["verses"])), len(arr(v["topics"])))
		}
	})
	e.rule("search/results.reference-intent", func(c *C) {
		r := c.get("/v1-beta/search-results?query="+url.QueryEscape("John 3:16")+"&bible_id=9001&language_ranges[]=en", nil)
		c.status(r, 200)
		v := obj(c.json(r, unified))
		if str(v["user_intent"]) != "reference" || len(arr(v["verses"])) != 1 || str(obj(arr(v["verses"])[0])["reference"]) != "JHN.3.16" {
			c.Errorf("John 3:16: %v", v)
		}
	})
	e.rule("search/results.403-unlicensed-bible", func(c *C) {
		un := hdr{"X-SVC-App-Key": e.demo.UnlicensedAppKey}
		c.errMessage(c.get("/v1-beta/search-results?query=luz&bible_id="+strconv.Itoa(e.demo.UnlicensedBibleID)+"&language_ranges[]=es", un), 403)
	})
	e.rule("search/results.422", func(c *C) {
		for p, param := range map[string]string{
			"/v1-beta/search-results?query=x&language_ranges[]=en":            "bible_id",
			"/v1-beta/search-results?query=x&bible_id=9001&fields[]=text":     "fields[]",
			"/v1-beta/search-results?query=x&bible_id=9001&user_intent=guess": "user_intent",
			"/v1-beta/search-results?query=x&bible_id=0":                      "bible_id",
			"/v1-beta/search-results?bible_id=9001&language_ranges[]=en":      "query",
		} {
			c.wantLoc(c.get(p, nil), param)
		}
	})
	// A language range the spec does not allow is 400 on every route that
	// takes one, as on the Bibles collection.
	e.rule("search/400-bad-language-range", func(c *C) {
		for _, p := range []string{
			"/v1-beta/search-results?query=x&bible_id=9001&language_ranges[]=not_valid",
			"/v1/search-unified?query=x&bible_id=9001&language_ranges[]=en.*",
			"/v1-beta/search-queries?query=lo&language_ranges[]=en_US",
			"/v1/search-topics?query=love&language_ranges[]=en%20US",
		} {
			c.errMessage(c.get(p, nil), 400)
		}
	})
}
