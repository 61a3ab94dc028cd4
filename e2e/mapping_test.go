package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/build/buildtest"
	"github.com/bibleplatform/platform/edge"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
)

// sharedBooks copies the named books of a shared Bible's sources into a
// directory of their own, so that a test imports those books only.
func sharedBooks(t *testing.T, dir string, names ...string) string {
	t.Helper()
	src := repotest.Shared(t, "bibles", dir)
	out := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestMappingAcrossBibles publishes the WEB's Psalms and Malachi and the
// UHB's in its Hebrew numbering, and asks each Bible for passages in the
// other's numbering: the WEB's PSA.51.10 ("Create in me a clean heart")
// is the UHB's PSA.51.12, its Malachi 4 the UHB's 3:19-24.
func TestMappingAcrossBibles(t *testing.T) {
	if testing.Short() {
		t.Skip("imports and publishes two books of two shared Bibles")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	content := filepath.Join(t.TempDir(), "content")
	buildtest.AddLicenses(t, content, 1)
	if err := os.WriteFile(filepath.Join(content, "verse_of_the_day.json"), []byte(`[{"day": 5, "passage_id": "PSA.3.3"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The WEB's Sirach and 4 Maccabees have bridges (\v 15-16: one verse
	// of its index, "15"); the KJV 1611's Sirach has 11:15 and 11:16.
	if _, err := build.Import(content, sharedBooks(t, "eng-web", "20-PSAeng-web.usfm.gz", "30-JOLeng-web.usfm.gz", "40-MALeng-web.usfm.gz", "70-MATeng-web.usfm.gz",
		"46-SIReng-web.usfm.gz", "59-4MAeng-web.usfm.gz"), build.BibleMeta{
		ID: 206, Abbreviation: "WEB", Title: "World English Bible", LanguageTag: "en", LicenseID: 1,
	}, build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := build.Import(content, sharedBooks(t, "hbo-uhb", "19-PSA.usfm.gz", "29-JOL.usfm.gz", "39-MAL.usfm.gz"), build.BibleMeta{
		ID: 8001, Abbreviation: "UHB", Title: "unfoldingWord Hebrew Bible", LanguageTag: "hbo", LicenseID: 1,
		Versification: "org", Numbering: build.NumberingAlternate,
	}, build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := build.Import(content, sharedBooks(t, "spa-rv1909", "30-JOLspaRV1909.usfm.gz", "40-MALspaRV1909.usfm.gz"), build.BibleMeta{
		ID: 1909, Abbreviation: "RV1909", Title: "Reina-Valera 1909", LanguageTag: "es", LicenseID: 1,
	}, build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	// The BSB's Matthew omits 17:21, which the WEB has.
	if _, err := build.Import(content, sharedBooks(t, "eng-bsb", "41MATBSB.usfm.gz"), build.BibleMeta{
		ID: 3034, Abbreviation: "BSB", Title: "Berean Standard Bible", LanguageTag: "en", LicenseID: 1,
	}, build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := build.Import(content, sharedBooks(t, "eng-kjv1611", "72_SIR_KJB-1611.USFM.gz"), build.BibleMeta{
		ID: 1611, Abbreviation: "KJV1611", Title: "King James Version 1611", LanguageTag: "en", LicenseID: 1,
	}, build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := publishContent(ctx, content, store, publish.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	e := startEdge(t, ctx, store, edge.Config{})
	// The UHB is licensed too: its text is compared.
	if err := e.srv.SetAccess(&access.Snapshot{Version: 2, Generated: time.Now(), Apps: []access.App{{
		ID: "00000000-0000-4000-8000-000000000001", Name: "e2e", Status: "live",
		KeyHashes: []string{access.HashKeyHex(appKey)}, Bibles: []int32{206, 8001, 1909, 3034, 1611},
		RateLimit: access.Rate{PerSecond: 1e6, Burst: 1e6},
	}}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the build", func() bool { code, _ := e.get("/v1/bibles/8001"); return code == 200 })

	type passage struct{ ID, Content, Reference string }
	get := func(path string) passage {
		t.Helper()
		var p passage
		if err := json.Unmarshal([]byte(e.mustGet(t, path)), &p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return p
	}
	// sameAs checks that each path answers the passage want, the same as
	// the path same.
	type mapped struct{ path, want, same string }
	sameAs := func(cases []mapped) {
		t.Helper()
		for _, c := range cases {
			got, want := get(c.path), get(c.same)
			if got.ID != c.want || got.Content != want.Content || got.Reference != want.Reference {
				t.Errorf("%s = %+v\nwant %s: %+v", c.path, got, c.want, want)
			}
		}
	}
	sameAs([]mapped{
		{"/v1/bibles/8001/passages/PSA.51.10?from_bible_id=206", "PSA.51.12", "/v1/bibles/8001/passages/PSA.51.12"},
		{"/v1/bibles/206/passages/PSA.51.12?from_bible_id=8001", "PSA.51.10", "/v1/bibles/206/passages/PSA.51.10"},
		{"/v1/bibles/8001/passages/MAL.4?from_bible_id=206", "MAL.3.19-24", "/v1/bibles/8001/passages/MAL.3.19-24"},
		{"/v1/bibles/206/passages/MAL.3.19-24?from_versification=org", "MAL.4.1-6", "/v1/bibles/206/passages/MAL.4.1-6"},
		{"/v1/bibles/8001/passages/PSA.51.1-2?from_bible_id=206", "PSA.51.3-4", "/v1/bibles/8001/passages/PSA.51.3-4"},
	})
	if m := e.mustGet(t, "/v1/bibles/8001/map/PSA.51.10?from_bible_id=206"); !strings.Contains(m, `"ids":["PSA.51.12"]`) {
		t.Errorf("map PSA.51.10 from the WEB into the UHB = %s", m)
	}
	// Malachi 4 across the three Bibles: each answers its own text for
	// the WEB's chapter, the UHB as its 3:19-24.
	var par struct {
		Data []struct {
			BibleID int32 `json:"bible_id"`
			ID      string
			Content string
		}
	}
	if err := json.Unmarshal([]byte(e.mustGet(t, "/v1/passages/MAL.4?bible_ids[]=206&bible_ids[]=1909&bible_ids[]=8001")), &par); err != nil {
		t.Fatal(err)
	}
	wantIDs := []string{"MAL.4", "MAL.4", "MAL.3.19-24"}
	for i, bible := range []int32{206, 1909, 8001} {
		if i >= len(par.Data) || par.Data[i].BibleID != bible || par.Data[i].ID != wantIDs[i] {
			t.Fatalf("parallel MAL.4 item %d = %+v, want Bible %d's %s", i, par.Data, bible, wantIDs[i])
		}
		own := get("/v1/bibles/" + strconv.Itoa(int(bible)) + "/passages/" + wantIDs[i])
		if par.Data[i].Content != own.Content {
			t.Errorf("parallel MAL.4 in %d differs from its own %s", bible, wantIDs[i])
		}
	}
	// Verse by verse (align=verse): a row per verse of the WEB's MAL.4,
	// each Bible's text of it being its own passage of that verse.
	type cell struct {
		BibleID int32 `json:"bible_id"`
		ID      string
		Content *string
		Absent  bool
	}
	type row struct {
		ID    string
		Texts []cell
	}
	aligned := func(path string) []row {
		t.Helper()
		var v struct{ Verses []row }
		if err := json.Unmarshal([]byte(e.mustGet(t, path)), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return v.Verses
	}
	// checkRows compares rows with want, one line a row: the row's id and
	// each Bible's id ("-" for absent), and each text with the Bible's own
	// passage of its id in the same format.
	checkRows := func(path string, bibles []int32, query string, want []string) {
		t.Helper()
		rows := aligned(path)
		var got []string
		for _, r := range rows {
			line := r.ID + ":"
			for i, c := range r.Texts {
				if i >= len(bibles) || c.BibleID != bibles[i] {
					t.Fatalf("%s: row %s names Bible %d at %d, want the order %v", path, r.ID, c.BibleID, i, bibles)
				}
				if c.Absent {
					line += " -"
					if c.ID != "" || c.Content != nil {
						t.Errorf("%s: row %s, absent from %d, has id %q, content %v", path, r.ID, c.BibleID, c.ID, c.Content)
					}
					continue
				}
				line += " " + c.ID
				own := get("/v1/bibles/" + strconv.Itoa(int(c.BibleID)) + "/passages/" + c.ID + query)
				if c.Content == nil || *c.Content != own.Content {
					t.Errorf("%s: row %s in %d is not its own %s:\n%v\nwant %q", path, r.ID, c.BibleID, c.ID, c.Content, own.Content)
				}
			}
			got = append(got, line)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s rows:\n%s\nwant\n%s", path, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	checkRows("/v1/passages/MAL.4?bible_ids[]=206&bible_ids[]=1909&bible_ids[]=8001&align=verse", []int32{206, 1909, 8001}, "", []string{
		"MAL.4.1: MAL.4.1 MAL.4.1 MAL.3.19", "MAL.4.2: MAL.4.2 MAL.4.2 MAL.3.20", "MAL.4.3: MAL.4.3 MAL.4.3 MAL.3.21",
		"MAL.4.4: MAL.4.4 MAL.4.4 MAL.3.22", "MAL.4.5: MAL.4.5 MAL.4.5 MAL.3.23", "MAL.4.6: MAL.4.6 MAL.4.6 MAL.3.24",
	})
	// The same in HTML, and from the Hebrew numbering across the chapter
	// end: the UHB's 3:18 is the WEB's 3:18, its 3:19 the WEB's 4:1.
	checkRows("/v1/passages/MAL.3.18-19?bible_ids[]=8001&bible_ids[]=206&align=verse&format=html", []int32{8001, 206}, "?format=html",
		[]string{"MAL.3.18: MAL.3.18 MAL.3.18", "MAL.3.19: MAL.3.19 MAL.4.1"})
	// Psalm 51: the WEB prints the title as a heading, the UHB counts it
	// as verses 1-2; "Create in me a clean heart" is 51:10 and 51:12.
	psalm := []string{"PSA.51.0: - PSA.51.1-2"}
	for v := 1; v <= 19; v++ {
		psalm = append(psalm, fmt.Sprintf("PSA.51.%d: PSA.51.%d PSA.51.%d", v, v, v+2))
	}
	checkRows("/v1/passages/PSA.51?bible_ids[]=206&bible_ids[]=8001&align=verse", []int32{206, 8001}, "", psalm)
	checkRows("/v1/passages/PSA.51.1-3?bible_ids[]=8001&bible_ids[]=206&align=verse", []int32{8001, 206}, "",
		[]string{"PSA.51.1: PSA.51.1 -", "PSA.51.2: PSA.51.2 -", "PSA.51.3: PSA.51.3 PSA.51.1"})
	// Joel 2:28-32 is Hebrew 3:1-5.
	checkRows("/v1/passages/JOL.2.27-32?bible_ids[]=206&bible_ids[]=1909&bible_ids[]=8001&align=verse", []int32{206, 1909, 8001}, "", []string{
		"JOL.2.27: JOL.2.27 JOL.2.27 JOL.2.27", "JOL.2.28: JOL.2.28 JOL.2.28 JOL.3.1", "JOL.2.29: JOL.2.29 JOL.2.29 JOL.3.2",
		"JOL.2.30: JOL.2.30 JOL.2.30 JOL.3.3", "JOL.2.31: JOL.2.31 JOL.2.31 JOL.3.4", "JOL.2.32: JOL.2.32 JOL.2.32 JOL.3.5",
	})
	// A verse one Bible lacks is absent there; the next verses still line up.
	checkRows("/v1/passages/MAT.17.20-22?bible_ids[]=206&bible_ids[]=3034&align=verse", []int32{206, 3034}, "",
		[]string{"MAT.17.20: MAT.17.20 MAT.17.20", "MAT.17.21: MAT.17.21 -", "MAT.17.22: MAT.17.22 MAT.17.22"})
	// The same verse alone: the BSB is absent, as in a longer passage,
	// in the rows and in data; only a passage no Bible has is 404.
	checkRows("/v1/passages/MAT.17.21?bible_ids[]=206&bible_ids[]=3034&align=verse", []int32{206, 3034}, "",
		[]string{"MAT.17.21: MAT.17.21 -"})
	var lacking struct{ Data []cell }
	if err := json.Unmarshal([]byte(e.mustGet(t, "/v1/passages/MAT.17.21?bible_ids[]=3034&bible_ids[]=206")), &lacking); err != nil {
		t.Fatal(err)
	}
	if d := lacking.Data; len(d) != 2 || d[0].BibleID != 3034 || !d[0].Absent || d[0].ID != "" || d[0].Content != nil || d[1].ID != "MAT.17.21" {
		t.Errorf("parallel MAT.17.21 across the BSB and the WEB = %+v, want the BSB absent", d)
	}
	if code, body := e.get("/v1/passages/MAT.17.21?bible_ids[]=3034&align=verse"); code != 404 || !strings.Contains(body, "None of the Bibles") {
		t.Errorf("MAT.17.21 in the BSB alone = %d %s, want 404", code, body)
	}

	// A bridge of the WEB (SIR 11:15-16, one verse of its index) is one
	// row against the KJV 1611's two verses; a verse inside it, asked in
	// the KJV's numbering, answers the whole bridge.
	checkRows("/v1/passages/SIR.11.14-17?bible_ids[]=1611&bible_ids[]=206&align=verse", []int32{1611, 206}, "", []string{
		"SIR.11.14: SIR.11.14 SIR.11.14", "SIR.11.15-16: SIR.11.15-16 SIR.11.15-16", "SIR.11.17: SIR.11.17 SIR.11.17",
	})
	checkRows("/v1/passages/SIR.11.16?bible_ids[]=1611&bible_ids[]=206&align=verse&format=html", []int32{1611, 206}, "?format=html",
		[]string{"SIR.11.16: SIR.11.16 SIR.11.15-16"})
	checkRows("/v1/passages/4MA.8.27-29?bible_ids[]=206&align=verse", []int32{206}, "",
		[]string{"4MA.8.27: 4MA.8.27", "4MA.8.28-29: 4MA.8.28-29"})
	sameAs([]mapped{
		{"/v1/bibles/206/passages/SIR.11.16?from_bible_id=1611", "SIR.11.15-16", "/v1/bibles/206/passages/SIR.11.15-16"},
		{"/v1/bibles/206/passages/4MA.8.29?from_versification=eng", "4MA.8.28-29", "/v1/bibles/206/passages/4MA.8.28-29"},
		{"/v1/bibles/206/passages/SIR.26.20-22?from_bible_id=1611", "SIR.26.19-27", "/v1/bibles/206/passages/SIR.26.19-27"},
	})
	if p := get("/v1/bibles/206/passages/4MA.8.28-29"); !strings.Contains(p.Content, "as soon as the tyrant") || p.Reference != "4 Maccabees 8:28-29" {
		t.Errorf("the bridge 4MA.8.28-29 = %+v", p)
	}
	// Without a numbering the ids are the WEB's own, as its index lists
	// them: the bridge is verse 15, and 16 is no verse of it.
	if code, _ := e.get("/v1/bibles/206/passages/SIR.11.16"); code != 404 {
		t.Errorf("SIR.11.16 of the WEB = %d, want 404 (its index has the bridge as 15)", code)
	}
	if v := e.mustGet(t, "/v1/bibles/206/books/SIR/chapters/11/verses"); !strings.Contains(v, `{"id":"15","passage_id":"SIR.11.15","title":"15"},{"id":"17"`) {
		t.Errorf("the WEB's SIR 11 verses = %.300s…, want the bridge as verse 15 then 17", v)
	}
	if v := e.mustGet(t, "/v1/bibles/206/books/SIR/chapters/11/verses/16?from_bible_id=1611"); v != `{"id":"15","passage_id":"SIR.11.15","title":"15"}` {
		t.Errorf("the verse the KJV calls SIR.11.16, in the WEB = %s, want its verse 15", v)
	}
	if m := e.mustGet(t, "/v1/bibles/206/map/SIR.11.16?from_bible_id=1611"); !strings.Contains(m, `"ids":["SIR.11.15-16"]`) {
		t.Errorf("map SIR.11.16 from the KJV 1611 into the WEB = %s", m)
	}

	// The calendar is in English numbering: its PSA.3.3 is Hebrew 3:4.
	for day, want := range map[int]string{5: "PSA.3.4"} {
		if d := e.mustGet(t, "/v1/verse-of-the-days/"+strconv.Itoa(day)+"?bible_id=8001"); !strings.Contains(d, `"passage_id":"`+want+`"`) {
			t.Errorf("day %d in the UHB = %s, want %s", day, d, want)
		}
	}
}
