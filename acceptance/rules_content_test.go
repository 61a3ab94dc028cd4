package acceptance

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

var noKey = hdr{"X-SVC-App-Key": ""}

// keyRules: Authentication 1 and 5, and the 412 row of Errors.
func keyRules(e *env) {
	var missing, unknown string
	e.rule("keys/401.missing-key", func(c *C) {
		r := c.get("/v1/bibles/9001", noKey)
		c.status(r, 401)
		v := c.json(r, faultSchema)
		missing = str(obj(obj(obj(v)["fault"])["detail"])["errorcode"])
		c.noCORS(r)
	})
	e.rule("keys/401.unknown-key", func(c *C) {
		r := c.get("/v1/bibles/9001", hdr{"X-SVC-App-Key": "not-a-key-of-any-app"})
		c.status(r, 401)
		v := c.json(r, faultSchema)
		unknown = str(obj(obj(obj(v)["fault"])["detail"])["errorcode"])
		c.noCORS(r)
	})
	e.rule("keys/401.errorcode-tells-missing-from-unknown", func(c *C) {
		if missing == "" || unknown == "" || missing == unknown {
			c.Errorf("errorcode for a missing key %q, for an unknown key %q: want two different values", missing, unknown)
		}
	})
	e.rule("keys/401.every-route-needs-a-key", func(c *C) {
		for _, p := range []struct{ method, path string }{
			{"GET", "/v1/bibles/9001"},
			{"GET", "/v1/bibles/9001/index"},
			{"GET", "/v1/bibles/9001/books"},
			{"GET", "/v1/bibles/9001/books/JHN"},
			{"GET", "/v1/bibles/9001/books/JHN/chapters"},
			{"GET", "/v1/bibles/9001/books/JHN/chapters/3"},
			{"GET", "/v1/bibles/9001/books/JHN/chapters/3/verses"},
			{"GET", "/v1/bibles/9001/books/JHN/chapters/3/verses/16"},
			{"GET", "/v1/bibles/9001/passages/JHN.3.16"},
			{"GET", "/v1/highlights?bible_id=9001&passage_id=JHN.3"},
			{"POST", "/v1/highlights"},
			{"DELETE", "/v1/highlights/JHN.3.16?bible_id=9001"},
			{"GET", "/v1/licenses"},
			{"GET", "/v1/apps/" + e.demo.AppID},
			{"GET", "/v1/apps/" + e.demo.AppID + "/permissions"},
			{"POST", "/data-exchange/token"},
		} {
			r := c.do(p.method, p.path, noKey, "")
			if r.status != 401 {
				c.Errorf("%s, want 401", r)
			}
		}
	})
	e.rule("keys/412.archived-app", func(c *C) {
		for _, p := range []string{"/v1/bibles/9001", "/v1/bibles/9001/passages/JHN.3.16", "/v1/licenses", "/v1/apps/" + e.demo.AppID} {
			r := c.get(p, hdr{"X-SVC-App-Key": e.demo.ArchivedAppKey})
			c.errMessage(r, 412)
		}
	})
}

// fetchIndex reads a Bible's index for the rules that compare other routes
// with it; nil when it cannot be had (its own rule reports why).
func fetchIndex(e *env, id int) map[string]any {
	c := &C{e: e}
	var idx map[string]any
	func() {
		defer func() { recover() }()
		r := c.get(fmt.Sprintf("/v1/bibles/%d/index", id), nil)
		if r.status == 200 {
			v, err := decode(r.body)
			if err == nil {
				idx = obj(v)
			}
		}
	}()
	return idx
}

// contentRules: the Bibles routes with valid input, their shapes against
// the field tables and against each other, and their error rows.
func contentRules(e *env, fx *fixtures) {
	for _, id := range []int{9001, 9002, 9003} {
		want := fx.bibles[id]
		e.rule(fmt.Sprintf("edge/bible.%d", id), func(c *C) {
			r := c.get(fmt.Sprintf("/v1/bibles/%d", id), nil)
			c.status(r, 200)
			b := obj(c.json(r, bibleSchema))
			if num(b["id"]) != int64(id) || str(b["abbreviation"]) != want.Abbreviation || str(b["title"]) != want.Title ||
				str(b["language_tag"]) != want.LanguageTag || str(b["organization_id"]) != want.OrganizationID ||
				str(b["publisher_url"]) != want.PublisherURL || want.PublisherURL == "" && b["publisher_url"] != nil {
				c.Errorf("Bible %d = %v, want the fixture's id, abbreviation, title, language_tag, organization_id, publisher_url (null for none)", id, b)
			}
		})
		e.rule(fmt.Sprintf("edge/index.%d", id), func(c *C) {
			r := c.get(fmt.Sprintf("/v1/bibles/%d/index", id), nil)
			c.status(r, 200)
			idx := obj(c.json(r, indexSchema))
			dir := want.TextDirection
			if dir == "" {
				dir = "ltr"
			}
			if got := str(idx["text_direction"]); got != dir {
				c.Errorf("text_direction %q, want %q", got, dir)
			}
			bible := obj(c.json(c.get(fmt.Sprintf("/v1/bibles/%d", id), nil), nil))
			var ids []any
			for _, b := range arr(idx["books"]) {
				book := obj(b)
				ids = append(ids, book["id"])
				for _, ch := range arr(book["chapters"]) {
					chapter := obj(ch)
					if want := str(book["id"]) + "." + str(chapter["id"]); str(chapter["passage_id"]) != want {
						c.Errorf("chapter passage_id %q, want %q", chapter["passage_id"], want)
					}
					for _, v := range arr(chapter["verses"]) {
						verse := obj(v)
						if want := str(chapter["passage_id"]) + "." + str(verse["id"]); str(verse["passage_id"]) != want {
							c.Errorf("verse passage_id %q, want %q", verse["passage_id"], want)
						}
					}
				}
			}
			if !reflect.DeepEqual(ids, arr(bible["books"])) {
				c.Errorf("index books %v, Bible books %v: want the same list", ids, bible["books"])
			}
		})
	}

	idx := fetchIndex(e, 9001)
	e.rule("edge/books", func(c *C) {
		if idx == nil {
			c.Fatalf("no index of Bible 9001 to compare with")
		}
		r := c.get("/v1/bibles/9001/books", nil)
		c.status(r, 200)
		v := obj(c.json(r, collection(bookSchema, false, false)))
		if !reflect.DeepEqual(v["data"], idx["books"]) {
			c.Errorf("/books data differs from the index's books")
		}
	})
	e.rule("edge/books.canon", func(c *C) {
		if idx == nil {
			c.Fatalf("no index of Bible 9001 to compare with")
		}
		for _, canon := range []string{"old_testament", "new_testament", "deuterocanon"} {
			r := c.get("/v1/bibles/9001/books?canon="+canon, nil)
			c.status(r, 200)
			v := obj(c.json(r, collection(bookSchema, false, false)))
			var want []any
			for _, b := range arr(idx["books"]) {
				if str(obj(b)["canon"]) == canon {
					want = append(want, b)
				}
			}
			if !reflect.DeepEqual(arr(v["data"]), want) {
				c.Errorf("canon=%s: %d books, want the index's %d books of that canon", canon, len(arr(v["data"])), len(want))
			}
		}
	})
	e.rule("edge/book-chapters-verses-agree-with-index", func(c *C) {
		if idx == nil {
			c.Fatalf("no index of Bible 9001 to compare with")
		}
		for _, b := range arr(idx["books"]) {
			book := obj(b)
			bp := "/v1/bibles/9001/books/" + str(book["id"])
			r := c.get(bp, nil)
			c.status(r, 200)
			if got := c.json(r, bookSchema); !reflect.DeepEqual(got, b) {
				c.Errorf("GET %s differs from the index's book", bp)
			}
			r = c.get(bp+"/chapters", nil)
			c.status(r, 200)
			if got := obj(c.json(r, collection(chapterSchema, false, false))); !reflect.DeepEqual(got["data"], book["chapters"]) {
				c.Errorf("GET %s/chapters differs from the index's chapters", bp)
			}
			for _, ch := range arr(book["chapters"]) {
				chapter := obj(ch)
				cp := bp + "/chapters/" + str(chapter["id"])
				r := c.get(cp, nil)
				c.status(r, 200)
				if got := c.json(r, chapterSchema); !reflect.DeepEqual(got, ch) {
					c.Errorf("GET %s differs from the index's chapter", cp)
				}
				r = c.get(cp+"/verses", nil)
				c.status(r, 200)
				if got := obj(c.json(r, collection(verseSchema, false, false))); !reflect.DeepEqual(got["data"], chapter["verses"]) {
					c.Errorf("GET %s/verses differs from the index's verses", cp)
				}
				verses := arr(chapter["verses"])
				// The first and the last verse of every chapter.
				for _, v := range []any{verses[0], verses[len(verses)-1]} {
					vp := cp + "/verses/" + str(obj(v)["id"])
					r := c.get(vp, nil)
					c.status(r, 200)
					if got := c.json(r, verseSchema); !reflect.DeepEqual(got, v) {
						c.Errorf("GET %s differs from the index's verse", vp)
					}
				}
			}
		}
	})

	passage := func(c *C, bible int, ref, query string) map[string]any {
		p := fmt.Sprintf("/v1/bibles/%d/passages/%s", bible, ref)
		if query != "" {
			p += "?" + query
		}
		r := c.get(p, nil)
		c.status(r, 200)
		return obj(c.json(r, passageSchema))
	}
	e.rule("edge/passage.verse-text", func(c *C) {
		p := passage(c, 9001, "JHN.3.16", "")
		if str(p["id"]) != "JHN.3.16" || str(p["reference"]) != "John 3:16" {
			c.Errorf("id %q reference %q, want JHN.3.16 and John 3:16", p["id"], p["reference"])
		}
		if ct := str(p["content"]); ct == "" || strings.ContainsAny(ct, "<>") {
			c.Errorf("text content %q: want plain text", ct)
		}
	})
	e.rule("edge/passage.verse-html", func(c *C) {
		p := passage(c, 9001, "JHN.3.16", "format=html")
		ct := str(p["content"])
		if !strings.HasPrefix(ct, "<div") || !strings.Contains(ct, `class="yv-v" v="16"`) {
			c.Errorf("html content %q: want a <div> with the verse marker yv-v v=16", ct)
		}
		balanced(c, ct)
	})
	e.rule("edge/passage.text-omits-headings-and-notes", func(c *C) {
		notes := str(passage(c, 9001, "JHN.3.16", "format=html&include_notes=true")["content"])
		if !strings.Contains(notes, "yv-n") {
			c.Fatalf("JHN.3.16 with include_notes has no note to look for: %q", notes)
		}
		for _, q := range []string{"", "format=text", "format=text&include_notes=true&include_headings=true"} {
			ct := str(passage(c, 9001, "JHN.3", q)["content"])
			if strings.Contains(ct, "Rom 5:8") || strings.Contains(ct, "Jesus and Nicodemus") {
				c.Errorf("text of JHN.3 (%s) carries a note or a heading: %.120q", q, ct)
			}
		}
	})
	e.rule("edge/passage.verse-defaults-no-headings-no-notes", func(c *C) {
		if ct := str(passage(c, 9001, "JHN.3.1", "format=html")["content"]); strings.Contains(ct, "yv-h") {
			c.Errorf("JHN.3.1 html by default has a heading: %q", ct)
		}
		if ct := str(passage(c, 9001, "JHN.3.1", "format=html&include_headings=true")["content"]); !strings.Contains(ct, "yv-h") {
			c.Errorf("JHN.3.1 html with include_headings=true has no heading: %q", ct)
		}
		if ct := str(passage(c, 9001, "JHN.3.16", "format=html")["content"]); strings.Contains(ct, "yv-n") {
			c.Errorf("JHN.3.16 html by default has a note: %q", ct)
		}
		if ct := str(passage(c, 9001, "JHN.3.16", "format=html&include_notes=true")["content"]); !strings.Contains(ct, "yv-n") {
			c.Errorf("JHN.3.16 html with include_notes=true has no note: %q", ct)
		}
	})
	e.rule("edge/passage.chapter-defaults-headings-and-notes", func(c *C) {
		ct := str(passage(c, 9001, "JHN.3", "format=html")["content"])
		if !strings.Contains(ct, "yv-h") || !strings.Contains(ct, "yv-n") {
			c.Errorf("JHN.3 html by default lacks headings or notes")
		}
		balanced(c, ct)
		ct = str(passage(c, 9001, "JHN.3", "format=html&include_headings=false&include_notes=false")["content"])
		if strings.Contains(ct, "yv-h") || strings.Contains(ct, "yv-n") {
			c.Errorf("JHN.3 html with both false still has headings or notes")
		}
	})
	e.rule("edge/passage.intro", func(c *C) {
		if idx == nil {
			c.Fatalf("no index of Bible 9001")
		}
		n := 0
		for _, b := range arr(idx["books"]) {
			intro := obj(obj(b)["intro"])
			if intro == nil {
				continue
			}
			n++
			p := passage(c, 9001, str(intro["passage_id"]), "format=html")
			if str(p["content"]) == "" {
				c.Errorf("intro %s is empty", intro["passage_id"])
			}
			balanced(c, str(p["content"]))
		}
		if n == 0 {
			c.Errorf("no book of Bible 9001 has an intro; the fixtures have two")
		}
	})
	e.rule("edge/passage.chapter-contains-its-verses", func(c *C) {
		ch := str(passage(c, 9001, "JHN.3", "")["content"])
		v := str(passage(c, 9001, "JHN.3.16", "")["content"])
		if v == "" || !strings.Contains(ch, v) {
			c.Errorf("the text of JHN.3 does not contain the text of JHN.3.16 %q", v)
		}
	})
	e.rule("edge/passage.range", func(c *C) {
		p := passage(c, 9001, "JHN.3.16-18", "format=html")
		if str(p["id"]) != "JHN.3.16-18" || str(p["reference"]) != "John 3:16-18" {
			c.Errorf("id %q reference %q, want JHN.3.16-18 and John 3:16-18", p["id"], p["reference"])
		}
		ct := str(p["content"])
		for _, v := range []string{"16", "17", "18"} {
			if !strings.Contains(ct, `v="`+v+`"`) {
				c.Errorf("range html lacks verse %s", v)
			}
		}
		balanced(c, ct)
	})
	e.rule("edge/passage.canonical-id", func(c *C) {
		if p := passage(c, 9001, "jhn.3.16", ""); str(p["id"]) != "JHN.3.16" {
			c.Errorf("id %q for jhn.3.16, want the canonical JHN.3.16", p["id"])
		}
	})
	e.rule("edge/passage.reference-in-the-bibles-language", func(c *C) {
		es := fetchIndex(e, 9002)
		if es == nil {
			c.Fatalf("no index of Bible 9002")
		}
		var title string
		for _, b := range arr(es["books"]) {
			if str(obj(b)["id"]) == "JHN" {
				title = str(obj(b)["title"])
			}
		}
		if p := passage(c, 9002, "JHN.3.16", ""); str(p["reference"]) != title+" 3:16" {
			c.Errorf("reference %q, want %q (the Bible's own book title)", p["reference"], title+" 3:16")
		}
		if p := passage(c, 9003, "GEN.1.1", ""); str(p["content"]) == "" {
			c.Errorf("Bible 9003 GEN.1.1 is empty")
		}
	})

	e.rule("edge/404.unknown-content", func(c *C) {
		for _, p := range []string{
			"/v1/bibles/99999",
			"/v1/bibles/99999/index",
			"/v1/bibles/99999/passages/JHN.3.16",
			"/v1/bibles/9001/books/EXO",
			"/v1/bibles/9001/books/JHN/chapters/99",
			"/v1/bibles/9001/books/JHN/chapters/3/verses/99",
			"/v1/bibles/9001/books/JHN/chapters/99/verses",
			"/v1/bibles/9001/passages/JHN.3.99",
			"/v1/bibles/9001/passages/JHN.99",
			"/v1/bibles/9001/passages/EXO.1.1",
		} {
			c.errMessage(c.get(p, nil), 404)
		}
	})
	e.rule("edge/404.unrecognized-path", func(c *C) {
		for _, p := range []string{"/v1/nothing-here", "/v2/bibles/9001", "/v1/bibles/9001/unknown"} {
			r := c.get(p, nil)
			if r.status != 404 {
				c.Errorf("%s, want 404", r)
			}
		}
	})
	for _, tc := range []struct{ name, path, loc string }{
		{"bible-id-not-an-integer", "/v1/bibles/abc", "bible_id_path"},
		{"bible-id-beyond-int32", "/v1/bibles/4294967296", "bible_id_path"},
		{"canon", "/v1/bibles/9001/books?canon=apocrypha", "canon"},
		{"format", "/v1/bibles/9001/passages/JHN.3.16?format=pdf", "format"},
		{"include_headings", "/v1/bibles/9001/passages/JHN.3.16?format=html&include_headings=maybe", "include_headings"},
		{"include_notes", "/v1/bibles/9001/passages/JHN.3.16?format=html&include_notes=2x", "include_notes"},
		{"book-id-length", "/v1/bibles/9001/books/JOHN", "book_id"},
		{"chapter-id-length", "/v1/bibles/9001/books/JHN/chapters/12345678", "chapter_id"},
		{"verse-id-length", "/v1/bibles/9001/books/JHN/chapters/3/verses/12345678", "verse_id"},
		{"passage-id", "/v1/bibles/9001/passages/JHN", "passage_id_path"},
	} {
		e.rule("edge/422."+tc.name, func(c *C) {
			c.wantLoc(c.get(tc.path, nil), tc.loc)
		})
	}
	// A well-typed id that cannot exist is 404, not a 422 claiming it is
	// not a 32-bit integer; so is an integer written in another form than
	// the canonical one (no resource has that path).
	// docs/edge.md: value checks (422) come before the licence check.
	e.rule("edge/422.before-the-licence", func(c *C) {
		h := hdr{"X-SVC-App-Key": e.demo.UnlicensedAppKey}
		id := e.demo.UnlicensedBibleID
		c.wantLoc(c.get(fmt.Sprintf("/v1/bibles/%d/passages/JHN-3", id), h), "passage_id_path")
		c.wantLoc(c.get(fmt.Sprintf("/v1/bibles/%d/passages/JHN.3.16?format=pdf", id), h), "format")
		c.errMessage(c.get(fmt.Sprintf("/v1/bibles/%d/passages/JHN.3.16", id), h), 403)
	})
	e.rule("edge/404.ids-that-name-nothing", func(c *C) {
		for _, p := range []string{"/v1/bibles/-1", "/v1/bibles/0", "/v1/bibles/09001", "/v1/bibles/+9001",
			"/v1/fonts/-1", "/v1/verse_of_the_days/+1", "/v1/verse_of_the_days/001"} {
			c.errMessage(c.get(p, nil), 404)
		}
	})
	e.rule("edge/400.backwards-range", func(c *C) {
		if m := c.errMessage(c.get("/v1/bibles/9001/passages/JHN.3.18-16", nil), 400); m == "" {
			c.Errorf("400 without a message")
		}
	})
}

// balanced checks that an HTML fragment opens and closes its elements in
// order (DESIGN: any verse range must be valid, balanced HTML on its own).
func balanced(c *C, h string) {
	var stack []string
	for i := 0; i < len(h); {
		j := strings.IndexByte(h[i:], '<')
		if j < 0 {
			break
		}
		i += j
		k := strings.IndexByte(h[i:], '>')
		if k < 0 {
			c.Errorf("unterminated tag at %d", i)
			return
		}
		tag := h[i+1 : i+k]
		i += k + 1
		if strings.HasSuffix(tag, "/") || strings.HasPrefix(tag, "!") {
			continue
		}
		if strings.HasPrefix(tag, "/") {
			name := tag[1:]
			if len(stack) == 0 || stack[len(stack)-1] != name {
				c.Errorf("</%s> closes %v", name, stack)
				return
			}
			stack = stack[:len(stack)-1]
			continue
		}
		name, _, _ := strings.Cut(tag, " ")
		switch name {
		case "br", "hr", "img", "wbr":
			continue
		}
		stack = append(stack, name)
	}
	if len(stack) != 0 {
		c.Errorf("unclosed elements %v", stack)
	}
}

// licenceRules: Passage rule 3 and the 403 licence row of Errors.
func licenceRules(e *env) {
	un := hdr{"X-SVC-App-Key": e.demo.UnlicensedAppKey}
	bid := e.demo.UnlicensedBibleID
	e.rule("licences/403.content-of-an-unlicensed-bible", func(c *C) {
		for _, p := range []string{"JHN.3.16", "JHN.3", "JHN.3.16-17"} {
			m := c.errMessage(c.get(fmt.Sprintf("/v1/bibles/%d/passages/%s", bid, p), un), 403)
			if !strings.Contains(m, strconv.Itoa(bid)) {
				c.Errorf("403 message %q does not carry the refused Bible id %d", m, bid)
			}
		}
	})
	e.rule("licences/200.metadata-of-an-unlicensed-bible", func(c *C) {
		for _, p := range []string{"", "/index", "/books", "/books/JHN", "/books/JHN/chapters", "/books/JHN/chapters/3",
			"/books/JHN/chapters/3/verses", "/books/JHN/chapters/3/verses/16"} {
			r := c.get(fmt.Sprintf("/v1/bibles/%d%s", bid, p), un)
			if r.status != 200 {
				c.Errorf("%s, want 200 (metadata carries no text)", r)
			}
		}
	})
	e.rule("licences/200.open-bible-for-every-app", func(c *C) {
		c.status(c.get("/v1/bibles/9001/passages/JHN.3.16", un), 200)
	})
	e.rule("licences/200.licensed-app-reads-the-bible", func(c *C) {
		c.status(c.get(fmt.Sprintf("/v1/bibles/%d/passages/JHN.3.16", bid), nil), 200)
	})
	// README decision: a licensed passage must not sit in a shared cache,
	// where the next app would get it whatever its licence.
	e.rule("licences/licensed-passage-is-private", func(c *C) {
		r := c.get(fmt.Sprintf("/v1/bibles/%d/passages/JHN.3.16", bid), nil)
		c.status(r, 200)
		if cc := r.h.Get("Cache-Control"); !strings.Contains(cc, "private") {
			c.Errorf("Cache-Control %q on a licensed passage, want private", cc)
		}
	})
}

// httpRules: the HTTP rows of Errors (304, 206, 405) and what DESIGN asks of
// the edge's HTTP (encodings, HEAD, CORS).
func httpRules(e *env) {
	const bible = "/v1/bibles/9001"
	const psg = "/v1/bibles/9001/passages/JHN.3.16?format=html"
	e.rule("http/405.wrong-verb", func(c *C) {
		for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
			for _, p := range []string{bible, "/v1/bibles/9001/books", psg} {
				r := c.do(m, p, nil, "")
				c.status(r, 405)
				if allow := r.h.Get("Allow"); !strings.Contains(allow, "GET") {
					c.Errorf("%s: Allow %q, want GET listed", r, allow)
				}
			}
		}
	})
	e.rule("http/405.options-preflight-fails", func(c *C) {
		r := c.do("OPTIONS", psg, hdr{"X-SVC-App-Key": "", "Origin": "https://reader.example.org",
			"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-svc-app-key"}, "")
		if r.status != 405 {
			c.Errorf("%s, want 405 (OPTIONS is unsupported)", r)
		}
	})
	for _, p := range []string{bible, psg} {
		e.rule("http/304.if-none-match "+p, func(c *C) {
			r := c.get(p, nil)
			c.status(r, 200)
			tag := r.h.Get("ETag")
			if tag == "" {
				c.Fatalf("%s has no ETag", r)
			}
			nm := c.get(p, hdr{"If-None-Match": tag})
			c.status(nm, 304)
			c.emptyBody(nm)
			c.header(nm, "ETag", tag)
			if nm = c.get(p, hdr{"If-None-Match": `"some-other-tag", ` + tag}); nm.status != 304 {
				c.Errorf("If-None-Match with a list holding the tag: %d, want 304", nm.status)
			}
			if nm = c.get(p, hdr{"If-None-Match": `"some-other-tag"`}); nm.status != 200 {
				c.Errorf("If-None-Match with another tag: %d, want 200", nm.status)
			}
		})
		e.rule("http/304.if-modified-since "+p, func(c *C) {
			r := c.get(p, nil)
			c.status(r, 200)
			lm := r.h.Get("Last-Modified")
			t, err := http.ParseTime(lm)
			if err != nil {
				c.Fatalf("Last-Modified %q: %v", lm, err)
			}
			ims := c.get(p, hdr{"If-Modified-Since": lm})
			c.status(ims, 304)
			c.emptyBody(ims)
			if old := c.get(p, hdr{"If-Modified-Since": t.Add(-time.Hour).Format(http.TimeFormat)}); old.status != 200 {
				c.Errorf("If-Modified-Since an hour before Last-Modified: %d, want 200", old.status)
			}
		})
	}
	e.rule("http/206.range", func(c *C) {
		full := c.get(bible, nil)
		c.status(full, 200)
		c.header(full, "Accept-Ranges", "bytes")
		r := c.get(bible, hdr{"Range": "bytes=0-9"})
		c.status(r, 206)
		c.header(r, "Content-Range", fmt.Sprintf("bytes 0-9/%d", len(full.body)))
		if !bytes.Equal(r.body, full.body[:10]) {
			c.Errorf("206 body %q, want %q", r.body, full.body[:10])
		}
		r = c.get(bible, hdr{"Range": "bytes=-5"})
		c.status(r, 206)
		if !bytes.Equal(r.body, full.body[len(full.body)-5:]) {
			c.Errorf("suffix range body %q, want %q", r.body, full.body[len(full.body)-5:])
		}
		tag := full.h.Get("ETag")
		if r = c.get(bible, hdr{"Range": "bytes=0-9", "If-Range": tag}); r.status != 206 {
			c.Errorf("If-Range with the current ETag: %d, want 206", r.status)
		}
		if r = c.get(bible, hdr{"Range": "bytes=0-9", "If-Range": `"stale"`}); r.status != 200 || !bytes.Equal(r.body, full.body) {
			c.Errorf("If-Range with a stale ETag: %d, want 200 and the whole body", r.status)
		}
	})
	e.rule("http/content-encoding", func(c *C) {
		plain := c.get("/v1/bibles/9001/index", hdr{"Accept-Encoding": "identity"})
		c.status(plain, 200)
		for _, enc := range []string{"br", "gzip"} {
			r := c.get("/v1/bibles/9001/index", hdr{"Accept-Encoding": enc})
			c.status(r, 200)
			c.header(r, "Content-Encoding", enc)
			if !strings.Contains(r.h.Get("Vary"), "Accept-Encoding") {
				c.Errorf("%s answer without Vary: Accept-Encoding", enc)
			}
			var rd io.Reader
			if enc == "br" {
				rd = brotli.NewReader(bytes.NewReader(r.body))
			} else {
				zr, err := gzip.NewReader(bytes.NewReader(r.body))
				if err != nil {
					c.Fatalf("gzip body: %v", err)
				}
				rd = zr
			}
			got, err := io.ReadAll(rd)
			if err != nil || !bytes.Equal(got, plain.body) {
				c.Errorf("%s body decodes (%v) to something other than the identity body", enc, err)
			}
			if r.h.Get("ETag") == plain.h.Get("ETag") {
				c.Errorf("%s and identity share the ETag %s (each coding needs its own)", enc, r.h.Get("ETag"))
			}
		}
	})
	e.rule("http/head", func(c *C) {
		get := c.get(bible, nil)
		head := c.do("HEAD", bible, nil, "")
		c.status(head, 200)
		c.emptyBody(head)
		c.header(head, "Content-Length", strconv.Itoa(len(get.body)))
		c.header(head, "ETag", get.h.Get("ETag"))
	})
	e.rule("http/cors.content-answers-are-readable", func(c *C) {
		for _, p := range []string{bible, psg, "/v1/bibles/99999"} {
			r := c.get(p, nil)
			if r.h.Get("Access-Control-Allow-Origin") == "" {
				c.Errorf("%s without Access-Control-Allow-Origin", r)
			}
		}
	})
	// docs/edge.md: every answer except 401 and 429 carries
	// Access-Control-Allow-Origin, the forwarded ones included.
	e.rule("http/cors.gateway-answers-are-readable", func(c *C) {
		for _, p := range []string{"/v1/licenses", "/v1/apps/" + e.demo.AppID} {
			r := c.get(p, nil)
			if r.h.Get("Access-Control-Allow-Origin") == "" {
				c.Errorf("%s without Access-Control-Allow-Origin", r)
			}
		}
	})
}

// rateLimitRules: the 429 row and Errors body shape 4. It uses the
// unlicensed app, whose allowance is the smallest, and spends it.
func rateLimitRules(e *env) {
	// The public app id is no secret: 400 quick requests that carry only
	// it must not put the app's keyed requests into 429 (they have their
	// own allowance per client address, docs/edge.md).
	e.rule("http/429.id-only-does-not-cost-keys", func(c *C) {
		const unlicensedApp = "5c1a1e3f-9b7d-4e52-a3f0-6d2b8c4e9a02" // fixtures/access.json
		results := make(chan int, 400)
		for w := 0; w < 8; w++ {
			go func() {
				sub := &C{e: c.e, noRetry: true}
				for i := 0; i < 50; i++ {
					func() {
						defer func() {
							if recover() != nil {
								results <- 0
							}
						}()
						results <- sub.get("/data-exchange?token=flood&x-svc-app-id="+unlicensedApp, noKey).status
					}()
				}
			}()
		}
		limited := 0
		for i := 0; i < 400; i++ {
			select {
			case st := <-results:
				if st == 429 {
					limited++
				}
			case <-time.After(60 * time.Second):
				c.Fatalf("requests did not come back within 60 s")
			}
		}
		if limited == 0 {
			c.Errorf("400 quick id-only requests from one address: no 429")
		}
		c.noRetry = true
		if r := c.get("/v1/bibles/9001", hdr{"X-SVC-App-Key": e.demo.UnlicensedAppKey}); r.status != 200 {
			c.Errorf("keyed request after an id-only flood: %s, want 200", r)
		}
	})
	e.rule("http/429.rate-limit", func(c *C) {
		c.noRetry = true
		k := hdr{"X-SVC-App-Key": e.demo.UnlicensedAppKey}
		var limited *resp
		results := make(chan *resp, 200)
		for w := 0; w < 8; w++ {
			go func() {
				sub := &C{e: c.e, noRetry: true}
				for i := 0; i < 25; i++ {
					func() {
						defer func() { recover() }()
						results <- sub.get("/v1/bibles/9001", k)
					}()
				}
			}()
		}
		for i := 0; i < 200; i++ {
			select {
			case r := <-results:
				if r.status == 429 && limited == nil {
					limited = r
				}
			case <-time.After(30 * time.Second):
				c.Fatalf("requests did not come back within 30 s")
			}
		}
		if limited == nil {
			c.Fatalf("200 requests at once with one key: no 429")
		}
		if ct := limited.h.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
			c.Errorf("429 Content-Type %q, want text/plain", ct)
		}
		ra, err := strconv.Atoi(limited.h.Get("Retry-After"))
		if err != nil || ra < 0 {
			c.Fatalf("429 Retry-After %q: want seconds", limited.h.Get("Retry-After"))
		}
		c.noCORS(limited)
		time.Sleep(time.Duration(ra)*time.Second + 200*time.Millisecond)
		if r := c.get("/v1/bibles/9001", k); r.status != 200 {
			c.Errorf("after waiting Retry-After (%d s): %s, want 200", ra, r)
		}
	})
}

// tlsRules: the 308 row. run.sh serves plain HTTP only, so a second edge
// with a self-signed certificate serves the same store (directory passes
// only: the edge reads S3 credentials from its environment, and the MinIO
// pass proves the store, not TLS).
func tlsRules(t *testing.T, e *env, root string, st *stack) {
	if strings.HasPrefix(st.store, "s3://") {
		return
	}
	e.rule("http/308.plain-http-to-https", func(c *C) {
		te, err := startTLSEdge(t, root, st.store)
		if err != nil {
			c.Fatalf("%v", err)
		}
		for _, m := range []string{"GET", "POST"} {
			r := c.do(m, te.plain+"/v1/bibles/9001/books?canon=new_testament", nil, "")
			c.status(r, 308)
			c.header(r, "Location", te.secure+"/v1/bibles/9001/books?canon=new_testament")
		}
		secure := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
			TLSClientConfig: tlsConfig(te.caPool),
		}}
		r := c.doWith(secure, "GET", te.secure+"/v1/bibles/9001", nil, "")
		c.status(r, 200)
		c.json(r, bibleSchema)
	})
}
