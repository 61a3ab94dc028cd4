package edge

import (
	"encoding/json"
	"net/url"
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
	})

	// Without the parameter, the passage is the one asked for.
	resp, body := e.do(t, "GET", b+"/passages/PSA.3.2", key)
	var p struct{ ID string }
	if resp.StatusCode != 200 || json.Unmarshal(body, &p) != nil || p.ID != "PSA.3.2" {
		t.Errorf("PSA.3.2 without from: %d %s", resp.StatusCode, body)
	}
}
