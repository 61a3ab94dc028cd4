package packs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bibleplatform/platform/publish"
)

func testManifest() *publish.Manifest {
	return &publish.Manifest{
		Created: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC),
		Bibles: []publish.BibleEntry{{ID: 9001, Pack: publish.PackRef{Key: "packs/ab/abcdef", Size: 1234},
			Books: []publish.BookEntry{{ID: "JHN", Source: "s1", Pack: publish.PackRef{Key: "packs/cd/cdef01", Size: 99},
				Chapters: []publish.ChapterEntry{{ID: "3", Pack: publish.PackRef{Key: "packs/ef/ef0123", Size: 42}}}}}}},
		Site: &publish.PackRef{Key: "packs/01/012345", Size: 7},
	}
}

func manifestJSON(t *testing.T, m *publish.Manifest) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dirNames lists dir's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestSavedBuildRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := readSavedBuild(dir); err != ErrNoSavedBuild {
		t.Fatalf("read from an empty dir: %v, want ErrNoSavedBuild", err)
	}
	first, second := testManifest(), testManifest()
	second.Bibles[0].Books[0].Chapters[0].Pack.Key = "packs/99/990000"
	for _, step := range []struct {
		id string
		m  *publish.Manifest
	}{{"b1", first}, {"b2", second}} {
		if err := writeSavedBuild(dir, step.id, step.m); err != nil {
			t.Fatal(err)
		}
		id, m, err := readSavedBuild(dir)
		if err != nil {
			t.Fatal(err)
		}
		if id != step.id || manifestJSON(t, m) != manifestJSON(t, step.m) {
			t.Errorf("read back %s %s, want %s %s", id, manifestJSON(t, m), step.id, manifestJSON(t, step.m))
		}
		// The write replaced the file by rename: nothing else is left.
		if got := dirNames(t, dir); len(got) != 1 || got[0] != savedBuildFile {
			t.Errorf("after saving %s the dir holds %v, want only %s", step.id, got, savedBuildFile)
		}
	}
}

// TestSavedBuildCrashMidWrite: a write cut short leaves only a temporary
// file, so the previous build is read; the disk cache removes the
// leftover when it opens.
func TestSavedBuildCrashMidWrite(t *testing.T) {
	dir := t.TempDir()
	if err := writeSavedBuild(dir, "b1", testManifest()); err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(dir, diskTemp+"123")
	if err := os.WriteFile(torn, []byte(`{"build":"b2","manifest":{"bib`), 0o644); err != nil {
		t.Fatal(err)
	}
	if id, _, err := readSavedBuild(dir); err != nil || id != "b1" {
		t.Errorf("read after a torn write = %q, %v; want b1", id, err)
	}
	d, err := openDiskCache(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(torn); !os.IsNotExist(err) {
		t.Errorf("leftover temporary file not removed: %v", err)
	}
	// The saved build is no pack: the cache neither counts nor evicts it.
	if files, bytes := d.stats(); files != 0 || bytes != 0 {
		t.Errorf("disk cache counts %d files, %d bytes; want the saved build left out", files, bytes)
	}
}
