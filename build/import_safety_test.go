package build_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/build/buildtest"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
)

// copyShared copies files of a shared Bible into a new folder.
func copyShared(t *testing.T, bibleDir string, names ...string) string {
	t.Helper()
	dst := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(repotest.Shared(t, "bibles", bibleDir, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestImportIdentity: another Bible's book imported into an existing id
// is refused, naming what differs, unless Replace; so is a new title or
// language. A corrected book of the same Bible is not.
func TestImportIdentity(t *testing.T) {
	content := t.TempDir()
	web := copyShared(t, "eng-web", "73-JHNeng-web.usfm.gz", "95-JUDeng-web.usfm.gz")
	meta := build.BibleMeta{ID: 206, Abbreviation: "WEB", Title: "World English Bible", LanguageTag: "en", LicenseID: 1}
	if _, err := build.Import(content, web, meta, build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	jhn := filepath.Join(content, "bibles", "206", "JHN.usfm")
	before, _ := os.ReadFile(jhn)

	bsb := copyShared(t, "eng-bsb", "44JHNBSB.usfm.gz")
	_, err := build.Import(content, bsb, build.BibleMeta{ID: 206}, build.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "is not Bible 206 as imported before: the text: ") ||
		!strings.Contains(err.Error(), "--replace") {
		t.Fatalf("another Bible's John: %v; want refused, naming the text", err)
	}
	if after, _ := os.ReadFile(jhn); !bytes.Equal(after, before) {
		t.Error("the refused import changed JHN")
	}
	for _, m := range []build.BibleMeta{{ID: 206, Title: "Berean Standard Bible"}, {ID: 206, LanguageTag: "es"}} {
		if _, err := build.Import(content, web, m, build.ImportOptions{}); err == nil || !strings.Contains(err.Error(), "(was ") {
			t.Errorf("import as %+v: %v; want refused, naming the field", m, err)
		}
	}

	// A corrected verse is the same Bible.
	fixed := t.TempDir()
	writeFiles(t, fixed, map[string]string{"JHN.usfm": strings.Replace(string(before), "In the beginning", "In the very beginning", 1)})
	if _, err := build.Import(content, fixed, build.BibleMeta{ID: 206}, build.ImportOptions{}); err != nil {
		t.Errorf("a corrected John: %v", err)
	}
	rep, err := build.Import(content, bsb, build.BibleMeta{ID: 206}, build.ImportOptions{Replace: true})
	if err != nil || len(rep.Kept) != 1 || rep.Kept[0] != "JUD" {
		t.Errorf("--replace: %v, kept %v; want imported, JUD kept", err, rep)
	}
}

// TestImportLanguage: tags are stored as the language catalogue's ids, or
// refused with a suggestion.
func TestImportLanguage(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"spa", "es", ""},
		{"eng", "en", ""},
		{"en_US", "en", ""},
		{"sr_Latn", "sr-Latn", ""},
		{"hbo-Hebr", "hbo", ""},
		{"Spanish", "", `did you mean "es"?`},
		{"english", "", `did you mean "en"?`},
		{"en_XX_bogus", "", `did you mean "en"?`},
		{"x-klingon", "", "give a BCP 47 tag"},
	} {
		content, src := t.TempDir(), t.TempDir()
		writeFiles(t, src, map[string]string{"JUD.usfm": goodJUD})
		m := testMeta(7)
		m.LanguageTag = c.in
		_, err := build.Import(content, src, m, build.ImportOptions{})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("language %q: %v; want an error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("language %q: %v", c.in, err)
			continue
		}
		b, _ := os.ReadFile(filepath.Join(content, "bibles", "7", "bible.json"))
		if !strings.Contains(string(b), fmt.Sprintf(`"language_tag": %q`, c.want)) {
			t.Errorf("language %q stored as %s; want %q", c.in, b, c.want)
		}
	}
}

// TestImportInvalidUTF8 is a located refusal, not U+FFFD in the text.
func TestImportInvalidUTF8(t *testing.T) {
	content, src := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"JUD.usfm": "\\id JUD\n\\c 1\n\\p\n\\v 1 Jude, a serv\xe9nt.\n"})
	rep, err := build.Import(content, src, testMeta(7), build.ImportOptions{AllowDamaged: true})
	if err == nil || len(rep.Refused) != 1 || len(rep.Errors) != 1 ||
		!strings.Contains(rep.Errors[0].Error(), "JUD.usfm:4:18: byte 0xe9 is not UTF-8") {
		t.Errorf("invalid UTF-8: %v, %+v; want JUD refused at 4:18", err, rep)
	}
}

// TestImportVerseCap: a book within the per-chapter caps but beyond the
// verses of one book is refused at import, at the first verse beyond.
func TestImportVerseCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("\\id JUD\n")
	for c := 1; c <= 11; c++ {
		fmt.Fprintf(&b, "\\c %d\n\\p\n", c)
		for v := 1; v <= 1000; v++ {
			fmt.Fprintf(&b, "\\v %d w\n", v)
		}
	}
	content, src := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"JUD.usfm": b.String()})
	rep, err := build.Import(content, src, testMeta(7), build.ImportOptions{AllowDamaged: true})
	// Verse 10001 is verse 1 of chapter 11: line 1 + 10 × 1002 + 3.
	if err == nil || len(rep.Errors) != 1 || fmt.Sprint(rep.Refused) != "[JUD]" || !strings.Contains(rep.Errors[0].Error(), "JUD.usfm:10024:1: verse marker number 10001: beyond the cap of 10000 verses in one book") {
		t.Errorf("11,000 verses: %v, %v", err, rep.Errors)
	}
}

// TestImportSourceRefusals: links and FIFOs in a source, zip bombs and
// archives of too many members are refused before they are read whole.
func TestImportSourceRefusals(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("not for the content directory"), 0o600)
	bundle := t.TempDir()
	writeFiles(t, bundle, map[string]string{"JUD.usfm": goodJUD})
	if err := os.Symlink(secret, filepath.Join(bundle, "JHN.usfm")); err != nil {
		t.Fatal(err)
	}
	fifo := t.TempDir()
	writeFiles(t, fifo, map[string]string{"JUD.usfm": goodJUD})
	if err := syscall.Mkfifo(filepath.Join(fifo, "JHN.usfm"), 0o644); err != nil {
		t.Fatal(err)
	}
	linkedMeta := t.TempDir()
	writeFiles(t, linkedMeta, map[string]string{"metadata.xml": "<DBLMetadata/>"})
	os.Symlink(secret, filepath.Join(linkedMeta, "license.xml"))

	bomb := filepath.Join(t.TempDir(), "bomb.zip")
	writeZip(t, bomb, func(zw *zip.Writer) {
		w, _ := zw.Create("GEN.usfm")
		w.Write([]byte("\\id GEN\n"))
		zero := make([]byte, 1<<20)
		for range 200 {
			w.Write(zero)
		}
	})
	many := filepath.Join(t.TempDir(), "many.zip")
	writeZip(t, many, func(zw *zip.Writer) {
		for i := range 10001 {
			zw.Create(fmt.Sprintf("f%d.txt", i))
		}
	})
	for _, c := range []struct{ name, src, want string }{
		{"symlink", bundle, "JHN.usfm: a symbolic link"},
		{"fifo", fifo, "JHN.usfm: not a regular file"},
		{"fifo named", filepath.Join(fifo, "JHN.usfm"), "not a regular file"},
		{"bundle licence link", linkedMeta, "license.xml: a symbolic link"},
		{"zip bomb", bomb, "bomb.zip:GEN.usfm: decompresses to more than 100 times its compressed size"},
		{"members", many, "more than 10000 files or members"},
	} {
		content := t.TempDir()
		_, err := build.Import(content, c.src, testMeta(7), build.ImportOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
		if entries, _ := os.ReadDir(content); len(entries) != 0 {
			t.Errorf("%s: the refused import wrote %v", c.name, entries)
		}
	}
}

func writeZip(t *testing.T, p string, fill func(*zip.Writer)) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	fill(zw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestImportCheckReportsRemovals: --check with --replace-all says which
// books would go and removes none.
func TestImportCheckReportsRemovals(t *testing.T) {
	content, src1, src2 := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, src1, map[string]string{"JHN.usfm": goodJHN, "JUD.usfm": goodJUD})
	writeFiles(t, src2, map[string]string{"JUD.usfm": goodJUD})
	if _, err := build.Import(content, src1, testMeta(7), build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	rep, err := build.Import(content, src2, testMeta(7), build.ImportOptions{Check: true, ReplaceAll: true})
	if err != nil || fmt.Sprint(rep.Removed) != "[JHN]" {
		t.Fatalf("check: %v, removed %v; want [JHN]", err, rep.Removed)
	}
	if _, err := os.Stat(filepath.Join(content, "bibles", "7", "JHN.usfm")); err != nil {
		t.Errorf("--check removed JHN: %v", err)
	}
}

// TestBuildNeverEmpties: a missing or empty content directory is an
// error, and so is a build leaving out more than MaxShrink of the current
// build's Bibles, unless AllowShrink; nothing is switched either way.
func TestBuildNeverEmpties(t *testing.T) {
	ctx := context.Background()
	content, src := t.TempDir(), t.TempDir()
	buildtest.AddLicenses(t, content, 1)
	writeFiles(t, src, map[string]string{"JUD.usfm": goodJUD})
	for id := int32(1); id <= 3; id++ {
		if _, err := build.Import(content, src, testMeta(id), build.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	store, _ := publish.OpenDir(t.TempDir())
	first, _ := buildTo(t, content, store)
	for _, c := range []struct{ content, want string }{
		{filepath.Join(content, "misspelt"), "no such file or directory"},
		{t.TempDir(), "holds no Bible"},
	} {
		if _, err := build.Build(ctx, build.Options{Content: c.content, Store: store}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("build of %s: %v; want %q", c.content, err, c.want)
		}
	}
	if err := os.RemoveAll(filepath.Join(content, "bibles", "2")); err != nil {
		t.Fatal(err)
	}
	_, err := build.Build(ctx, build.Options{Content: content, Store: store})
	if err == nil || !strings.Contains(err.Error(), "1 of the 3 Bibles of the current build are not in the content directory (2)") ||
		!strings.Contains(err.Error(), "--allow-shrink") {
		t.Errorf("build without Bible 2: %v; want refused", err)
	}
	if cur, _ := store.Current(ctx); cur != first.Build {
		t.Errorf("current %s after refused builds; want %s", cur, first.Build)
	}
	rep, err := build.Build(ctx, build.Options{Content: content, Store: store, AllowShrink: true})
	if err != nil || !rep.Switched {
		t.Errorf("build with AllowShrink: %v", err)
	}
}

// TestUnreadableBibleKept: a Bible whose bible.json cannot be read keeps
// what the previous build published of it, in the manifest and in the
// Bible catalogue, while the other Bibles publish.
func TestUnreadableBibleKept(t *testing.T) {
	ctx := context.Background()
	content, src := t.TempDir(), t.TempDir()
	buildtest.AddLicenses(t, content, 1)
	writeFiles(t, src, map[string]string{"JUD.usfm": goodJUD})
	for _, id := range []int32{7, 8} {
		if _, err := build.Import(content, src, testMeta(id), build.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	store, _ := publish.OpenDir(t.TempDir())
	_, before := buildTo(t, content, store)
	writeFiles(t, content, map[string]string{
		"bibles/8/bible.json": `{"id": 8, "title": `,
		"bibles/9/bible.json": `{"id": 9}`,
		"bibles/7/JUD.usfm":   strings.Replace(goodJUD, "servant", "slave", 1),
	})
	rep, err := build.Build(ctx, build.Options{Content: content, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(rep.Broken)
	if len(rep.Broken) != 2 || !strings.Contains(got, filepath.Join("bibles", "8")+": ") || !strings.Contains(got, "the previous build's copy stays published") ||
		!strings.Contains(got, "missing or bad abbreviation, title") || !strings.Contains(got, "it is not published") {
		t.Errorf("broken: %v", rep.Broken)
	}
	m, _, _ := publish.LoadCurrent(ctx, store)
	if m.Bible(8) == nil || m.Bible(8).Pack != before.Bible(8).Pack || m.Bible(7).Pack == before.Bible(7).Pack && m.Bible(7).Books[0].Source == before.Bible(7).Books[0].Source {
		t.Errorf("Bible 8 %+v (was %+v); want kept, and Bible 7 changed", m.Bible(8), before.Bible(8))
	}
	p, err := publish.LoadPack(ctx, store, *m.Site)
	if err != nil {
		t.Fatal(err)
	}
	var cat []publish.CatalogBible
	var lic []publish.License
	if err := p.Decode(publish.NameCatalogBibles, &cat); err != nil {
		t.Fatal(err)
	}
	if err := p.Decode(publish.NameLicenses, &lic); err != nil {
		t.Fatal(err)
	}
	if len(cat) != 2 || !strings.Contains(string(cat[1].Bible), `"id":8`) || fmt.Sprint(lic[0].BibleIDs) != "[7 8]" {
		t.Errorf("catalogue %d entries (%+v), licence Bibles %v; want 7 and 8", len(cat), cat, lic[0].BibleIDs)
	}
}
