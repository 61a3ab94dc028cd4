package acceptance

import (
	"net/url"
	"strconv"
	"strings"
)

// Verse search, written from ../shared/reference/search-api.md: the
// answer's shape, paging, the 422s the clients' own checks imply, the
// licence 403, reference intent and typo correction, on both paths.

var verseSearchSchema = tObject{
	req: map[string]schema{
		"verses":       tArray{of: tObject{req: map[string]schema{"reference": verseRef}}},
		"did_you_mean": tArray{of: s},
		// Always present, as the live service sends them (live-routes.md).
		"user_intent": s, "search_instead_for": tNullable{s}, "next_page_token": tNullable{s},
	},
}

var verseSearchTextSchema = tObject{
	req: map[string]schema{
		"verses": tArray{of: tObject{req: map[string]schema{"reference": verseRef, "text": s,
			"matches": tArray{of: tObject{req: map[string]schema{"start": i32, "end": i32}}}}}},
		"did_you_mean": tArray{of: s},
		"user_intent":  s, "search_instead_for": tNullable{s}, "next_page_token": tNullable{s},
	},
}

func searchPath(base string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return base + "?" + v.Encode()
}

func refsOf(v any) []string {
	var out []string
	for _, x := range arr(obj(v)["verses"]) {
		out = append(out, str(obj(x)["reference"]))
	}
	return out
}

func searchRules(e *env) {
	paths := []string{"/v1-beta/search-verses", "/v1/search-verses"}
	e.rule("search/200.verse-search-shape", func(c *C) {
		for _, p := range paths {
			r := c.get(searchPath(p, "query", "God loved the world", "bible_id", "9001"), nil)
			c.status(r, 200)
			v := c.json(r, verseSearchSchema)
			if got := refsOf(v); len(got) == 0 || got[0] != "JHN.3.16" {
				c.Errorf("%s: verses %v, want JHN.3.16 first", p, got)
			}
			if it := str(obj(v)["user_intent"]); it != "text" {
				c.Errorf("%s: user_intent %q, want text", p, it)
			}
		}
	})
	e.rule("search/200.fields-text-adds-text-and-match-offsets", func(c *C) {
		r := c.get(searchPath(paths[1], "query", "loved world", "bible_id", "9001", "fields[]", "text"), nil)
		c.status(r, 200)
		v := c.json(r, verseSearchTextSchema)
		for _, x := range arr(obj(v)["verses"]) {
			text := []rune(str(obj(x)["text"]))
			ms := arr(obj(x)["matches"])
			if len(ms) < 2 {
				c.Errorf("%s: matches %v", str(obj(x)["reference"]), ms)
			}
			for _, m := range ms {
				s, e := num(obj(m)["start"]), num(obj(m)["end"])
				if s < 0 || e > int64(len(text)) || s >= e {
					c.Errorf("match %d-%d outside the text", s, e)
					continue
				}
				if w := strings.ToLower(string(text[s:e])); w != "loved" && w != "world" {
					c.Errorf("match %q is not a query word", w)
				}
			}
		}
	})
	e.rule("search/paging-neither-skips-nor-repeats", func(c *C) {
		all := refsOf(c.json(c.get(searchPath(paths[1], "query", "God", "bible_id", "9001", "page_size", "99"), nil), verseSearchSchema))
		seen := map[string]bool{}
		tok := ""
		for range 200 {
			kv := []string{"query", "God", "bible_id", "9001", "page_size", "3"}
			if tok != "" {
				kv = append(kv, "page_token", tok)
			}
			r := c.get(searchPath(paths[1], kv...), nil)
			c.status(r, 200)
			v := c.json(r, verseSearchSchema)
			for _, ref := range refsOf(v) {
				if seen[ref] {
					c.Errorf("%s returned twice", ref)
				}
				seen[ref] = true
			}
			if tok = str(obj(v)["next_page_token"]); tok == "" {
				break
			}
		}
		if len(seen) != len(all) || len(all) < 4 {
			c.Errorf("pages of 3 returned %d verses, one page of 99 %d", len(seen), len(all))
		}
		c.status(c.get(searchPath(paths[1], "query", "God", "bible_id", "9001", "page_token", "bm90LWEtdG9rZW4"), nil), 400)
	})
	e.rule("search/422.parameters", func(c *C) {
		for _, k := range []struct {
			param string
			kv    []string
		}{
			{"query", []string{"bible_id", "9001"}},
			{"query", []string{"query", "", "bible_id", "9001"}},
			{"query", []string{"query", strings.Repeat("x", 101), "bible_id", "9001"}},
			{"bible_id", []string{"query", "God"}},
			{"bible_id", []string{"query", "God", "bible_id", "0"}},
			{"bible_id", []string{"query", "God", "bible_id", "x"}},
			{"page_size", []string{"query", "God", "bible_id", "9001", "page_size", "0"}},
			{"page_size", []string{"query", "God", "bible_id", "9001", "page_size", "100"}},
			{"user_intent", []string{"query", "God", "bible_id", "9001", "user_intent", "maybe"}},
		} {
			for _, p := range paths {
				r := c.get(searchPath(p, k.kv...), nil)
				c.status(r, 422)
				c.wantLoc(r, k.param)
			}
		}
		// 100 characters is allowed.
		c.status(c.get(searchPath(paths[1], "query", strings.Repeat("x", 100), "bible_id", "9001"), nil), 200)
	})
	e.rule("search/401-412-404", func(c *C) {
		c.status(c.get(searchPath(paths[0], "query", "God", "bible_id", "9001"), noKey), 401)
		c.status(c.get(searchPath(paths[0], "query", "God", "bible_id", "9001"), hdr{"X-SVC-App-Key": e.demo.ArchivedAppKey}), 412)
		c.status(c.get(searchPath(paths[0], "query", "God", "bible_id", "424242"), nil), 404)
	})
	e.rule("search/403.unlicensed-bible", func(c *C) {
		bid := strconv.Itoa(e.demo.UnlicensedBibleID)
		m := c.errMessage(c.get(searchPath(paths[1], "query", "Dios", "bible_id", bid), hdr{"X-SVC-App-Key": e.demo.UnlicensedAppKey}), 403)
		if !strings.Contains(m, bid) {
			c.Errorf("403 message %q does not carry the refused Bible id %s", m, bid)
		}
		c.status(c.get(searchPath(paths[1], "query", "God", "bible_id", "9001"), hdr{"X-SVC-App-Key": e.demo.UnlicensedAppKey}), 200)
	})
	e.rule("search/reference-intent", func(c *C) {
		for _, k := range []struct{ bible, q, intent, want string }{
			{"9001", "John 3:16", "", "JHN.3.16"},
			{"9001", "jn 3 16", "unknown", "JHN.3.16"},
			{"9001", "John 3:16-17", "reference", "JHN.3.16 JHN.3.17"},
			{"9002", "Juan 3:16", "", "JHN.3.16"},
		} {
			v := c.json(c.get(searchPath(paths[1], "query", k.q, "bible_id", k.bible, "user_intent", k.intent), nil), verseSearchSchema)
			if got := strings.Join(refsOf(v), " "); got != k.want || str(obj(v)["user_intent"]) != "reference" {
				c.Errorf("%q in %s: verses %q, user_intent %q; want %q as a reference", k.q, k.bible, got, str(obj(v)["user_intent"]), k.want)
			}
		}
		// user_intent=text forces a text search.
		v := c.json(c.get(searchPath(paths[1], "query", "John 3:16", "bible_id", "9001", "user_intent", "text"), nil), verseSearchSchema)
		if str(obj(v)["user_intent"]) != "text" {
			c.Errorf("user_intent=text answered %q", str(obj(v)["user_intent"]))
		}
	})
	e.rule("search/typo-correction-and-diacritics", func(c *C) {
		v := c.json(c.get(searchPath(paths[1], "query", "God lovde", "bible_id", "9001"), nil), verseSearchSchema)
		if got := str(obj(v)["search_instead_for"]); got != "God loved" || len(refsOf(v)) == 0 {
			c.Errorf("search_instead_for %q with %d verses, want \"God loved\" with its verses", got, len(refsOf(v)))
		}
		// Spanish "Jesus" without its accent finds "Jesús".
		v = c.json(c.get(searchPath(paths[1], "query", "Jesus", "bible_id", "9002"), nil), verseSearchSchema)
		if len(refsOf(v)) == 0 {
			c.Errorf("Jesus in the Spanish Bible found nothing")
		}
	})
	e.rule("search/etag-304-and-compression", func(c *C) {
		p := searchPath(paths[1], "query", "God", "bible_id", "9001")
		r := c.get(p, hdr{"Accept-Encoding": "br"})
		c.status(r, 200)
		tag := r.h.Get("ETag")
		if tag == "" || r.h.Get("Cache-Control") == "" {
			c.Errorf("no ETag or Cache-Control: %v", r.h)
		}
		if ce := r.h.Get("Content-Encoding"); ce != "br" {
			c.Errorf("Content-Encoding %q, want br", ce)
		}
		c.status(c.get(p, hdr{"Accept-Encoding": "br", "If-None-Match": tag}), 304)
	})
}
