package acceptance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// fixtures is the content the stack serves (fixtures/content), read here
// so that rules compare answers with their source, not with numbers typed
// into the suite.
type fixtures struct {
	bibles map[int]fixtureBible
	votd   []struct {
		Day       int
		PassageID string `json:"passage_id"`
	}
	organizations map[string]fixtureOrg
	fonts         map[int]fixtureFont
	licenses      map[int]fixtureLicense
}

type fixtureBible struct {
	ID             int    `json:"id"`
	Abbreviation   string `json:"abbreviation"`
	Title          string `json:"title"`
	LanguageTag    string `json:"language_tag"`
	LicenseID      int    `json:"license_id"`
	OrganizationID string `json:"organization_id"`
	PublisherURL   string `json:"publisher_url"`
	TextDirection  string `json:"text_direction"`
}

type fixtureOrg struct {
	ID              string            `json:"id"`
	Names           map[string]string `json:"names"`
	PrimaryLanguage string            `json:"primary_language"`
}

type fixtureFont struct {
	ID       int    `json:"id"`
	Slug     string `json:"slug"`
	Family   string `json:"family"`
	Variants []struct {
		Weight int               `json:"weight"`
		Style  string            `json:"style"`
		Files  map[string]string `json:"files"`
	} `json:"variants"`
}

type fixtureLicense struct {
	ID   int  `json:"id"`
	Open bool `json:"open"`
}

func loadFixtures(t testing.TB, root string) *fixtures {
	t.Helper()
	dir := filepath.Join(root, "fixtures", "content")
	fx := &fixtures{
		bibles:        map[int]fixtureBible{},
		organizations: map[string]fixtureOrg{},
		fonts:         map[int]fixtureFont{},
		licenses:      map[int]fixtureLicense{},
	}
	read := func(path string, v any) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("fixtures: %v", err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("fixtures: %s: %v", path, err)
		}
	}
	glob := func(pattern string) []string {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil || len(m) == 0 {
			t.Fatalf("fixtures: nothing matches %s", pattern)
		}
		return m
	}
	for _, p := range glob("bibles/*/bible.json") {
		var b fixtureBible
		read(p, &b)
		if b.ID == 0 {
			b.ID, _ = strconv.Atoi(filepath.Base(filepath.Dir(p)))
		}
		fx.bibles[b.ID] = b
	}
	for _, p := range glob("organizations/*.json") {
		var o fixtureOrg
		read(p, &o)
		fx.organizations[o.ID] = o
	}
	for _, p := range glob("fonts/*.json") {
		var f fixtureFont
		read(p, &f)
		fx.fonts[f.ID] = f
	}
	for _, p := range glob("licenses/*.json") {
		var l fixtureLicense
		read(p, &l)
		fx.licenses[l.ID] = l
	}
	read(filepath.Join(dir, "verse_of_the_day.json"), &fx.votd)
	return fx
}

// biblesUnder lists the fixture Bibles offered under a licence.
func (fx *fixtures) biblesUnder(license int) map[int]bool {
	out := map[int]bool{}
	for id, b := range fx.bibles {
		if b.LicenseID == license {
			out[id] = true
		}
	}
	return out
}
