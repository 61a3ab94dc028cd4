package build_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/publish"
)

// TestCatalogBibles: the site pack lists every Bible object exactly as the
// Bible's own pack serves it, with its licence, so the edge can list Bibles
// without opening their packs.
func TestCatalogBibles(t *testing.T) {
	ctx := context.Background()
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	content := filepath.Join(repotest.Root(t), "fixtures", "content")
	if _, err := build.Build(ctx, build.Options{Content: content, Store: store, ReaderURL: "https://r.example/v/"}); err != nil {
		t.Fatal(err)
	}
	m, _, err := publish.LoadCurrent(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	entry := func(ref publish.PackRef, name string) []byte {
		t.Helper()
		p, err := publish.LoadPack(ctx, store, ref)
		if err != nil {
			t.Fatal(err)
		}
		e := p.Entry(name)
		if e == nil {
			t.Fatalf("pack %s has no %s", ref.Key, name)
		}
		return p.Body(&e.Reps[0])
	}
	var got []struct {
		LicenseID int             `json:"license_id"`
		Bible     json.RawMessage `json:"bible"`
	}
	if err := json.Unmarshal(entry(*m.Site, publish.NameCatalogBibles), &got); err != nil {
		t.Fatal(err)
	}
	bibles, err := build.ReadBibles(content)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(m.Bibles) || len(got) != len(bibles) {
		t.Fatalf("%d Bibles listed, %d built, %d in the content", len(got), len(m.Bibles), len(bibles))
	}
	for i, be := range m.Bibles {
		if want := entry(be.Pack, publish.NameBible); string(got[i].Bible) != string(want) {
			t.Errorf("Bible %d listed as\n%s\nwant\n%s", be.ID, got[i].Bible, want)
		}
		if want := bibles[i].Meta.LicenseID; got[i].LicenseID != want {
			t.Errorf("Bible %d: license_id %d, want %d", be.ID, got[i].LicenseID, want)
		}
	}
}
