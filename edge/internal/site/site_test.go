package site

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/publish"
)

// A chapter is found by its book and id, and nothing else is.
func TestChapter(t *testing.T) {
	long := strings.Repeat("x", 40)
	m := &publish.Manifest{Bibles: []publish.BibleEntry{{ID: 1, Books: []publish.BookEntry{
		{ID: "PS2", Pack: publish.PackRef{Key: "packs/ps2"}, Chapters: []publish.ChapterEntry{{ID: "1_1", Pack: publish.PackRef{Key: "packs/ps2-1_1"}}}},
		{ID: "JHN", Chapters: []publish.ChapterEntry{{ID: "1", Pack: publish.PackRef{Key: "packs/jhn-1"}}, {ID: "3", Pack: publish.PackRef{Key: "packs/jhn-3"}}}},
		// Longer than a slot of the index holds: found by the whole key.
		{ID: "LNG", Chapters: []publish.ChapterEntry{{ID: long + "a"}, {ID: long + "b"}}},
	}}}}
	bv := New("b1", m).Bibles[1]
	tests := []struct {
		book, chapter string
		want          *publish.ChapterEntry // nil: not found
	}{
		{"JHN", "3", &m.Bibles[0].Books[1].Chapters[1]},
		{"PS2", "1_1", &m.Bibles[0].Books[0].Chapters[0]},
		{"JHN", "2", nil},
		{"PS2", "1", nil},
		{"GEN", "1", nil},
		{"LNG", long + "a", &m.Bibles[0].Books[2].Chapters[0]},
		{"LNG", long + "b", &m.Bibles[0].Books[2].Chapters[1]},
		{"LNG", long + "c", nil},
		{"LNG", long, nil},
	}
	for _, tc := range tests {
		got := bv.Chapter(bible.BookID(tc.book), tc.chapter)
		switch {
		case tc.want == nil && got != nil:
			t.Errorf("%s.%s: found %s, want none", tc.book, tc.chapter, got.ID)
		case tc.want != nil && (got == nil || got.ChapterEntry != tc.want):
			t.Errorf("%s.%s: got %v, want the manifest's entry", tc.book, tc.chapter, got)
		case got != nil && got.Slot.Pack != packs.IDOf(tc.want.Pack.Key):
			// The tier's keys of the chapter's entries name its pack.
			t.Errorf("%s.%s: its slot names another pack than %s", tc.book, tc.chapter, tc.want.Pack.Key)
		}
	}
	if n := len(bv.Chapters()); n != 5 {
		t.Errorf("%d chapters, want 5", n)
	}
}

// A slot makes its value once however many ask at the same time; a
// failure is tried again by the next caller.
func TestSlot(t *testing.T) {
	var s Slot
	if Load[int](&s) != nil {
		t.Fatal("an empty slot holds a value")
	}
	if _, err := Make(&s, func() (*int, error) { return nil, errors.New("store down") }); err == nil {
		t.Fatal("a failed make returned no error")
	}
	var mu sync.Mutex
	made := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := Make(&s, func() (*int, error) {
				mu.Lock()
				made++
				mu.Unlock()
				n := 42
				return &n, nil
			})
			if err != nil || *v != 42 {
				t.Errorf("Make = %v, %v", v, err)
			}
		}()
	}
	wg.Wait()
	if made != 1 {
		t.Errorf("made %d times, want once", made)
	}
	if v := Load[int](&s); v == nil || *v != 42 {
		t.Errorf("Load = %v, want 42", v)
	}
	if Load[string](&s) != nil {
		t.Error("Load of another type found a value")
	}
}
