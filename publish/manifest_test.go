package publish_test

import (
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/bibleplatform/platform/publish"
)

func TestSearchEntryModified(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	at := func(h int) publish.PackRef { return publish.PackRef{Modified: t0.Add(time.Duration(h) * time.Hour)} }
	part := func(h int) publish.SearchBook { return publish.SearchBook{Pack: at(h)} }
	tests := []struct {
		name  string
		entry publish.SearchEntry
		want  time.Time
	}{
		{"base alone", publish.SearchEntry{Pack: at(0)}, t0},
		{"a part later than the base", publish.SearchEntry{Pack: at(0), Books: []publish.SearchBook{part(1), part(3), part(2)}}, t0.Add(3 * time.Hour)},
		{"the base latest", publish.SearchEntry{Pack: at(5), Books: []publish.SearchBook{part(1), part(2)}}, t0.Add(5 * time.Hour)},
	}
	for _, tt := range tests {
		if got := tt.entry.Modified(); !got.Equal(tt.want) {
			t.Errorf("%s: Modified() = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestManifestVolumesShareNames(t *testing.T) {
	ctx := context.Background()
	s, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const vol = "packs/v/0123456789abcdef0123"
	ref := func(key string, off int64) publish.PackRef {
		return publish.PackRef{Key: key, Size: 10, Volume: vol, Offset: off}
	}
	m := publish.Manifest{Bibles: []publish.BibleEntry{{ID: 1, Pack: ref("packs/a", 0), Books: []publish.BookEntry{
		{Pack: ref("packs/b", 10)}, {Pack: ref("packs/c", 20)},
	}}}}
	id := putCurrent(t, s, &m)
	got, gotID, err := publish.LoadCurrent(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if gotID != id || got.BuildID() != id {
		t.Fatalf("loaded build %s (content %s), want %s", gotID, got.BuildID(), id)
	}
	var names []string
	got.Packs(func(r *publish.PackRef) { names = append(names, r.Volume) })
	if len(names) != 3 {
		t.Fatalf("%d references, want 3", len(names))
	}
	for _, n := range names {
		if n != vol {
			t.Fatalf("volume %q, want %q", n, vol)
		}
		if unsafe.StringData(n) != unsafe.StringData(names[0]) {
			t.Errorf("references to one volume hold separate copies of its name")
		}
	}
}
