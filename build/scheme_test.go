package build_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/build/buildtest"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
	"github.com/bibleplatform/platform/versification"
)

// customVRS is a versification of our own: John 1 has six verses, the
// sixth holding the text of the original's 1:5.
const customVRS = "# Versification \"Sample\"\nJHN 1:6\nJUD 1:25\nJHN 1:6 = JHN 1:5\n"

func readMeta(t *testing.T, content string, id int32) build.BibleMeta {
	t.Helper()
	var m build.BibleMeta
	b, err := os.ReadFile(filepath.Join(content, "bibles", itoa(int(id)), "bible.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// publishedScheme reads the compiled versification of a published Bible
// and its Bible object.
func publishedScheme(t *testing.T, store publish.Store, m *publish.Manifest, id int32) (*versification.Scheme, bible.Bible) {
	t.Helper()
	p, err := publish.LoadPack(context.Background(), store, m.Bible(id).Pack)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := p.Raw(publish.NameVersification)
	if err != nil {
		t.Fatal(err)
	}
	s, err := versification.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	var b bible.Bible
	if err := p.Decode(publish.NameBible, &b); err != nil {
		t.Fatal(err)
	}
	return s, b
}

func TestImportVersification(t *testing.T) {
	content, src := t.TempDir(), t.TempDir()
	buildtest.AddLicenses(t, content, 1)
	writeFiles(t, src, map[string]string{"JHN.usfm": goodJHN, "JUD.usfm": goodJUD})
	dir := filepath.Join(content, "bibles", "7")
	vrsPath := filepath.Join(dir, build.VRSFile)
	imp := func(meta build.BibleMeta, opt build.ImportOptions) error {
		t.Helper()
		_, err := build.Import(content, src, meta, opt)
		return err
	}

	// A USFM import that names none is eng.
	if err := imp(testMeta(7), build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readMeta(t, content, 7).Versification; got != versification.Eng {
		t.Errorf("default versification %q, want eng", got)
	}

	// A file of the Bible's own is kept beside bible.json.
	if err := imp(testMeta(7), build.ImportOptions{VRS: []byte(customVRS), VRSName: "sample.vrs"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(vrsPath); string(got) != customVRS || readMeta(t, content, 7).Versification != versification.Custom {
		t.Errorf("custom: versification %q, file %q", readMeta(t, content, 7).Versification, got)
	}
	store, _ := publish.OpenDir(t.TempDir())
	_, m := buildTo(t, content, store)
	s, b := publishedScheme(t, store, m, 7)
	if b.Versification != versification.Custom || s.Name != versification.Custom || s.LastVerse("JHN", 1) != 6 {
		t.Errorf("published: bible says %q, table %q with JHN 1 of %d verses", b.Versification, s.Name, s.LastVerse("JHN", 1))
	}
	eng, _ := versification.Standard(versification.Eng)
	if got, err := versification.Map(s, eng, bible.MustParseRef("JHN.1.6")); err != nil || len(got) != 1 || got[0].String() != "JHN.1.5" {
		t.Errorf("JHN.1.6 in eng = %v (%v), want JHN.1.5", got, err)
	}

	// A re-import without the flag keeps it, and so does a build: an
	// unchanged content directory writes nothing.
	if err := imp(testMeta(7), build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if rep, _ := buildTo(t, content, store); rep.Written != 0 {
		t.Errorf("an unchanged Bible wrote %d objects", rep.Written)
	}
	// A changed .vrs republishes the Bible's pack, not its books.
	writeFiles(t, dir, map[string]string{build.VRSFile: strings.Replace(customVRS, "JHN 1:6 = JHN 1:5", "JHN 1:6 = JHN 1:4", 1)})
	rep, m := buildTo(t, content, store)
	if rep.Rendered != 0 || rep.Written == 0 {
		t.Errorf("after changing the .vrs: %d books rendered, %d objects written", rep.Rendered, rep.Written)
	}
	if s, _ := publishedScheme(t, store, m, 7); len(s.ToOrg(versification.Verse{Book: "JHN", Chapter: 1, Verse: 6})) != 1 ||
		s.ToOrg(versification.Verse{Book: "JHN", Chapter: 1, Verse: 6})[0].Verse != 4 {
		t.Error("the new mapping was not published")
	}

	// A standard file is named, not kept; a name given wins.
	engVRS, err := os.ReadFile(filepath.Join(repotest.Shared(t, "bibles", "versification"), "eng.vrs"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(vrsPath)
	if err := imp(testMeta(7), build.ImportOptions{VRS: engVRS, VRSName: "eng.vrs"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(vrsPath); err == nil || readMeta(t, content, 7).Versification != versification.Eng {
		t.Errorf("a standard file: versification %q, kept: %v", readMeta(t, content, 7).Versification, err == nil)
	}
	meta := testMeta(7)
	meta.Versification = versification.Org
	if err := imp(meta, build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	_, m = buildTo(t, content, store)
	if s, b := publishedScheme(t, store, m, 7); s.Name != versification.Org || b.Versification != versification.Org {
		t.Errorf("org: table %q, bible %q", s.Name, b.Versification)
	}

	// Bad input is refused with its place and loses nothing.
	for _, tc := range []struct {
		meta build.BibleMeta
		opt  build.ImportOptions
		want string
	}{
		{testMeta(7), build.ImportOptions{VRS: []byte("JHN 1:5\nJHN 1:x = JHN 1:1\n"), VRSName: "bad.vrs"}, "bad.vrs:2:7: verse \"x\" is not a number"},
		{func() build.BibleMeta { m := testMeta(7); m.Versification = versification.Custom; return m }(), build.ImportOptions{}, "a custom versification needs its .vrs file"},
		{func() build.BibleMeta { m := testMeta(7); m.Versification = "kjv"; return m }(), build.ImportOptions{}, `versification ("kjv" is not one of org, eng, lxx, vul, rsc, rso or custom)`},
	} {
		if err := imp(tc.meta, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("import = %v, want %q", err, tc.want)
		}
		if got := readMeta(t, content, 7).Versification; got != versification.Org {
			t.Errorf("a refused import changed versification to %q", got)
		}
	}
}

// TestDBLBundleVersification imports a bundle with a versification.vrs of
// its own, as Paratext exports one.
func TestDBLBundleVersification(t *testing.T) {
	bundle := t.TempDir()
	copyDir(t, filepath.Join(repotest.Root(t), "fixtures", "dbl", "eng-sample"), bundle)
	vrs := "# Versification \"Sample\"\nPSA 1:6 2:12 3:9\nJHN 1:51 2:25\nPSA 3:0 = PSA 3:1\nPSA 3:1-8 = PSA 3:2-9\n"
	writeFiles(t, bundle, map[string]string{"release/versification.vrs": vrs})
	content := t.TempDir()
	rep, err := build.Import(content, zipDir(t, bundle, "sample/"), build.BibleMeta{}, build.ImportOptions{})
	if err != nil || rep.Failed() {
		t.Fatalf("import: %v %+v", err, rep)
	}
	if got, _ := os.ReadFile(filepath.Join(content, "bibles", "1", build.VRSFile)); string(got) != vrs {
		t.Errorf("versification.vrs kept as %q", got)
	}
	if got := readMeta(t, content, 1).Versification; got != versification.Custom {
		t.Errorf("versification %q, want custom", got)
	}
	// A flag names another scheme over the bundle's file.
	if _, err := build.Import(content, zipDir(t, bundle, "sample/"), build.BibleMeta{Versification: versification.Eng}, build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readMeta(t, content, 1).Versification; got != versification.Eng {
		t.Errorf("versification %q after --versification eng", got)
	}
}

// TestSchemeFit warns of a versification that gives chapters fewer verses
// than the Bible has, and names the standard scheme that fits.
func TestSchemeFit(t *testing.T) {
	content, src := t.TempDir(), t.TempDir()
	buildtest.AddLicenses(t, content, 1)
	writeFiles(t, src, map[string]string{"JHN.usfm": goodJHN})
	if _, err := build.Import(content, src, testMeta(7), build.ImportOptions{VRS: []byte("JHN 1:4\n"), VRSName: "own.vrs"}); err != nil {
		t.Fatal(err)
	}
	store, _ := publish.OpenDir(t.TempDir())
	rep, _ := buildTo(t, content, store)
	want := "bible 7: its versification custom gives 1 of its chapters fewer verses than they have (JHN 1 has 5, custom 4); org fits better (0 such chapters)"
	if got := errorsText(rep.Warnings); !strings.Contains(got, want) {
		t.Errorf("warnings %s, want %q", got, want)
	}
	writeFiles(t, filepath.Join(content, "bibles", "7"), map[string]string{build.VRSFile: "JHN 1:5\n"})
	if rep, _ := buildTo(t, content, store); strings.Contains(errorsText(rep.Warnings), "versification") {
		t.Errorf("a fitting scheme warned: %v", rep.Warnings)
	}
}
