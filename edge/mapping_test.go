package edge

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// TestMappedRoutes serves the committed fixtures and takes passage ids in
// another numbering: the SEB numbers as English Bibles do, so that the
// Hebrew numbering's Psalm 3:2 (the title counts as verse 1) is its 3:1.
func TestMappedRoutes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/publish")
	}
	srv, keys := fixtureEdge(t, nil)
	e := &testEdge{srv: srv, client: newTestEdgeClient(t, srv)}
	key := "X-SVC-App-Key: " + keys.AppKey
	const b = "/v1/bibles/9001"
	runSteps(t, e, []step{
		{name: "org verse", path: b + "/passages/PSA.3.2?from_versification=org", headers: []string{key}, status: 200,
			body: []string{`"id":"PSA.3.1"`, `"reference":"Psalms 3:1"`}},
		{name: "org range", path: b + "/passages/PSA.3.2-4?from_versification=org&format=html", headers: []string{key}, status: 200,
			body: []string{`"id":"PSA.3.1-3"`}},
		{name: "org title has no verse here", path: b + "/passages/PSA.3.1?from_versification=org", headers: []string{key}, status: 404,
			body: []string{"no verse of PSA.3.1 in the org numbering"}},
		{name: "org title and first verse", path: b + "/passages/PSA.3.1-2?from_versification=org", headers: []string{key}, status: 200,
			body: []string{`"id":"PSA.3.1"`}},
		{name: "unchanged", path: b + "/passages/JHN.3.16?from_versification=org", headers: []string{key}, status: 200,
			body: []string{`"id":"JHN.3.16"`}},
		{name: "from a Bible", path: b + "/passages/JHN.3.16?from_bible_id=9002", headers: []string{key}, status: 200,
			body: []string{`"id":"JHN.3.16"`}},
		{name: "verse route", path: b + "/books/PSA/chapters/3/verses/2?from_versification=org", headers: []string{key}, status: 200,
			body: []string{`"PSA.3.1"`}},
		{name: "verse route, no verse", path: b + "/books/PSA/chapters/3/verses/1?from_versification=org", headers: []string{key}, status: 404},
		{name: "unknown scheme", path: b + "/passages/JHN.3.16?from_versification=kjv", headers: []string{key}, status: 422,
			body: []string{"'org', 'eng', 'lxx', 'vul', 'rsc' or 'rso'"}},
		{name: "both", path: b + "/passages/JHN.3.16?from_versification=org&from_bible_id=9002", headers: []string{key}, status: 422},
		{name: "malformed Bible id", path: b + "/passages/JHN.3.16?from_bible_id=x", headers: []string{key}, status: 422,
			body: []string{"from_bible_id"}},
		{name: "unknown Bible id", path: b + "/passages/JHN.3.16?from_bible_id=424242", headers: []string{key}, status: 404,
			body: []string{"from_bible_id"}},
		{name: "map", path: b + "/map/PSA.3.2-4?from_versification=org", headers: []string{key}, status: 200,
			body: []string{`"id":"PSA.3.1-3"`, `"ids":["PSA.3.1-3"]`, `"versification":"eng"`, `"from":{"id":"PSA.3.2-4","versification":"org"}`}},
		{name: "map needs a numbering", path: b + "/map/PSA.3.2", headers: []string{key}, status: 422},
		{name: "map from a Bible", path: b + "/map/JHN.3.16?from_bible_id=9002", headers: []string{key}, status: 200,
			body: []string{`"bible_id":9002`}},
		{name: "references", path: b + "/references?query=" + url.QueryEscape("John 3:16-17, 19; Ps 1:1-end"), headers: []string{key}, status: 200,
			body: []string{`"ids":["JHN.3.16-17","JHN.3.19","PSA.1.1-6"]`}},
		{name: "references, bad part", path: b + "/references?query=" + url.QueryEscape("John 3:16; Hezekiah 4"), headers: []string{key}, status: 422,
			body: []string{"Hezekiah 4"}},
		{name: "references, none", path: b + "/references", headers: []string{key}, status: 422},
		{name: "a reference as people write it", path: b + "/passages/" + url.PathEscape("John 3:16"), headers: []string{key}, status: 404,
			body: []string{"JHN.3.16"}},
		{name: "no reference at all", path: b + "/passages/xyz", headers: []string{key}, status: 422},
		{name: "a malformed id stays 422", path: b + "/passages/JHN-3", headers: []string{key}, status: 422},
		{name: "list", path: b + "/passages/JHN.3.16,JHN.3.18-19", headers: []string{key}, status: 200,
			body: []string{`"id":"JHN.3.16,JHN.3.18-19"`, `"reference":"John 3:16; John 3:18-19"`}},
		{name: "list of a chapter and a verse", path: b + "/passages/PSA.1,JHN.1.1?format=html", headers: []string{key}, status: 200,
			body: []string{`"id":"PSA.1,JHN.1.1"`}},
		{name: "list with an introduction", path: b + "/passages/JHN.3.16,JHN.INTRO", headers: []string{key}, status: 422},
		{name: "list too long", path: b + "/passages/" + strings.Repeat("PSA.1,", 40) + "PSA.1", headers: []string{key}, status: 400},
		{name: "list in another numbering", path: b + "/passages/PSA.3.2,PSA.3.4?from_versification=org", headers: []string{key}, status: 200,
			body: []string{`"id":"PSA.3.1,PSA.3.3"`}},
		{name: "a citation with a list", path: b + "/passages/" + url.PathEscape("John 3:16, 18"), headers: []string{key}, status: 404,
			body: []string{"JHN.3.16,JHN.3.18"}},
		{name: "parallel", path: "/v1/passages/JHN.3.16?bible_ids[]=9001&bible_ids[]=9002", headers: []string{key}, status: 200,
			body: []string{`"id":"JHN.3.16","from":{"versification":"eng","bible_id":9001}`, `"bible_id":9001,"id":"JHN.3.16"`, `"bible_id":9002,"id":"JHN.3.16"`}},
		{name: "parallel in another numbering", path: "/v1/passages/PSA.3.2?bible_ids[]=9001&from_versification=org&format=html", headers: []string{key}, status: 200,
			body: []string{`"bible_id":9001,"id":"PSA.3.1"`}},
		{name: "parallel verse by verse", path: "/v1/passages/JHN.3.16-17?bible_ids[]=9001&bible_ids[]=9002&align=verse", headers: []string{key}, status: 200,
			body: []string{`"bible_id":9001,"id":"JHN.3.16-17"`, `"verses":[{"id":"JHN.3.16","texts":[{"bible_id":9001,"id":"JHN.3.16","content":"`,
				`{"id":"JHN.3.17","texts":[{"bible_id":9001,"id":"JHN.3.17","content":"`, `{"bible_id":9002,"id":"JHN.3.17","content":"`}},
		{name: "parallel verse by verse, a title absent", path: "/v1/passages/PSA.3.1-2?bible_ids[]=9001&from_versification=org&align=verse&format=html",
			headers: []string{key}, status: 200,
			body: []string{`"verses":[{"id":"PSA.3.1","texts":[{"bible_id":9001,"absent":true}]},{"id":"PSA.3.2","texts":[{"bible_id":9001,"id":"PSA.3.1","content":"<div>`}},
		{name: "parallel, align by passage", path: "/v1/passages/JHN.3.16?bible_ids[]=9001&align=passage", headers: []string{key}, status: 200,
			body: []string{`"data":[{"bible_id":9001,"id":"JHN.3.16"`}},
		{name: "parallel, bad align", path: "/v1/passages/JHN.3.16?bible_ids[]=9001&align=verses", headers: []string{key}, status: 422,
			body: []string{"align"}},
		{name: "parallel, one Bible lacks it", path: "/v1/passages/JHN.3.16?bible_ids[]=9001&bible_ids[]=9003", headers: []string{key}, status: 200,
			body: []string{`"data":[{"bible_id":9001,"id":"JHN.3.16"`, `{"bible_id":9003,"absent":true}]`}},
		{name: "parallel verse by verse, one Bible lacks it", path: "/v1/passages/JHN.3.16?bible_ids[]=9003&bible_ids[]=9001&align=verse", headers: []string{key}, status: 200,
			body: []string{`"data":[{"bible_id":9003,"absent":true},{"bible_id":9001,"id":"JHN.3.16"`,
				`"verses":[{"id":"JHN.3.16","texts":[{"bible_id":9003,"absent":true},{"bible_id":9001,"id":"JHN.3.16","content":"`}},
		{name: "parallel, no Bible has it", path: "/v1/passages/JHN.3.16?bible_ids[]=9003&align=verse", headers: []string{key}, status: 404,
			body: []string{"None of the Bibles has a verse of JHN.3.16"}},
		{name: "parallel verse by verse, a bridge", path: "/v1/passages/TOB.1.2-5?bible_ids[]=9001&from_versification=eng&align=verse", headers: []string{key}, status: 200,
			body: []string{`{"id":"TOB.1.2","texts":[{"bible_id":9001,"id":"TOB.1.2",`, `{"id":"TOB.1.3-4","texts":[{"bible_id":9001,"id":"TOB.1.3-4",`,
				`{"id":"TOB.1.5","texts":[{"bible_id":9001,"id":"TOB.1.5",`}},
		{name: "a verse inside a bridge, from a numbering", path: b + "/passages/TOB.1.4?from_versification=eng", headers: []string{key}, status: 200,
			body: []string{`"id":"TOB.1.3-4"`, `"reference":"Tobit 1:3-4"`}},
		{name: "a bridge as a range", path: b + "/passages/TOB.1.3-4", headers: []string{key}, status: 200,
			body: []string{`"id":"TOB.1.3-4"`, `"reference":"Tobit 1:3-4"`}},
		{name: "a verse inside a bridge is no verse of the index", path: b + "/passages/TOB.1.4", headers: []string{key}, status: 404},
		{name: "nor of the verse route", path: b + "/books/TOB/chapters/1/verses/4", headers: []string{key}, status: 404},
		{name: "the verse list shows the bridge as its first number", path: b + "/books/TOB/chapters/1/verses", headers: []string{key}, status: 200,
			body: []string{`{"id":"3","passage_id":"TOB.1.3","title":"3"},{"id":"5"`}},
		{name: "the verse route, inside a bridge, from a numbering", path: b + "/books/TOB/chapters/1/verses/4?from_versification=eng", headers: []string{key}, status: 200,
			body: []string{`"id":"3"`, `"passage_id":"TOB.1.3"`}},
		{name: "the map of a verse inside a bridge", path: b + "/map/TOB.1.4?from_versification=eng", headers: []string{key}, status: 200,
			body: []string{`"ids":["TOB.1.3-4"]`}},
		{name: "parallel, not licensed", path: "/v1/passages/JHN.3.16?bible_ids[]=" + itoa(int(keys.UnlicensedBibleID)),
			headers: []string{"X-SVC-App-Key: " + keys.UnlicensedAppKey}, status: 403, body: []string{itoa(int(keys.UnlicensedBibleID))}},
		{name: "parallel, no Bibles", path: "/v1/passages/JHN.3.16", headers: []string{key}, status: 422},
		{name: "parallel, too many", path: "/v1/passages/JHN.3.16?" + strings.Repeat("bible_ids[]=9001&", 11), headers: []string{key}, status: 422},
		{name: "parallel, twice", path: "/v1/passages/JHN.3.16?bible_ids[]=9001&bible_ids[]=9001", headers: []string{key}, status: 422},
		{name: "parallel, unknown", path: "/v1/passages/JHN.3.16?bible_ids[]=9001&bible_ids[]=424242", headers: []string{key}, status: 404},
		{name: "parallel, bad id", path: "/v1/passages/JHN.3.16?bible_ids[]=x", headers: []string{key}, status: 422},
		{name: "parallel, bad passage", path: "/v1/passages/JHN.3.x-?bible_ids[]=9001", headers: []string{key}, status: 422},
		{name: "parallel, deeper path", path: "/v1/passages/JHN.3.16/x?bible_ids[]=9001", headers: []string{key}, status: 404},
		{name: "verse of the day in a Bible", path: "/v1/verse-of-the-days/2?bible_id=9002", headers: []string{key}, status: 200,
			body: []string{`{"day":2,"passage_id":"JHN.3.16","bible_id":9002}`}},
		{name: "verse of the day in a chapter the Bible lacks", path: "/v1/verse-of-the-days/2?bible_id=9003", headers: []string{key}, status: 404},
		{name: "verse of the day the Bible lacks", path: "/v1/verse-of-the-days/19?bible_id=9002", headers: []string{key}, status: 404},
		// The calendar's TOB.1.3 is in this Bible's bridge \v 3-4.
		{name: "verse of the day, Bible with the book", path: "/v1/verse-of-the-days/19?bible_id=9001", headers: []string{key}, status: 200,
			body: []string{`"passage_id":"TOB.1.3-4"`}},
		{name: "verse of the day, bad Bible id", path: "/v1/verse-of-the-days/2?bible_id=x", headers: []string{key}, status: 422},
		{name: "verse of the day, unknown Bible", path: "/v1/verse-of-the-days/2?bible_id=424242", headers: []string{key}, status: 404},
		{name: "calendar in a Bible", path: "/v1/verse-of-the-days?bible_id=9002", headers: []string{key}, status: 200,
			body: []string{`{"day":1,"passage_id":"GEN.1.1","bible_id":9002}`, `{"day":20,`}},
	})

	// The calendar in a Bible lists the days whose verse it has, each
	// one a passage it serves.
	resp, body := e.do(t, "GET", "/v1/verse-of-the-days?bible_id=9002", key)
	var cal struct {
		Data []struct {
			Day       int
			PassageID string `json:"passage_id"`
		}
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, &cal) != nil || len(cal.Data) == 0 || len(cal.Data) > 366-24 {
		t.Fatalf("calendar in 9002: %d, %d days, want 1 to %d", resp.StatusCode, len(cal.Data), 366-24)
	}
	for _, d := range cal.Data {
		if r, _ := e.do(t, "GET", "/v1/bibles/9002/passages/"+d.PassageID, key); r.StatusCode != 200 {
			t.Errorf("day %d: 9002 answers %s with %d", d.Day, d.PassageID, r.StatusCode)
		}
	}

	// Without the parameter, the passage is the one asked for.
	resp, body = e.do(t, "GET", b+"/passages/PSA.3.2", key)
	var p struct{ ID string }
	if resp.StatusCode != 200 || json.Unmarshal(body, &p) != nil || p.ID != "PSA.3.2" {
		t.Errorf("PSA.3.2 without from: %d %s", resp.StatusCode, body)
	}
}

// FuzzPassageIDs: whatever passage id, list, citation or numbering a
// client sends to the passage, map and parallel routes, the edge answers
// a client error or a passage, never a panic or a server error.
func FuzzPassageIDs(f *testing.F) {
	for _, s := range []string{"JHN.3.16", "PSA.3.2-4", "JHN.3.16,JHN.3.18-19", "PSA.1,JHN.1.1", "John 3:16, 18",
		"JHN.INTRO", "PSA.3.0", "MAL.4", "JHN.3.16-JHN.2.1", ",", "JHN.3.16,,", "PS2.1_1", "TOB.1.4", "TOB.1.4-5", "TOB.1.2-3"} {
		for _, q := range []string{"", "from_versification=org", "from_versification=lxx", "from_bible_id=9002", "format=html", "align=verse"} {
			f.Add(s, q)
		}
	}
	srv, keys := fixtureEdge(f, nil)
	e := &testEdge{srv: srv, client: newTestEdgeClient(f, srv)}
	key := "X-SVC-App-Key: " + keys.AppKey
	f.Fuzz(func(t *testing.T, id, query string) {
		p := url.PathEscape(id) + "?" + url.PathEscape(query)
		if len(p) > 2000 {
			t.Skip("a request line beyond the server's limit is 431 before any route")
		}
		for _, path := range []string{"/v1/bibles/9001/passages/" + p, "/v1/bibles/9001/map/" + p,
			"/v1/passages/" + p + "&bible_ids[]=9001&bible_ids[]=9002"} {
			resp, body := e.do(t, "GET", path, key)
			switch resp.StatusCode {
			case 200, 400, 404, 422:
			default:
				t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
			}
		}
	})
}
