package publish_test

import (
	"testing"
	"time"

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
