package acceptance

import (
	"strings"

	"github.com/bibleplatform/platform/openapi"
)

// surfaceRules: the developer surface of issue 16, the OpenAPI document
// and the reader page with its assets, as a developer's browser or tool
// meets them. Their answers are checked against the document like all.
func surfaceRules(e *env) {
	e.rule("edge/openapi.served", func(c *C) {
		want, err := openapi.JSON()
		if err != nil {
			c.Fatalf("%v", err)
		}
		r := c.get("/v1/openapi.json", hdr{"X-SVC-App-Key": ""})
		c.status(r, 200)
		if string(r.body) != string(want) {
			c.Errorf("/v1/openapi.json is not the repository's openapi/openapi.yaml")
		}
		etag := r.h.Get("ETag")
		again := c.get("/v1/openapi.json", hdr{"X-SVC-App-Key": "", "If-None-Match": etag})
		c.status(again, 304)
		y := c.get("/v1/openapi.yaml", hdr{"X-SVC-App-Key": ""})
		c.status(y, 200)
		if string(y.body) != string(openapi.YAML) {
			c.Errorf("/v1/openapi.yaml is not the repository's openapi/openapi.yaml")
		}
		gz := c.get("/v1/openapi.json", hdr{"X-SVC-App-Key": "", "Accept-Encoding": "br"})
		c.header(gz, "Content-Encoding", "br")
	})
	e.rule("edge/reader.page", func(c *C) {
		r := c.get("/", hdr{"X-SVC-App-Key": ""})
		c.status(r, 200)
		page := string(r.body)
		for _, asset := range []string{"passage.css", "reader.css", "reader.js"} {
			if !strings.Contains(page, "/"+asset+`"`) || !strings.Contains(page, `"/assets/`) {
				c.Errorf("the page does not link %s", asset)
			}
		}
		cfg := c.get("/reader/config.json", hdr{"X-SVC-App-Key": ""})
		c.status(cfg, 200)
		if v := c.json(cfg, nil); str(obj(v)["app_key"]) != c.e.demo.AppKey {
			c.Errorf("/reader/config.json does not give the demo key make run passes")
		}
	})
	e.rule("edge/reader.passage-css-is-versioned-and-immutable", func(c *C) {
		r := c.get("/assets/passage.css", hdr{"X-SVC-App-Key": ""})
		c.status(r, 302)
		loc := r.h.Get("Location")
		if !strings.HasPrefix(loc, "/assets/") || !strings.HasSuffix(loc, "/passage.css") || loc == "/assets/passage.css" {
			c.Fatalf("Location %q, want /assets/<hash>/passage.css", loc)
		}
		css := c.get(loc, hdr{"X-SVC-App-Key": ""})
		c.status(css, 200)
		c.header(css, "Cache-Control", "public, max-age=31536000, immutable")
		if !strings.HasPrefix(css.h.Get("Content-Type"), "text/css") || !strings.Contains(string(css.body), ".yv-vlbl") {
			c.Errorf("%s is not the passage stylesheet", loc)
		}
		old := c.get("/assets/000000000000/passage.css", hdr{"X-SVC-App-Key": ""})
		c.status(old, 301)
		c.header(old, "Location", loc)
	})
}
