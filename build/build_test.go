package build_test

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/build/buildtest"
	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/build/usfm"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/search"
)

// sharedBibles are the real Bibles beside the repository, with the
// metadata an import would be given.
var sharedBibles = []build.BibleMeta{
	{ID: 206, Abbreviation: "WEB", Title: "World English Bible", LanguageTag: "en", LicenseID: 1},
	{ID: 3034, Abbreviation: "BSB", Title: "Berean Standard Bible", LanguageTag: "en", LicenseID: 1},
	{ID: 1611, Abbreviation: "KJV1611", Title: "King James Version 1611", LanguageTag: "en", LicenseID: 1},
	{ID: 1909, Abbreviation: "RV1909", Title: "Reina-Valera 1909", LanguageTag: "es", LicenseID: 1},
	{ID: 8001, Abbreviation: "UHB", Title: "unfoldingWord Hebrew Bible", LanguageTag: "hbo", LicenseID: 2}, // rtl: derived
}

var sharedDirs = map[int32]string{206: "eng-web", 3034: "eng-bsb", 1611: "eng-kjv1611", 1909: "spa-rv1909", 8001: "hbo-uhb"}

// TestSharedBibles imports and builds every Bible beside the repository and
// checks the published result against the data's own manifests and the
// index recorded from the live service.
func TestSharedBibles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds five whole Bibles")
	}
	ctx := context.Background()
	content, storeDir := t.TempDir(), t.TempDir()
	buildtest.AddLicenses(t, content, 1, 2)
	for _, m := range sharedBibles {
		rep, err := build.Import(content, repotest.Shared(t, "bibles", sharedDirs[m.ID]), m, build.ImportOptions{})
		if err != nil {
			t.Fatalf("import %d: %v", m.ID, err)
		}
		if len(rep.Errors) > 0 || rep.Failed() {
			t.Errorf("import %d: refused %v, errors %v", m.ID, rep.Refused, rep.Errors)
		}
		t.Logf("import %d: repairs %v", m.ID, rep.Repairs)
		// Text before a chapter's first verse: the BSB's 34 psalms without
		// \v 1, the WEB's title of SIR 51; no other.
		before := map[int32]map[string]int{3034: {render.ImpliedVerse1: 34}, 206: {render.ChapterTitle: 1}}
		for _, class := range []string{render.ImpliedVerse1, render.ChapterTitle} {
			if n, want := rep.Repairs[class], before[m.ID][class]; n != want {
				t.Errorf("import %d: %d repairs of %q; want %d", m.ID, n, class, want)
			}
		}
		if m.ID == 1611 {
			// The KJV 1611's known habits, repaired and counted.
			for class, n := range map[string]int{"psalm title before its first verse": 116, "verse number glued to its text": 2, "non-standard book code": 1, usfm.BareClose: 1} {
				if rep.Repairs[class] != n {
					t.Errorf("KJV 1611: %d repairs of %q; want %d", rep.Repairs[class], class, n)
				}
			}
		}
	}
	store, err := publish.OpenDir(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := build.Build(ctx, build.Options{Content: content, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("build: %d written, %s", rep.Written, rep.Duration)
	man, _, err := publish.LoadCurrent(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range sharedBibles {
		idx := readIndex(t, store, man, m.ID)
		// The BSB's 34 psalms without \v 1 publish the verse 1 their text
		// implies.
		implied := map[int32]map[bible.BookID]int{3034: {"PSA": 34}}[m.ID]
		checkManifestCounts(t, m.ID, idx, repotest.Shared(t, "bibles", sharedDirs[m.ID], "MANIFEST.tsv"), implied)
	}
	t.Run("WEBIndexMatchesLiveService", func(t *testing.T) {
		var want bible.Index
		b, err := os.ReadFile(repotest.Shared(t, "reference", "youversion-fixtures", "bible_206_index.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		got := readIndex(t, store, man, 206)
		if got.TextDirection != want.TextDirection {
			t.Errorf("text_direction = %q; want %q", got.TextDirection, want.TextDirection)
		}
		if len(want.Books) != 80 {
			t.Fatalf("reference has %d books", len(want.Books))
		}
		for _, wb := range want.Books {
			gb := got.Book(wb.ID)
			if gb == nil {
				t.Errorf("book %s missing", wb.ID)
				continue
			}
			gb.Intro = nil // the live index has no intros; ours adds them
			gj, wj := mustJSON(t, gb), mustJSON(t, wb)
			if gj != wj {
				t.Errorf("book %s differs from the live index:\n got %.300s\nwant %.300s", wb.ID, gj, wj)
			}
		}
	})
	t.Run("WEBGenesis1v1", func(t *testing.T) {
		p := passage(t, store, man, 206, "GEN", "1", publish.PassageName("1", "html"))
		want := `<div><div class="p"><span class="yv-v" v="1"></span><span class="yv-vlbl">1</span>In the beginning, God created the heavens and the earth.</div></div>`
		if p.Content != want || p.ID != "GEN.1.1" || p.Reference != "Genesis 1:1" {
			t.Errorf("GEN.1.1 html = %+v;\nwant content %s", p, want)
		}
		p = passage(t, store, man, 206, "GEN", "1", publish.PassageName("1", "text"))
		if p.Content != "In the beginning, God created the heavens and the earth." {
			t.Errorf("GEN.1.1 text = %q", p.Content)
		}
		p = passage(t, store, man, 206, "GEN", "1", publish.PassageName("1", "html-n"))
		if !strings.Contains(p.Content, `<span class="yv-n f"><span class="fr">1:1 </span>`) {
			t.Errorf("GEN.1.1 with notes has no footnote: %s", p.Content)
		}
	})
	t.Run("SpanishReference", func(t *testing.T) {
		p := passage(t, store, man, 1909, "JHN", "3", publish.PassageName("16", "text"))
		if !strings.HasPrefix(p.Reference, "S") && !strings.HasPrefix(p.Reference, "J") || !strings.HasSuffix(p.Reference, " 3:16") {
			t.Errorf("RV1909 JHN.3.16 reference = %q; want the Spanish book name", p.Reference)
		}
	})
	t.Run("FidelityFixes", func(t *testing.T) {
		for _, tc := range []struct {
			bible            int32
			book, chap, vers string
			want             string
			prefix           bool
		}{
			// \d title then \v 1: the title is a heading, not verse text.
			{1611, "PSA", "3", "1", "¶ LORD, how are they increased that trouble mee?", true},
			// \v 7And: verse 7, and the word is kept.
			{1611, "1SA", "13", "7", "And some of the Hebrewes went ouer Iordane", true},
			{1611, "EST", "6", "10", "Then the king saide to Haman", true},
			// \v 14...: verse 14 keeps its "...".
			{3034, "EPH", "3", "14", "... for this reason I bow my knees before the Father,", false},
			// A psalm without \v 1: its opening lines are verse 1.
			{3034, "PSA", "1", "1", "Blessed is the man who does not walk in the counsel of the wicked, or set foot on the path of sinners, or sit in the seat of mockers.", false},
			{3034, "PSA", "1", "2", "But his delight is in the Law of the LORD,", true},
			// A \p line before \v 1 is the chapter's title, no verse's text.
			{206, "SIR", "51", "1", "I will give thanks to you, O Lord, O King,", true},
			// A bare \* closes the note: the words after it are verse text.
			{1611, "EST", "2", "21", "¶ In those dayes, (while Mordecai sate in the kings gate) two of the kings chamberlens, Bigthan and Teresh, of those which kept the doore,", true},
			// ADE is published as ESG, starting at 10:4 as in the source.
			{1611, "ESG", "10", "4", "", true},
		} {
			p := passage(t, store, man, tc.bible, tc.book, tc.chap, publish.PassageName(tc.vers, "text"))
			if got := strings.ReplaceAll(p.Content, "\n", " "); tc.prefix && !strings.HasPrefix(got, tc.want) || !tc.prefix && got != tc.want {
				t.Errorf("%d %s %s:%s = %q; want %q", tc.bible, tc.book, tc.chap, tc.vers, p.Content, tc.want)
			}
		}
		if h := passage(t, store, man, 206, "SIR", "51", publish.PassageName("1", "html-h")); !strings.HasPrefix(h.Content, `<div><div class="d yv-h">A Prayer of Jesus the son of Sirach.</div>`) {
			t.Errorf("WEB SIR 51:1 with headings: the chapter's title is not a heading above it: %s", h.Content)
		}
		h := passage(t, store, man, 1611, "PSA", "3", publish.PassageName("1", "html-h"))
		if !strings.Contains(h.Content, `<div class="d yv-h">¶ A Psalme of Dauid when he fled from Absalom his sonne.</div>`) {
			t.Errorf("KJV 1611 PSA 3:1 with headings: the title is not a heading: %s", h.Content)
		}
	})
	t.Run("HebrewIsRTL", func(t *testing.T) {
		if d := readIndex(t, store, man, 8001).TextDirection; d != "rtl" {
			t.Errorf("hbo text_direction = %q", d)
		}
	})
}

// checkManifestCounts compares chapter and verse counts per book with the
// data's MANIFEST.tsv (a verse range counts once, as the index lists it),
// plus the verses implied without a marker (implied, by book).
func checkManifestCounts(t *testing.T, id int32, idx *bible.Index, manifest string, implied map[bible.BookID]int) {
	t.Helper()
	f, err := os.Open(manifest)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 4 || strings.HasPrefix(cols[0], "#") {
			continue
		}
		book := bible.BookID(cols[1])
		if std, ok := usfm.BookAliases[cols[1]]; ok {
			// The KJV 1611's \id ADE is published as ESG (Additions to
			// Esther; see usfm.BookAliases).
			book = bible.BookID(std)
		}
		if !book.Canonical() {
			if idx.Book(book) != nil {
				t.Errorf("bible %d: peripheral book %s is in the index", id, book)
			}
			continue
		}
		wantC, _ := strconv.Atoi(cols[2])
		wantV, _ := strconv.Atoi(cols[3])
		wantV += implied[book]
		b := idx.Book(book)
		if b == nil {
			t.Errorf("bible %d: book %s missing", id, book)
			continue
		}
		gotV := 0
		for _, c := range b.Chapters {
			gotV += len(c.Verses)
		}
		if len(b.Chapters) != wantC || gotV != wantV {
			t.Errorf("bible %d %s: %d chapters, %d verses; manifest says %d, %d", id, book, len(b.Chapters), gotV, wantC, wantV)
		}
	}
}

func readIndex(t *testing.T, s publish.Store, m *publish.Manifest, id int32) *bible.Index {
	t.Helper()
	be := m.Bible(id)
	if be == nil {
		t.Fatalf("bible %d not published", id)
	}
	var idx bible.Index
	readEntry(t, s, be.Pack, publish.NameIndex, &idx)
	return &idx
}

func passage(t *testing.T, s publish.Store, m *publish.Manifest, id int32, book, chapter, name string) bible.Passage {
	t.Helper()
	for _, b := range m.Bible(id).Books {
		if string(b.ID) != book {
			continue
		}
		for _, c := range b.Chapters {
			if c.ID == chapter {
				var p bible.Passage
				readEntry(t, s, c.Pack, name, &p)
				return p
			}
		}
	}
	t.Fatalf("%d %s.%s not published", id, book, chapter)
	return bible.Passage{}
}

func readEntry(t *testing.T, s publish.Store, ref publish.PackRef, name string, v any) {
	t.Helper()
	p, err := publish.LoadPack(context.Background(), s, ref)
	if err != nil {
		t.Fatal(err)
	}
	e := p.Entry(name)
	if e == nil {
		t.Fatalf("pack %s has no entry %s", ref.Key, name)
	}
	if err := json.Unmarshal(p.Body(&e.Reps[0]), v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fixtureCopy returns a copy of the fixtures' content tree, which the test
// may change, and an empty directory store to build it into.
func fixtureCopy(t *testing.T) (content string, store *publish.Dir) {
	t.Helper()
	content = t.TempDir()
	copyDir(t, filepath.Join(repotest.Root(t), "fixtures", "content"), content)
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return content, store
}

// copyDir copies a content tree so a test may change it.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIncremental checks that an unchanged rebuild writes nothing and a
// one-verse change writes only the chapter holding it, the book's part of
// the search index (with the book's word counts) and the manifest.
func TestIncremental(t *testing.T) {
	ctx := context.Background()
	content, store := fixtureCopy(t)
	first, err := build.Build(ctx, build.Options{Content: content, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Switched || first.Written == 0 {
		t.Fatalf("cold build: %+v", first)
	}
	again, err := build.Build(ctx, build.Options{Content: content, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if again.Switched || again.Written != 0 || again.Build != first.Build || again.Rendered != 0 {
		t.Errorf("unchanged rebuild: %+v; want nothing written, same build %s", again, first.Build)
	}
	p := filepath.Join(content, "bibles", "9001", "JHN.usfm")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(src), `\v 16 `)
	if i < 0 {
		t.Fatal("fixture JHN has no verse 16")
	}
	changed := string(src[:i+6]) + "Truly, " + string(src[i+6:])
	if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _, _ := publish.LoadCurrent(ctx, store)
	third, err := build.Build(ctx, build.Options{Content: content, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if !third.Switched || third.Written != 3 || third.Rendered != 1 {
		t.Errorf("one-verse change: %+v; want 3 objects written (the chapter pack, the book's part of the search index, the manifest), 1 book rendered", third)
	}
	after, _, _ := publish.LoadCurrent(ctx, store)
	var changedKeys []string
	old := map[string]bool{}
	before.Packs(func(r *publish.PackRef) { old[r.Key] = true })
	after.Packs(func(r *publish.PackRef) {
		if !old[r.Key] {
			changedKeys = append(changedKeys, r.Key)
		}
	})
	var intro bible.Passage
	readEntry(t, store, after.Bible(9001).Books[0].Pack, publish.PassageName(bible.IntroChapter, "html-hn"), &intro)
	if intro.ID != "GEN.INTRO" || !strings.Contains(intro.Content, "yv-h") {
		t.Errorf("GEN.INTRO = %+v; want the introduction with its headings", intro)
	}
	var chapter3 string
	for _, b := range after.Bible(9001).Books {
		if b.ID == "JHN" {
			for _, c := range b.Chapters {
				if c.ID == "3" {
					chapter3 = c.Pack.Key
				}
			}
		}
	}
	partKey := ""
	for _, sb := range after.Bible(9001).Search.Books {
		if sb.ID == "JHN" {
			partKey = sb.Pack.Key
		}
	}
	slices.Sort(changedKeys)
	if want := slices.Sorted(slices.Values([]string{chapter3, partKey})); !slices.Equal(changedKeys, want) {
		t.Errorf("changed packs %v; want only JHN 3's %s and JHN's search part %s", changedKeys, chapter3, partKey)
	}
	// The words of the Bible's parts and the language's suggestions made
	// from them are those of a cold build, and the base is the language's
	// alone: without the Bible's words, it is the same as before.
	if got, want := after.Bible(9001).Search.Pack, before.Bible(9001).Search.Pack; got != want {
		t.Errorf("search base %+v after a one-verse change; want the same as before, %+v", got, want)
	}
	// The index's time, which search answers are last modified at,
	// moves with the part.
	if got, was := after.Bible(9001).Search.Modified(), before.Bible(9001).Search.Modified(); !got.After(was) {
		t.Errorf("search index modified at %s after a one-verse change, at %s before", got, was)
	}
	fresh, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := build.Build(ctx, build.Options{Content: content, Store: fresh}); err != nil {
		t.Fatal(err)
	}
	coldM, _, _ := publish.LoadCurrent(ctx, fresh)
	incremental, cold := partWords(t, store, after.Bible(9001)), partWords(t, fresh, coldM.Bible(9001))
	if !maps.Equal(incremental, cold) || cold["Truly"] == 0 {
		t.Errorf("the Bible's words after a one-verse change differ from a cold build's (%d and %d words, %d and %d Truly)",
			len(incremental), len(cold), incremental["Truly"], cold["Truly"])
	}
	if got, want := after.Suggestions, coldM.Suggestions; len(want) == 0 || !maps.EqualFunc(got, want, func(a, b publish.PackRef) bool { return a.Key == b.Key }) {
		t.Errorf("suggestions after a one-verse change %v; want a cold build's %v", got, want)
	}
	// The new index has the new text; the other books' text came back
	// from their published packs.
	x := loadSearch(t, store, after.Bible(9001))
	if r := x.Search("truly", "", 10); r.Total != 1 || x.Verse(r.Verses[0]) != "JHN.3.16" {
		t.Errorf("search for the changed verse: %+v", r)
	}
	if r := x.Search("existed", "", 10); r.Total == 0 || x.Verse(r.Verses[0]) != "GEN.1.1" {
		t.Errorf("search in an unchanged book found nothing")
	}
	// Footnotes and headings are not verse text: words found only in them
	// ("litres", "adamah" in notes; "danger", "exile" in headings) find
	// nothing as typed (typo correction may offer another word).
	for _, w := range []string{"litres", "adamah", "danger", "exile"} {
		if r := x.Search(w, search.IntentText, 10); r.Total != 0 && r.SearchInsteadFor == "" {
			t.Errorf("%q, only in notes or headings, found %d verses", w, r.Total)
		}
	}
}

// partWords sums the words of the parts of be's search index.
func partWords(t *testing.T, store publish.Store, be *publish.BibleEntry) map[string]int {
	t.Helper()
	sum := map[string]int{}
	for _, sb := range be.Search.Books {
		var words map[string]int
		readEntry(t, store, sb.Pack, publish.NameWords, &words)
		for w, n := range words {
			sum[w] += n
		}
	}
	return sum
}

func loadSearch(t *testing.T, store publish.Store, be *publish.BibleEntry) *search.Index {
	t.Helper()
	if be.Search == nil {
		t.Fatal("no search index")
	}
	x, err := search.Load(be.Search, func(ref publish.PackRef) ([]byte, error) {
		p, err := publish.LoadPack(context.Background(), store, ref)
		if err != nil {
			return nil, err
		}
		return p.Raw(publish.NameSearch)
	})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestLicenceChange: a Bible moving to another licence, and a licence
// becoming open, republish the catalogues and the Bible object, never the
// text: Cache-Control is decided by the edge from the current licence.
func TestLicenceChange(t *testing.T) {
	ctx := context.Background()
	content, store := fixtureCopy(t)
	if _, err := build.Build(ctx, build.Options{Content: content, Store: store}); err != nil {
		t.Fatal(err)
	}
	edit := func(path, from, to string) {
		t.Helper()
		p := filepath.Join(content, path)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), from) {
			t.Fatalf("%s has no %q", path, from)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), from, to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ name, path, from, to string }{
		{"Bible 9001 to licence 2", "bibles/9001/bible.json", `"license_id": 1`, `"license_id": 2`},
		{"licence 2 made open", "licenses/2.json", `"open": false`, `"open": true`},
	} {
		edit(c.path, c.from, c.to)
		rep, err := build.Build(ctx, build.Options{Content: content, Store: store})
		if err != nil {
			t.Fatal(err)
		}
		// The site pack (licences with their Bibles, the catalogue) and
		// the manifest.
		if !rep.Switched || rep.Written != 2 || rep.Rendered != 0 {
			t.Errorf("%s: %+v; want 2 objects written and no book rendered", c.name, rep)
		}
	}
}

// TestImportKeepsGoing imports a folder with a broken book: the error
// names file:line:col and the good book is imported.
func TestImportKeepsGoing(t *testing.T) {
	src, content := t.TempDir(), t.TempDir()
	good := "\\id JUD test\n\\h Jude\n\\c 1\n\\p\n\\v 1 Jude, a servant.\n"
	bad := "\\c 1\n\\v 1 no id line\n"
	if err := os.WriteFile(filepath.Join(src, "65-JUD.usfm"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "66-BAD.SFM"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := build.Import(content, src, build.BibleMeta{ID: 7, Abbreviation: "T", Title: "Test", LanguageTag: "en"}, build.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Books) != 1 || rep.Books[0] != "JUD" {
		t.Errorf("imported %v; want [JUD]", rep.Books)
	}
	if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0].Error(), "66-BAD.SFM:1:1") {
		t.Errorf("errors %v; want one naming 66-BAD.SFM:1:1", rep.Errors)
	}
	if _, err := os.Stat(filepath.Join(content, "bibles", "7", "JUD.usfm")); err != nil {
		t.Error(err)
	}
}

func TestDirection(t *testing.T) {
	for tag, want := range map[string]string{"he": "rtl", "ar": "rtl", "en": "ltr", "es": "ltr", "syr": "rtl", "sr-Cyrl": "ltr", "az-Arab": "rtl", "hbo": "rtl", "smp": "rtl", "grc": "ltr", "zzj": "ltr"} {
		m := build.BibleMeta{LanguageTag: tag}
		if got := m.Direction(); got != want {
			t.Errorf("direction of %s = %s; want %s", tag, got, want)
		}
	}
}

// TestImportZip imports an eBible-style *_usfm.zip.
func TestImportZip(t *testing.T) {
	src := filepath.Join(t.TempDir(), "eng-test_usfm.zip")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range map[string]string{
		"65-JUDeng-test.usfm": "\\id JUD\n\\toc2 Jude\n\\c 1\n\\p\n\\v 1 Jude, a servant.\n",
		"00-FRTeng-test.usfm": "\\id FRT\n\\h Preface\n\\ip A preface.\n",
		"copr.htm":            "<p>not a book</p>",
	} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	content := t.TempDir()
	buildtest.AddLicenses(t, content, 1)
	rep, err := build.Import(content, src, build.BibleMeta{ID: 8, Abbreviation: "T", Title: "Test", LanguageTag: "en", LicenseID: 1}, build.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rep.Books, rep.Peripheral) != "[JUD] [FRT]" || len(rep.Errors) != 0 {
		t.Errorf("imported %v, peripheral %v, errors %v; want [JUD] [FRT] and no errors", rep.Books, rep.Peripheral, rep.Errors)
	}
	store, _ := publish.OpenDir(t.TempDir())
	if _, err := build.Build(context.Background(), build.Options{Content: content, Store: store}); err != nil {
		t.Fatal(err)
	}
	m, _, _ := publish.LoadCurrent(context.Background(), store)
	if b := m.Bible(8); b == nil || len(b.Books) != 1 || b.Books[0].ID != "JUD" {
		t.Errorf("published books %+v; want JUD only (FRT is peripheral)", b)
	}
}

// TestPackCap: a chapter beyond the cap on one pack leaves its Bible out
// of the build, named with file:line:col and kept as the previous build
// published it, while the other Bibles publish; a build in which no Bible
// can be published switches nothing.
func TestPackCap(t *testing.T) {
	ctx := context.Background()
	content, store := fixtureCopy(t)
	_, err := build.Build(ctx, build.Options{Content: content, Store: store, MaxPackBytes: 20 << 10})
	if err == nil || !strings.Contains(err.Error(), "no Bible of") {
		t.Errorf("build with a 20 KiB cap: %v; want no Bible published", err)
	}
	if _, err := store.Current(ctx); !publish.IsNotExist(err) {
		t.Errorf("a build that failed became current (%v)", err)
	}
	if _, err := build.Build(ctx, build.Options{Content: content, Store: store}); err != nil {
		t.Errorf("the fixtures under the real cap: %v", err)
	}

	content, src := t.TempDir(), t.TempDir()
	buildtest.AddLicenses(t, content, 1)
	long := "\\id JUD test\n\\h Jude\n\\c 1\n\\p\n"
	for v := 1; v <= 25; v++ {
		long += fmt.Sprintf("\\v %d %s\n", v, strings.Repeat("word ", 200))
	}
	for id, book := range map[int32]string{7: goodJUD, 8: long} {
		writeFiles(t, src, map[string]string{"JUD.usfm": book})
		if _, err := build.Import(content, src, testMeta(id), build.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	store, _ = publish.OpenDir(t.TempDir())
	_, before := buildTo(t, content, store)
	// A corrected verse, so that the book is rendered again.
	writeFiles(t, src, map[string]string{"JUD.usfm": strings.Replace(long, "\\v 2 word", "\\v 2 Word", 1)})
	if _, err := build.Import(content, src, testMeta(8), build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	rep, err := build.Build(ctx, build.Options{Content: content, Store: store, MaxPackBytes: 20 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Broken) != 1 || !strings.Contains(rep.Broken[0].Error(), "JUD.usfm:3:1: Bible 8 T, JUD 1: the pack would hold more than 20480 bytes") ||
		!strings.Contains(rep.Broken[0].Error(), "the previous build's copy stays published") {
		t.Errorf("broken %v; want Bible 8's JUD 1 located and kept", rep.Broken)
	}
	m, _, _ := publish.LoadCurrent(ctx, store)
	if b := m.Bible(8); b == nil || b.Pack != before.Bible(8).Pack {
		t.Errorf("Bible 8 after the failed build: %+v; want its previous entry", b)
	}
	if m.Bible(7) == nil {
		t.Error("Bible 7 not published")
	}
}

// TestWarningsKept: an unchanged rebuild renders nothing and still reports
// the warnings of every book, and the progress reaches the total with a
// Bible named.
func TestWarningsKept(t *testing.T) {
	ctx := context.Background()
	src, content := t.TempDir(), t.TempDir()
	book := "\\id JUD test\n\\h Jude\n\\c 1\n\\p\n\\v 1 Jude, a \\bogus servant.\n\\v 2 Mercy.\n"
	if err := os.WriteFile(filepath.Join(src, "65-JUD.usfm"), []byte(book), 0o644); err != nil {
		t.Fatal(err)
	}
	buildtest.AddLicenses(t, content, 1)
	if _, err := build.Import(content, src, build.BibleMeta{ID: 7, Abbreviation: "T", Title: "Test", LanguageTag: "en", LicenseID: 1}, build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var last build.Progress
	first, err := build.Build(ctx, build.Options{Content: content, Store: store, Progress: func(p build.Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Warnings) == 0 {
		t.Fatal("no warning for an unknown marker")
	}
	if last.Done != 1 || last.Total != 1 || last.Bible != "7 T" {
		t.Errorf("last progress %+v; want 1/1 books of Bible 7 T", last)
	}
	again, err := build.Build(ctx, build.Options{Content: content, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if again.Rendered != 0 || fmt.Sprint(again.Warnings) != fmt.Sprint(first.Warnings) {
		t.Errorf("unchanged rebuild: %d rendered, warnings %v; want none rendered and %v", again.Rendered, again.Warnings, first.Warnings)
	}
}
