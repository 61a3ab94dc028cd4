package acceptance

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

var passageMapSchema = tObject{req: map[string]schema{
	"id": s, "ids": tArray{min: 1, of: s}, "reference": s, "versification": s,
	"from": tObject{req: map[string]schema{"id": s, "versification": s}, opt: map[string]schema{"bible_id": i32}},
}}

var referencesSchema = tObject{req: map[string]schema{
	"query": s, "id": s, "ids": tArray{min: 1, of: s}, "reference": s,
}}

// mappingRules: passage ids taken in another numbering (issue: across
// translations), the map route and citations resolved. The fixtures'
// Bibles number as English Bibles do; the Hebrew numbering (org) counts
// Psalm 3's title as verse 1, so its PSA.3.2 is their PSA.3.1, the case
// of the WEB's PSA.51.10 that is the UHB's PSA.51.12, seen from the other
// side.
func mappingRules(e *env) {
	e.rule("edge/map.passage-from-versification", func(c *C) {
		r := c.get("/v1/bibles/9001/passages/PSA.3.2?from_versification=org", nil)
		c.status(r, 200)
		p := obj(c.json(r, passageSchema))
		own := obj(c.json(c.get("/v1/bibles/9001/passages/PSA.3.1", nil), passageSchema))
		if str(p["id"]) != "PSA.3.1" || str(p["content"]) != str(own["content"]) || str(p["reference"]) != str(own["reference"]) {
			c.Errorf("org PSA.3.2 = %v, want the Bible's own PSA.3.1 %v", p, own)
		}
	})
	e.rule("edge/map.range-and-verse-route", func(c *C) {
		r := c.get("/v1/bibles/9001/passages/PSA.3.2-4?from_versification=org&format=html", nil)
		c.status(r, 200)
		if id := str(obj(c.json(r, passageSchema))["id"]); id != "PSA.3.1-3" {
			c.Errorf("org PSA.3.2-4: id %q, want PSA.3.1-3", id)
		}
		v := c.get("/v1/bibles/9001/books/PSA/chapters/3/verses/2?from_versification=org", nil)
		c.status(v, 200)
		if id := str(obj(c.json(v, verseSchema))["passage_id"]); id != "PSA.3.1" {
			c.Errorf("verse route, org PSA 3:2: passage_id %q, want PSA.3.1", id)
		}
	})
	e.rule("edge/map.from-bible-id", func(c *C) {
		r := c.get("/v1/bibles/9001/passages/JHN.3.16?from_bible_id=9002", nil)
		c.status(r, 200)
		if id := str(obj(c.json(r, passageSchema))["id"]); id != "JHN.3.16" {
			c.Errorf("JHN.3.16 from 9002: id %q", id)
		}
	})
	e.rule("edge/map.ids", func(c *C) {
		r := c.get("/v1/bibles/9001/map/PSA.3.2-4?from_versification=org", nil)
		c.status(r, 200)
		m := obj(c.json(r, passageMapSchema))
		if str(m["id"]) != "PSA.3.1-3" || str(m["versification"]) != "eng" || str(obj(m["from"])["versification"]) != "org" {
			c.Errorf("map org PSA.3.2-4 = %v, want PSA.3.1-3 in eng", m)
		}
	})
	e.rule("edge/map.errors", func(c *C) {
		c.wantLoc(c.get("/v1/bibles/9001/passages/JHN.3.16?from_versification=kjv", nil), "from_versification")
		c.wantLoc(c.get("/v1/bibles/9001/passages/JHN.3.16?from_bible_id=x", nil), "from_bible_id")
		c.errMessage(c.get("/v1/bibles/9001/passages/JHN.3.16?from_bible_id=424242", nil), 404)
		c.errMessage(c.get("/v1/bibles/9001/passages/PSA.3.1?from_versification=org", nil), 404)
		c.wantLoc(c.get("/v1/bibles/9001/map/PSA.3.2", nil), "from_bible_id")
	})
	e.rule("edge/references.resolve", func(c *C) {
		r := c.get("/v1/bibles/9001/references?query="+url.QueryEscape("John 3:16-17, 19; Ps 1:1-end"), nil)
		c.status(r, 200)
		v := obj(c.json(r, referencesSchema))
		if str(v["id"]) != "JHN.3.16-17,JHN.3.19,PSA.1.1-6" {
			c.Errorf("references = %v", v)
		}
		c.wantLoc(c.get("/v1/bibles/9001/references?query="+url.QueryEscape("John 3:16; Hezekiah 4"), nil), "query")
		c.wantLoc(c.get("/v1/bibles/9001/references", nil), "query")
	})
	e.rule("edge/references.passage-names-the-id-meant", func(c *C) {
		m := c.errMessage(c.get("/v1/bibles/9001/passages/"+url.PathEscape("John 3:16"), nil), 404)
		if !strings.Contains(m, "JHN.3.16") {
			c.Errorf("message %q does not name JHN.3.16", m)
		}
	})
}

var votdInSchema = tObject{req: map[string]schema{"day": i32, "passage_id": s, "bible_id": i32}}

// votdInRules: the verse of the day in one Bible's numbering.
func votdInRules(e *env) {
	e.rule("catalog/votd.in-a-bible", func(c *C) {
		r := c.get("/v1/verse-of-the-days/2?bible_id=9002", nil)
		c.status(r, 200)
		v := obj(c.json(r, votdInSchema))
		if str(v["passage_id"]) != "JHN.3.16" || num(v["bible_id"]) != 9002 {
			c.Errorf("day 2 in 9002 = %v, want JHN.3.16", v)
		}
		cal := obj(c.json(c.get("/v1/verse-of-the-days?bible_id=9002", nil), tObject{req: map[string]schema{"data": tArray{min: 1, of: votdInSchema}}}))
		for _, d := range cal["data"].([]any) {
			if id := str(obj(d)["passage_id"]); strings.HasPrefix(id, "TOB.") {
				c.Errorf("the calendar in 9002, which has no Tobit, lists %s", id)
			}
		}
		c.wantLoc(c.get("/v1/verse-of-the-days/2?bible_id=x", nil), "bible_id")
		c.errMessage(c.get("/v1/verse-of-the-days/2?bible_id=424242", nil), 404)
	})
}

// listRules: a passage id that is a list of passages.
func listRules(e *env) {
	e.rule("edge/passage.list", func(c *C) {
		r := c.get("/v1/bibles/9001/passages/JHN.3.16,JHN.3.18-19", nil)
		c.status(r, 200)
		p := obj(c.json(r, passageSchema))
		one := obj(c.json(c.get("/v1/bibles/9001/passages/JHN.3.16", nil), passageSchema))
		two := obj(c.json(c.get("/v1/bibles/9001/passages/JHN.3.18-19", nil), passageSchema))
		want := str(one["content"]) + "\n\n" + str(two["content"])
		if str(p["id"]) != "JHN.3.16,JHN.3.18-19" || str(p["content"]) != want {
			c.Errorf("list = %v, want id JHN.3.16,JHN.3.18-19 and content %q", p, want)
		}
		c.wantLoc(c.get("/v1/bibles/9001/passages/JHN.3.16,JHN.INTRO", nil), "passage_id_path")
		c.errMessage(c.get("/v1/bibles/9001/passages/"+strings.Repeat("PSA.1,", 40)+"PSA.1", nil), 400)
	})
}

// absentSchema is a Bible of a parallel passage, or of one of its rows,
// that has no verse of it.
var absentSchema = tObject{req: map[string]schema{"bible_id": i32, "absent": tTrue{}}}

var parallelSchema = tObject{req: map[string]schema{
	"id":   s,
	"from": tObject{req: map[string]schema{"versification": s}, opt: map[string]schema{"bible_id": i32}},
	"data": tArray{min: 1, of: tAny{tObject{req: map[string]schema{"bible_id": i32, "id": s, "content": s, "reference": s}}, absentSchema}},
}}

// parallelRules: one passage in several Bibles.
func parallelRules(e *env) {
	e.rule("edge/passages.parallel", func(c *C) {
		r := c.get("/v1/passages/JHN.3.16?bible_ids[]=9001&bible_ids[]=9002&format=html", nil)
		c.status(r, 200)
		v := obj(c.json(r, parallelSchema))
		data := v["data"].([]any)
		for i, id := range []int{9001, 9002} {
			own := obj(c.json(c.get(fmt.Sprintf("/v1/bibles/%d/passages/JHN.3.16?format=html", id), nil), passageSchema))
			got := obj(data[i])
			if num(got["bible_id"]) != int64(id) || str(got["content"]) != str(own["content"]) {
				c.Errorf("parallel item %d = %v, want Bible %d's own JHN.3.16 %v", i, got, id, own)
			}
		}
		c.wantLoc(c.get("/v1/passages/JHN.3.16", nil), "bible_ids[]")
	})
	e.rule("edge/passages.parallel.verse", func(c *C) {
		r := c.get("/v1/passages/JHN.3.16-17?bible_ids[]=9001&bible_ids[]=9002&align=verse", nil)
		c.status(r, 200)
		v := obj(c.json(r, parallelVersesSchema))
		rows := v["verses"].([]any)
		if len(rows) != 2 {
			c.Errorf("JHN.3.16-17 verse by verse: %d rows, want 2", len(rows))
		}
		for _, row := range rows {
			for i, x := range obj(row)["texts"].([]any) {
				cell := obj(x)
				own := obj(c.json(c.get(fmt.Sprintf("/v1/bibles/%d/passages/%s", num(cell["bible_id"]), str(cell["id"])), nil), passageSchema))
				if id := []int64{9001, 9002}[i]; num(cell["bible_id"]) != id || str(cell["content"]) != str(own["content"]) {
					c.Errorf("row %v, cell %d = %v, want Bible %d's own %v", obj(row)["id"], i, cell, id, own)
				}
			}
		}
		// A verse the Bible lacks (the Hebrew numbering's title of Psalm
		// 3, a heading here) is absent, and the next row is its 3:1.
		r = c.get("/v1/passages/PSA.3.1-2?bible_ids[]=9001&from_versification=org&align=verse", nil)
		c.status(r, 200)
		var a struct {
			Verses []struct {
				ID    string
				Texts []struct {
					ID     string
					Absent bool
				}
			}
		}
		if err := json.Unmarshal(r.body, &a); err != nil || len(a.Verses) != 2 || !a.Verses[0].Texts[0].Absent ||
			a.Verses[1].ID != "PSA.3.2" || a.Verses[1].Texts[0].ID != "PSA.3.1" {
			c.Errorf("PSA.3.1-2 from org verse by verse = %s, want PSA.3.1 absent and PSA.3.2 as PSA.3.1", r.body)
		}
		c.wantLoc(c.get("/v1/passages/JHN.3.16?bible_ids[]=9001&align=verses", nil), "align")
	})
	// A Bible without a verse of the passage (9003 has no John 3) is
	// absent in data and in the rows, in its place; only a passage no
	// Bible has is 404.
	e.rule("edge/passages.parallel.absent", func(c *C) {
		for q, sch := range map[string]schema{"": parallelSchema, "&align=verse": parallelVersesSchema} {
			r := c.get("/v1/passages/JHN.3.16?bible_ids[]=9003&bible_ids[]=9001"+q, nil)
			c.status(r, 200)
			v := obj(c.json(r, sch))
			data := v["data"].([]any)
			if len(data) != 2 || obj(data[0])["absent"] != true || num(obj(data[0])["bible_id"]) != 9003 || str(obj(data[1])["id"]) != "JHN.3.16" {
				c.Errorf("JHN.3.16 across 9003 and 9001%s: data %v, want 9003 absent and 9001's JHN.3.16", q, data)
			}
			if q != "" {
				texts := obj(v["verses"].([]any)[0])["texts"].([]any)
				if len(texts) != 2 || obj(texts[0])["absent"] != true || str(obj(texts[1])["id"]) != "JHN.3.16" {
					c.Errorf("JHN.3.16 verse by verse: texts %v, want 9003 absent and 9001's JHN.3.16", texts)
				}
			}
		}
		c.errMessage(c.get("/v1/passages/JHN.3.16?bible_ids[]=9003&align=verse", nil), 404)
	})
	// A bridge (\v 3-4 of 9001's Tobit, verse 3 of its index) is one row
	// for the verses it covers, its text the Bible's own passage of the
	// bridge; a verse inside it, asked in a numbering, is the bridge.
	e.rule("edge/passages.parallel.bridge", func(c *C) {
		r := c.get("/v1/passages/TOB.1.2-5?bible_ids[]=9001&from_versification=eng&align=verse", nil)
		c.status(r, 200)
		rows := obj(c.json(r, parallelVersesSchema))["verses"].([]any)
		var ids []string
		for _, row := range rows {
			cell := obj(obj(row)["texts"].([]any)[0])
			ids = append(ids, str(obj(row)["id"])+"="+str(cell["id"]))
			own := obj(c.json(c.get("/v1/bibles/9001/passages/"+str(cell["id"]), nil), passageSchema))
			if str(cell["content"]) != str(own["content"]) {
				c.Errorf("row %v = %v, want 9001's own %v", obj(row)["id"], cell, own)
			}
		}
		if got := strings.Join(ids, " "); got != "TOB.1.2=TOB.1.2 TOB.1.3-4=TOB.1.3-4 TOB.1.5=TOB.1.5" {
			c.Errorf("TOB.1.2-5 verse by verse: rows %s, want the bridge TOB.1.3-4 as one", got)
		}
		p := obj(c.json(c.get("/v1/bibles/9001/passages/TOB.1.4?from_versification=eng", nil), passageSchema))
		if str(p["id"]) != "TOB.1.3-4" {
			c.Errorf("TOB.1.4 from eng = %v, want the bridge TOB.1.3-4", p)
		}
	})
}

// tTrue is the constant true: a flag present only when set.
type tTrue struct{}

func (tTrue) validate(path string, v any, errs *[]string) {
	if b, ok := v.(bool); !ok || !b {
		fail(errs, path, "want true, got %v", v)
	}
}

var parallelVersesSchema = tObject{req: map[string]schema{
	"id":   s,
	"from": parallelSchema.req["from"],
	"data": parallelSchema.req["data"],
	"verses": tArray{min: 1, of: tObject{req: map[string]schema{
		"id":    s,
		"texts": tArray{min: 1, of: tAny{tObject{req: map[string]schema{"bible_id": i32, "id": s, "content": s}}, absentSchema}},
	}}},
}}
