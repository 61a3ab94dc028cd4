package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/buildtest"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
)

// TestImportAlternateNumbering publishes the shared UHB twice through the
// CLI: in its \v numbering (English) and, with --numbering alternate, in
// the Hebrew numbering of its \va and \ca markers. "Create in me a clean
// heart" is then PSA 51:12 of the second where it is 51:10 of the first,
// English Malachi 4 is Hebrew Malachi 3:19-24, and bible.json names the
// scheme.
func TestImportAlternateNumbering(t *testing.T) {
	if testing.Short() {
		t.Skip("imports and builds the whole UHB twice")
	}
	content, store := t.TempDir(), t.TempDir()
	buildtest.AddLicenses(t, content, 1)
	src := repotest.Shared(t, "bibles", "hbo-uhb")
	base := []string{"import", "--content", content, "--language", "hbo", "--abbreviation", "UHB", "--title", "unfoldingWord Hebrew Bible", "--license", "1", "--organization", buildtest.OrganizationID}
	if _, err := runCLI(t, append(base, "--id", "8001", src)...); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, append(base, "--id", "8002", "--numbering", "alternate", "--versification", "org", src)...); err != nil {
		t.Fatal(err)
	}
	meta, _ := os.ReadFile(filepath.Join(content, "bibles", "8002", "bible.json"))
	if !strings.Contains(string(meta), `"numbering": "alternate"`) || !strings.Contains(string(meta), `"versification": "org"`) {
		t.Errorf("bible.json: %s", meta)
	}
	if _, err := runCLI(t, "build", "--content", content, "--store", store); err != nil {
		t.Fatal(err)
	}
	s, err := publish.OpenDir(store)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := publish.LoadCurrent(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	text := func(id int32, ref string) string {
		t.Helper()
		r := bible.MustParseRef(ref)
		p, ok := readPassage(t, s, m, id, r)
		if !ok {
			return ""
		}
		return p.Content
	}
	eng, heb := text(8001, "PSA.51.10"), text(8002, "PSA.51.12")
	// לֵב טָהוֹר, "a clean heart"
	if heb == "" || heb != eng || !strings.Contains(heb, "לֵ֣ב טָ֭הוֹר") {
		t.Errorf("Hebrew PSA.51.12 = %q, want the English numbering's PSA.51.10 %q", heb, eng)
	}
	for i, v := range []string{"19", "20", "21", "22", "23", "24"} {
		h, e := text(8002, "MAL.3."+v), text(8001, "MAL.4."+string(rune('1'+i)))
		if h == "" || h != e {
			t.Errorf("Hebrew MAL.3.%s = %q, want English MAL.4.%d %q", v, h, i+1, e)
		}
	}
	if _, ok := readPassage(t, s, m, 8002, bible.MustParseRef("MAL.4")); ok {
		t.Error("Hebrew MAL.4 published")
	}
	if text(8002, "MAL.3.25") != "" {
		t.Error("Hebrew MAL.3.25 published")
	}
}

// readPassage reads a verse's or a chapter's text passage from a build.
func readPassage(t *testing.T, s publish.Store, m *publish.Manifest, id int32, r bible.Ref) (bible.Passage, bool) {
	t.Helper()
	be := m.Bible(id)
	if be == nil {
		t.Fatalf("bible %d not published", id)
	}
	for _, b := range be.Books {
		if b.ID != r.Book {
			continue
		}
		for _, c := range b.Chapters {
			if c.ID != r.Chapter {
				continue
			}
			p, err := publish.LoadPack(context.Background(), s, c.Pack)
			if err != nil {
				t.Fatal(err)
			}
			e := p.Entry(publish.PassageName(r.Verse, "text"))
			if e == nil {
				return bible.Passage{}, false
			}
			var out bible.Passage
			if err := json.Unmarshal(p.Body(&e.Reps[0]), &out); err != nil {
				t.Fatal(err)
			}
			return out, true
		}
	}
	return bible.Passage{}, false
}

// TestImportNumberingSwitch re-imports a Bible in its other numbering:
// the same text, so no --replace is needed, and bible.json records the
// choice until an import names the other one.
func TestImportNumberingSwitch(t *testing.T) {
	content, src := t.TempDir(), t.TempDir()
	var b strings.Builder
	b.WriteString("\\id MAL\n\\c 3\n\\p\n")
	for v := 1; v <= 18; v++ {
		b.WriteString("\\v " + strconv.Itoa(v) + " Verse " + strconv.Itoa(v) + " of the third chapter.\n")
	}
	b.WriteString("\\c 4\n\\p\n")
	for v := 1; v <= 6; v++ {
		b.WriteString("\\v " + strconv.Itoa(v) + " \\va 3:" + strconv.Itoa(18+v) + "\\va* Verse " + strconv.Itoa(v) + " of the fourth chapter.\n")
	}
	os.WriteFile(filepath.Join(src, "MAL.usfm"), []byte(b.String()), 0o644)
	imp := []string{"import", "--content", content, "--id", "5", "--language", "hbo", "--abbreviation", "S", "--title", "Sample", "--license", "1"}
	bibleJSON := func() string {
		data, _ := os.ReadFile(filepath.Join(content, "bibles", "5", "bible.json"))
		return string(data)
	}
	if _, err := runCLI(t, append(imp, src)...); err != nil {
		t.Fatal(err)
	}
	// The real command, whose warnings go to its standard error: the
	// switch says what it does to ids stored elsewhere.
	out, code := run(t, t.TempDir(), append(imp, "--numbering", "alternate", src)...)
	if code != 0 || !strings.Contains(bibleJSON(), `"numbering": "alternate"`) {
		t.Fatalf("to the alternate numbering: exit %d, %s\n%s", code, bibleJSON(), out)
	}
	const says = "renumbered from its verse numbering to its alternate one"
	if !strings.Contains(out, says) {
		t.Errorf("the switch does not say %q:\n%s", says, out)
	}
	if out, code := run(t, t.TempDir(), append(imp, src)...); code != 0 || !strings.Contains(bibleJSON(), `"numbering": "alternate"`) || strings.Contains(out, "renumbered") {
		t.Errorf("an import naming no numbering keeps it, and says nothing of it: exit %d, %s\n%s", code, bibleJSON(), out)
	}
	if _, err := runCLI(t, append(imp, "--numbering", "verse", src)...); err != nil || !strings.Contains(bibleJSON(), `"numbering": "verse"`) {
		t.Errorf("back to the verse numbering: %v, %s", err, bibleJSON())
	}
	if _, err := runCLI(t, append(imp, "--numbering", "hebrew", src)...); err == nil {
		t.Error("--numbering hebrew accepted")
	}
}
