package catalog

import (
	"bytes"
	"testing"
)

// FuzzCatalogPath: the catalogue router never panics, and a path it
// claims is under a catalogue prefix.
func FuzzCatalogPath(f *testing.F) {
	for _, s := range []string{"/v1/bibles", "/v1/languages/zh-Hant-TW", "/v1/organizations/x/bibles",
		"/v1/fonts/1/stylesheet", "/v1/fonts/files/abc/x.woff2", "/v1/verse_of_the_days/60", "/v1/verse-of-the-days/60", "/v1/bibles/1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		_, _, ok := Parse(p)
		if !ok {
			return
		}
		for _, prefix := range [][]byte{pathBibles, pathLanguages, pathOrganizations, pathFonts, pathVOTD, pathVOTDAlias} {
			if bytes.HasPrefix(p, prefix) {
				return
			}
		}
		t.Fatalf("%q claimed by the catalogue", p)
	})
}
