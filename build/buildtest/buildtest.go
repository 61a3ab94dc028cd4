// Package buildtest helps tests make content directories that a build
// accepts.
package buildtest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/publish"
)

// OrganizationID is the organization AddLicenses writes.
const OrganizationID = "0b5e7e57-0000-4000-8000-000000000001"

// AddLicenses writes an organization and, for each id, an open licence
// of it to the content directory, as `publish organizations add` and
// `publish licenses add` would.
func AddLicenses(tb testing.TB, content string, ids ...int) {
	tb.Helper()
	if _, err := build.AddOrganization(content, build.Organization{ID: OrganizationID, PrimaryLanguage: "en",
		Names: map[string]string{"en": "Test Publisher"}}, true); err != nil {
		tb.Fatal(err)
	}
	for _, id := range ids {
		if _, err := build.AddLicense(content, publish.License{ID: id, Name: fmt.Sprintf("Test licence %d", id),
			OrganizationID: OrganizationID, Open: true}, "<p>Test.</p>", true); err != nil {
			tb.Fatal(err)
		}
	}
}

// Files reads every file under dir, by its slash-separated path relative
// to dir, so that a test can tell that a refused command changed nothing.
func Files(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}
