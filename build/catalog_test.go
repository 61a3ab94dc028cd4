package build_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/build/buildtest"
	"github.com/bibleplatform/platform/build/licensehtml"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
)

// TestAddLicenseText: a licence whose text is not licence HTML is refused,
// new or replacing one, and the content directory is left as it was; a
// good text lands in licenses/<id>.html.
func TestAddLicenseText(t *testing.T) {
	content := t.TempDir()
	buildtest.AddLicenses(t, content, 1)
	before := buildtest.Files(t, content)
	for _, id := range []int{0, 1, 2} {
		l := publish.License{ID: id, Name: "Hostile", OrganizationID: buildtest.OrganizationID, Open: true}
		_, err := build.AddLicense(content, l, `<p>Agree <a href="javascript:steal()">here</a></p>`, true)
		var bad *licensehtml.Error
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), `licence "Hostile": its text: not allowed in a licence's HTML: line 1 col 10: href of <a>: "javascript:steal()"`) {
			t.Errorf("licence %d: got %v", id, err)
		}
	}
	if after := buildtest.Files(t, content); !maps.Equal(after, before) {
		t.Errorf("a refused licence changed the content directory:\n%v\nwas\n%v", after, before)
	}
	text := `<p>Read it at <a href="https://example.org/licence">example.org</a>.</p>`
	id, err := build.AddLicense(content, publish.License{Name: "Good", OrganizationID: buildtest.OrganizationID}, text, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(content, "licenses", "2.html")); id != 2 || string(got) != text+"\n" {
		t.Errorf("licence %d, licenses/2.html %q", id, got)
	}
}

// TestBuildChecksLicenceHTML: a licence text edited by hand in the content
// directory is checked when a build reads it; the build fails naming the
// file, and the store's current build stays.
func TestBuildChecksLicenceHTML(t *testing.T) {
	ctx := context.Background()
	content := t.TempDir()
	if err := os.CopyFS(content, os.DirFS(filepath.Join(repotest.Root(t), "fixtures", "content"))); err != nil {
		t.Fatal(err)
	}
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := build.Build(ctx, build.Options{Content: content, Store: store}); err != nil {
		t.Fatal(err)
	}
	first, err := store.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(content, "licenses", "2.html")
	text, _ := os.ReadFile(p)
	edited := strings.Replace(string(text), "<ol>", `<ol><li><form action="https://evil.example/"><button>Agree</button></form></li>`, 1)
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = build.Build(ctx, build.Options{Content: content, Store: store})
	if want := p + ": not allowed in a licence's HTML: line 3 col 9: the element <form>"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("build: got %v\nwant an error starting %s", err, want)
	}
	if id, err := store.Current(ctx); err != nil || id != first {
		t.Errorf("current build %s (%v), want %s still", id, err, first)
	}
}
