package build_test

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/build/buildtest"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
)

const (
	goodJHN = "\\id JHN test\n\\h John\n\\c 1\n\\p\n\\v 1 In the beginning was the Word.\n\\v 2 He was with God.\n\\v 3 All things came to be through him.\n\\v 4 In him was life.\n\\v 5 The light shines.\n"
	goodJUD = "\\id JUD test\n\\h Jude\n\\c 1\n\\p\n\\v 1 Jude, a servant.\n"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func testMeta(id int32) build.BibleMeta {
	return build.BibleMeta{ID: id, Abbreviation: "T", Title: "Test", LanguageTag: "en", LicenseID: 1}
}

func buildTo(t *testing.T, content string, store publish.Store) (*build.Report, *publish.Manifest) {
	t.Helper()
	rep, err := build.Build(context.Background(), build.Options{Content: content, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := publish.LoadCurrent(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	return rep, m
}

// TestReimportDamagedBook re-imports a damaged copy of a good book: the
// import refuses it with file:line:col, keeps the good copy in the content
// directory, imports the other book, and the build still publishes the
// good text.
func TestReimportDamagedBook(t *testing.T) {
	content, src := t.TempDir(), t.TempDir()
	buildtest.AddLicenses(t, content, 1)
	writeFiles(t, src, map[string]string{"JHN.usfm": goodJHN, "JUD.usfm": goodJUD})
	if rep, err := build.Import(content, src, testMeta(7), build.ImportOptions{}); err != nil || rep.Failed() {
		t.Fatalf("first import: %v %+v", err, rep)
	}
	damaged := strings.Replace(goodJHN, `\v 5`, `\vv 5`, 1)
	changedJUD := strings.Replace(goodJUD, "servant", "servant of Jesus", 1)
	writeFiles(t, src, map[string]string{"JHN.usfm": damaged, "JUD.usfm": changedJUD})
	rep, err := build.Import(content, src, testMeta(7), build.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() || len(rep.Refused) != 1 || rep.Refused[0] != "JHN" {
		t.Fatalf("refused %v; want [JHN]", rep.Refused)
	}
	if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0].Error(), "JHN.usfm:9:1: unknown marker \\vv before the number \"5\"") {
		t.Errorf("errors %v; want JHN.usfm:9:1 naming \\vv", rep.Errors)
	}
	if got, _ := os.ReadFile(filepath.Join(content, "bibles", "7", "JHN.usfm")); string(got) != goodJHN {
		t.Errorf("the good JHN was replaced or removed: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(content, "bibles", "7", "JUD.usfm")); string(got) != changedJUD {
		t.Errorf("JUD was not imported: %q", got)
	}
	store, _ := publish.OpenDir(t.TempDir())
	_, m := buildTo(t, content, store)
	p := passage(t, store, m, 7, "JHN", "1", publish.PassageName("5", "text"))
	if p.Content != "The light shines." {
		t.Errorf("JHN 1:5 = %q; want the good copy's text", p.Content)
	}

	// --allow-damaged imports it and says so; the verse is lost into 1:4.
	rep, err = build.Import(content, src, testMeta(7), build.ImportOptions{AllowDamaged: true})
	if err != nil || rep.Failed() || len(rep.Damaged) != 1 || rep.Damaged[0] != "JHN" {
		t.Fatalf("--allow-damaged: %v, damaged %v, refused %v", err, rep.Damaged, rep.Refused)
	}
	if got, _ := os.ReadFile(filepath.Join(content, "bibles", "7", "JHN.usfm")); string(got) != damaged {
		t.Error("--allow-damaged did not import the damaged book")
	}
}

// TestImportCheck reports without writing.
func TestImportCheck(t *testing.T) {
	content, src := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"JHN.usfm": strings.Replace(goodJHN, `\c 1`, `\c three`, 1), "JUD.usfm": goodJUD})
	rep, err := build.Import(content, src, testMeta(7), build.ImportOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 1 || len(rep.Books) != 1 || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0].Error(), `JHN.usfm:3:1: chapter number "three" is not a number`) {
		t.Errorf("refused %v, books %v, errors %v", rep.Refused, rep.Books, rep.Errors)
	}
	var found []string
	filepath.WalkDir(content, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			found = append(found, p)
		}
		return nil
	})
	if len(found) != 0 {
		t.Errorf("--check wrote %v", found)
	}
}

// TestImportRefusals checks books that are refused whatever the flags, and
// an unknown book code.
func TestImportRefusals(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"chapter that cannot be an id", "\\id JHN\n\\c 99999999999999999999\n\\p \\v 1 a\n", "B.usfm:2:1: chapter number 99999999999999999999 is beyond the cap of 1000"},
		{"unknown book code", "\\id XYZ\n\\c 1\n\\p \\v 1 a\n", "B.usfm:1:1: book code XYZ is neither a book of the spec's table nor a USFM peripheral book"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			content, src := t.TempDir(), t.TempDir()
			writeFiles(t, src, map[string]string{"B.usfm": tc.src, "JUD.usfm": goodJUD})
			rep, err := build.Import(content, src, testMeta(7), build.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Refused) != 1 || !strings.Contains(errorsText(rep.Errors), tc.want) {
				t.Errorf("refused %v, errors %v; want %q", rep.Refused, rep.Errors, tc.want)
			}
		})
	}
	t.Run("beyond the caps even with --allow-damaged", func(t *testing.T) {
		content, src := t.TempDir(), t.TempDir()
		var b strings.Builder
		b.WriteString("\\id JHN\n\\c 1\n\\p\n")
		for v := 1; v <= bible.MaxVerses+1; v++ {
			b.WriteString("\\v " + itoa(v) + " a\n")
		}
		writeFiles(t, src, map[string]string{"JHN.usfm": b.String(), "JUD.usfm": goodJUD})
		rep, err := build.Import(content, src, testMeta(7), build.ImportOptions{AllowDamaged: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Refused) != 1 || !strings.Contains(errorsText(rep.Errors), "JHN.usfm:1004:1: more than 1000 verses in chapter 1 (cannot be published)") {
			t.Errorf("refused %v, errors %v", rep.Refused, rep.Errors)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

func errorsText(errs []error) string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return strings.Join(s, "\n")
}

// TestBuildBrokenBible writes a book whose chapter number cannot be an id
// straight into the content directory (as an older import or a hand edit
// could): the build publishes the other Bible, names the broken one with
// file and line, and keeps the broken Bible's previous copy.
func TestBuildBrokenBible(t *testing.T) {
	content := t.TempDir()
	buildtest.AddLicenses(t, content, 1)
	for _, id := range []int32{7, 8} {
		m := testMeta(id)
		writeFiles(t, filepath.Join(content, "bibles", itoa(int(id))), map[string]string{"JUD.usfm": goodJUD, "bible.json": string(mustJSON(t, m))})
	}
	store, _ := publish.OpenDir(t.TempDir())
	if rep, _ := buildTo(t, content, store); len(rep.Broken) != 0 {
		t.Fatalf("broken %v", rep.Broken)
	}
	writeFiles(t, filepath.Join(content, "bibles", "8"), map[string]string{
		"JUD.usfm": strings.Replace(goodJUD, `\c 1`, `\c 99999999999999999999`, 1)})
	writeFiles(t, filepath.Join(content, "bibles", "7"), map[string]string{
		"JUD.usfm": strings.Replace(goodJUD, "servant", "slave", 1)})
	rep, m := buildTo(t, content, store)
	if len(rep.Broken) != 1 || !strings.Contains(rep.Broken[0].Error(), filepath.Join(content, "bibles", "8", "JUD.usfm")+":3:1: chapter number") {
		t.Fatalf("broken %v; want bibles/8/JUD.usfm:3:1", rep.Broken)
	}
	if p := passage(t, store, m, 7, "JUD", "1", publish.PassageName("1", "text")); p.Content != "Jude, a slave." {
		t.Errorf("bible 7 not republished: %q", p.Content)
	}
	if p := passage(t, store, m, 8, "JUD", "1", publish.PassageName("1", "text")); p.Content != "Jude, a servant." {
		t.Errorf("bible 8's previous copy not kept: %q", p.Content)
	}
}

// TestBuildChecksReferences: a Bible whose licence or organization does
// not exist is left out of the build, named with what is missing; alone, it
// publishes nothing; beside other Bibles, they publish and it keeps what the
// previous build published of it.
func TestBuildChecksReferences(t *testing.T) {
	content := t.TempDir()
	m := testMeta(7)
	m.OrganizationID = "7a0e0b5e-0000-4000-8000-0000000000aa"
	writeFiles(t, filepath.Join(content, "bibles", "7"), map[string]string{"JUD.usfm": goodJUD, "bible.json": string(mustJSON(t, m))})
	storeDir := t.TempDir()
	store, _ := publish.OpenDir(storeDir)
	_, err := build.Build(context.Background(), build.Options{Content: content, Store: store})
	if err == nil || !strings.Contains(err.Error(), "bible 7: licence 1 does not exist") || !strings.Contains(err.Error(), "organization 7a0e0b5e-0000-4000-8000-0000000000aa does not exist") {
		t.Fatalf("got %v", err)
	}
	if _, _, err := publish.LoadCurrent(context.Background(), store); !publish.IsNotExist(err) {
		t.Errorf("a build was published: %v", err)
	}
	buildtest.AddLicenses(t, content, 1)
	if _, err := build.AddOrganization(content, build.Organization{ID: m.OrganizationID, PrimaryLanguage: "en", Names: map[string]string{"en": "P"}}, false); err != nil {
		t.Fatal(err)
	}
	buildTo(t, content, store)

	// Bible 7's licence goes missing while Bible 8 is added and Bible 7's
	// text changes: 8 publishes, 7 stays as it was.
	writeFiles(t, filepath.Join(content, "bibles", "8"), map[string]string{"JUD.usfm": goodJUD, "bible.json": string(mustJSON(t, testMeta(8)))})
	writeFiles(t, filepath.Join(content, "bibles", "7"), map[string]string{"JUD.usfm": strings.Replace(goodJUD, "servant", "slave", 1)})
	m.LicenseID = 2
	writeFiles(t, filepath.Join(content, "bibles", "7"), map[string]string{"bible.json": string(mustJSON(t, m))})
	rep, err := build.Build(context.Background(), build.Options{Content: content, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Broken) != 1 || !strings.Contains(rep.Broken[0].Error(), "bible 7: licence 2 does not exist") || !strings.Contains(rep.Broken[0].Error(), "previous build's copy stays published") {
		t.Fatalf("broken %v; want bible 7's missing licence 2, kept", rep.Broken)
	}
	man, _, err := publish.LoadCurrent(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	if p := passage(t, store, man, 7, "JUD", "1", publish.PassageName("1", "text")); p.Content != "Jude, a servant." {
		t.Errorf("bible 7's previous copy not kept: %q", p.Content)
	}
	if p := passage(t, store, man, 8, "JUD", "1", publish.PassageName("1", "text")); p.Content != "Jude, a servant." {
		t.Errorf("bible 8 not published: %q", p.Content)
	}
}

// TestDBLBundle imports the DBL text bundles of fixtures/dbl, zipped as
// publishers deliver them, with no flag at all, and builds them.
func TestDBLBundle(t *testing.T) {
	content := t.TempDir()
	eng := zipDir(t, filepath.Join(repotest.Root(t), "fixtures", "dbl", "eng-sample"), "eng-sample/")
	rep, err := build.Import(content, eng, build.BibleMeta{}, build.ImportOptions{})
	if err != nil || rep.Failed() {
		t.Fatalf("import: %v %+v", err, rep)
	}
	if rep.Bible != 1 || strings.Join(bookIDs(rep.Books), " ") != "PSA JHN" {
		t.Errorf("bible %d books %v; want bible 1 with PSA JHN", rep.Bible, rep.Books)
	}
	if rep.Repairs["psalm title before its first verse"] != 0 {
		t.Errorf("repairs %v; the \\d is its own paragraph", rep.Repairs)
	}
	var meta build.BibleMeta
	b, _ := os.ReadFile(filepath.Join(content, "bibles", "1", "bible.json"))
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Title != "Open Sample Translation" || meta.Abbreviation != "OST" || meta.LanguageTag != "en" || meta.TextDirection != "ltr" ||
		meta.Copyright != "Open Sample Translation © 2026 Open Scripture Workshop.\nWritten for testing; may be copied freely." ||
		!strings.HasPrefix(meta.PromotionalContent, "Open Sample Translation\nA short paraphrase") ||
		meta.PublisherURL != "https://openscripture.example.org" || meta.DBLID != "5a1e0f2b7c3d4e5f" ||
		meta.BookNames["JHN"].Long != "The Good News as John Told It" || meta.LicenseID != 1 || meta.OrganizationID == "" {
		t.Errorf("bible.json = %s", b)
	}
	if _, err := os.Stat(filepath.Join(content, "bibles", "1", "license.xml")); err != nil {
		t.Error("license.xml not kept:", err)
	}
	for _, f := range []string{"JHN.usx", "PSA.usx"} {
		if _, err := os.Stat(filepath.Join(content, "bibles", "1", f)); err != nil {
			t.Error(err)
		}
	}

	// A re-import finds the same Bible, organization and licence; flags
	// override, and a new abbreviation is a new identity: --replace.
	if _, err := build.Import(content, eng, build.BibleMeta{Abbreviation: "OSTX"}, build.ImportOptions{}); err == nil || !strings.Contains(err.Error(), `abbreviation "OSTX" (was "OST")`) {
		t.Fatalf("re-import under another abbreviation without --replace: %v", err)
	}
	rep, err = build.Import(content, eng, build.BibleMeta{Abbreviation: "OSTX"}, build.ImportOptions{Replace: true})
	if err != nil || rep.Bible != 1 {
		t.Fatalf("re-import: %v, bible %d", err, rep.Bible)
	}
	b, _ = os.ReadFile(filepath.Join(content, "bibles", "1", "bible.json"))
	if !strings.Contains(string(b), `"abbreviation": "OSTX"`) {
		t.Errorf("flag did not override: %s", b)
	}
	if lic, _ := filepath.Glob(filepath.Join(content, "licenses", "*.json")); len(lic) != 1 {
		t.Errorf("licences %v; want one", lic)
	}

	hbo := zipDir(t, filepath.Join(repotest.Root(t), "fixtures", "dbl", "hbo-sample"), "")
	rep, err = build.Import(content, hbo, build.BibleMeta{}, build.ImportOptions{})
	if err != nil || rep.Failed() || rep.Bible != 2 {
		t.Fatalf("hbo import: %v %+v", err, rep)
	}
	store, _ := publish.OpenDir(t.TempDir())
	_, m := buildTo(t, content, store)
	if idx := readIndex(t, store, m, 2); idx.TextDirection != "rtl" || idx.Books[0].Title != "בראשית" {
		t.Errorf("hbo index: direction %q, title %q", idx.TextDirection, idx.Books[0].Title)
	}
	idx := readIndex(t, store, m, 1)
	if jhn := idx.Book("JHN"); jhn == nil || jhn.FullTitle != "The Good News as John Told It" || len(jhn.Chapters) != 2 {
		t.Errorf("JHN index %+v", jhn)
	}
	if p := passage(t, store, m, 1, "PSA", "3", publish.PassageName("1", "text")); p.Content != "LORD, how many are against me!" {
		t.Errorf("PSA 3:1 = %q", p.Content)
	}
	if p := passage(t, store, m, 1, "JHN", "1", publish.PassageName("3", "text")); p.Content != "Everything came to be through him; nothing that exists came to be without him." {
		t.Errorf("JHN 1:3 = %q", p.Content)
	}

	// New book names in bible.json re-render the book (they are part of
	// what makes a book's packs reusable).
	var m1 build.BibleMeta
	b, _ = os.ReadFile(filepath.Join(content, "bibles", "1", "bible.json"))
	json.Unmarshal(b, &m1)
	m1.BookNames["JHN"] = build.BookName{Short: "Jean", Long: "Évangile selon Jean", Abbreviation: "Jn"}
	writeFiles(t, filepath.Join(content, "bibles", "1"), map[string]string{"bible.json": string(mustJSON(t, m1))})
	rep2, m := buildTo(t, content, store)
	if jhn := readIndex(t, store, m, 1).Book("JHN"); jhn == nil || jhn.Title != "Jean" || rep2.Rendered != 1 {
		t.Errorf("after renaming: %d books rendered, JHN %+v", rep2.Rendered, jhn)
	}
}

// A zip holding a bundle at its root and another in a folder listed after
// it imports the root one, as a folder does: the shallowest metadata.xml
// names the bundle, whatever the order of the zip's entries.
func TestDBLBundleShallowestMetadata(t *testing.T) {
	fixtures := filepath.Join(repotest.Root(t), "fixtures", "dbl")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(fixtures, "eng-sample"))); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "zz"), os.DirFS(filepath.Join(fixtures, "hbo-sample"))); err != nil {
		t.Fatal(err)
	}
	rep, err := build.Import(t.TempDir(), zipDir(t, dir, ""), build.BibleMeta{}, build.ImportOptions{})
	if err != nil || rep.Failed() {
		t.Fatalf("import: %v %+v", err, rep)
	}
	if got := strings.Join(bookIDs(rep.Books), " "); got != "PSA JHN" {
		t.Errorf("books %s; want the root bundle's PSA JHN", got)
	}
}

func bookIDs(ids []bible.BookID) []string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return s
}

// zipDir zips dir, each file under prefix, into a temporary .zip.
func zipDir(t *testing.T, dir, prefix string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(dir)+".zip")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		w, err := zw.Create(prefix + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return out
}

// TestImportStaleBooks: a book the source does not have is kept unless
// ReplaceAll, which removes nothing when a file of the source could not be
// read (it might be that book); a book delivered as USX instead of USFM
// replaces its .usfm.
func TestImportStaleBooks(t *testing.T) {
	content := t.TempDir()
	dir := filepath.Join(content, "bibles", "7")
	src1, src2, src3 := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, src1, map[string]string{"JHN.usfm": goodJHN, "JUD.usfm": goodJUD})
	writeFiles(t, src2, map[string]string{"JUD.usfm": goodJUD, "BAD.usfm": "\\c 1\n\\v 1 no id\n"})
	writeFiles(t, src3, map[string]string{"JUD.usx": `<usx version="3.0"><book code="JUD" style="id"/><chapter number="1"/><para style="p"><verse number="1"/>Jude.</para></usx>`})
	for i, step := range []struct {
		src        string
		replaceAll bool
		want       string
		kept       string
		removed    string
		err        string
	}{
		{src: src1, want: "JHN.usfm JUD.usfm bible.json"},
		{src: src2, want: "JHN.usfm JUD.usfm bible.json", kept: "[JHN]"},
		{src: src2, replaceAll: true, want: "JHN.usfm JUD.usfm bible.json", err: "might be any of JHN"},
		{src: src3, want: "JHN.usfm JUD.usx bible.json", kept: "[JHN]"},
		{src: src3, replaceAll: true, want: "JUD.usx bible.json", removed: "[JHN]"},
	} {
		rep, err := build.Import(content, step.src, testMeta(7), build.ImportOptions{ReplaceAll: step.replaceAll})
		if step.err != "" {
			if err == nil || !strings.Contains(err.Error(), step.err) {
				t.Errorf("step %d: %v; want an error saying %q", i+1, err, step.err)
			}
		} else if err != nil {
			t.Fatal(err)
		} else if fmt.Sprint(rep.Kept) != fmt.Sprint(splitOr(step.kept)) || fmt.Sprint(rep.Removed) != fmt.Sprint(splitOr(step.removed)) {
			t.Errorf("step %d: kept %v, removed %v; want %s, %s", i+1, rep.Kept, rep.Removed, step.kept, step.removed)
		}
		var names []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if got := strings.Join(names, " "); got != step.want {
			t.Errorf("step %d: content has %s; want %s", i+1, got, step.want)
		}
	}
}

// splitOr is "[A B]" as the books it names, nil for "".
func splitOr(s string) []bible.BookID {
	var ids []bible.BookID
	for _, f := range strings.Fields(strings.Trim(s, "[]")) {
		ids = append(ids, bible.BookID(f))
	}
	return ids
}
