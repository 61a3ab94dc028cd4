package build_test

import (
	"context"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/build/buildtest"
	"github.com/bibleplatform/platform/publish"
)

// TestBridgesPublished: where a bridge (\v 2-3) ends is in the Bible's
// pack and in its book's, beside the index the API serves, which has no
// place for it; a build that reuses the book still writes it.
func TestBridgesPublished(t *testing.T) {
	content, src := t.TempDir(), t.TempDir()
	buildtest.AddLicenses(t, content, 1)
	writeFiles(t, src, map[string]string{
		"JHN.usfm": "\\id JHN test\n\\h John\n\\c 1\n\\p\n\\v 1 In the beginning.\n\\v 2-3 He was with God, and all things.\n\\v 4 Life.\n",
		"JUD.usfm": goodJUD,
	})
	if _, err := build.Import(content, src, testMeta(7), build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	check := func(m *publish.Manifest) {
		t.Helper()
		ctx := context.Background()
		bp, err := publish.LoadPack(ctx, store, m.Bible(7).Pack)
		if err != nil {
			t.Fatal(err)
		}
		var br bible.Bridges
		if err := bp.Decode(publish.NameBridges, &br); err != nil || len(br) != 1 || br["JHN.1.2"] != "3" {
			t.Errorf("Bible pack bridges = %v (%v), want JHN.1.2 to 3", br, err)
		}
		var idx bible.Index
		if err := bp.Decode(publish.NameIndex, &idx); err != nil {
			t.Fatal(err)
		}
		if err := idx.SetBridges(br); err != nil {
			t.Fatal(err)
		}
		if sp, err := idx.Book("JHN").Span(bible.MustParseRef("JHN.1.3")); err != nil || sp.Ref().String() != "JHN.1.2-3" {
			t.Errorf("JHN.1.3 in the published index = %v (%v), want the bridge JHN.1.2-3", sp, err)
		}
		for _, be := range m.Bible(7).Books {
			kp, err := publish.LoadPack(ctx, store, be.Pack)
			if err != nil {
				t.Fatal(err)
			}
			var kb bible.Bridges
			err = kp.Decode(publish.NameBridges, &kb)
			switch be.ID {
			case "JHN":
				if err != nil || kb["JHN.1.2"] != "3" {
					t.Errorf("JHN's pack bridges = %v (%v)", kb, err)
				}
			default:
				if err == nil {
					t.Errorf("%s, without bridges, has the entry %v", be.ID, kb)
				}
			}
		}
	}
	rep, m := buildTo(t, content, store)
	if rep.Rendered != 2 {
		t.Fatalf("%d books rendered", rep.Rendered)
	}
	check(m)
	// A change elsewhere rebuilds the Bible's pack from the books as
	// published: the bridge is read back from JHN's pack.
	writeFiles(t, src, map[string]string{"JUD.usfm": goodJUD + "\\v 2 To those called.\n"})
	if _, err := build.Import(content, src, testMeta(7), build.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	rep, m = buildTo(t, content, store)
	if rep.Reused != 1 || rep.Rendered != 1 {
		t.Errorf("second build: %d books reused, %d rendered, want 1 and 1", rep.Reused, rep.Rendered)
	}
	check(m)
}
