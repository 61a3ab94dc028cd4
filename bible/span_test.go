package bible

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// testBook is JHN with chapters 1..4 of 3, 2, 4 and 1 verses, verse ids
// as numbers except chapter 3's "4a".
func testBook() *Book {
	b := &Book{ID: "JHN"}
	for c, ids := range [][]string{{"1", "2", "3"}, {"1", "2"}, {"1", "2", "3", "4a"}, {"1"}} {
		ch := Chapter{ID: strconv.Itoa(c + 1)}
		for _, v := range ids {
			ch.Verses = append(ch.Verses, Verse{ID: v})
		}
		b.Chapters = append(b.Chapters, ch)
	}
	return b
}

func TestSpan(t *testing.T) {
	b := testBook()
	for _, c := range []struct {
		ref  string
		want string // passage ids joined by spaces, or the error
	}{
		{"JHN.1.2", "JHN.1.2"},
		{"JHN.1.2-3", "JHN.1.2 JHN.1.3"},
		{"JHN.1.3-2.1", "JHN.1.3 JHN.2.1"},
		{"JHN.1.3-3.2", "JHN.1.3 JHN.2.1 JHN.2.2 JHN.3.1 JHN.3.2"},
		{"JHN.3.4a-4.1", "JHN.3.4a JHN.4.1"},
		{"jhn.2.1-JHN.2.2", "JHN.2.1 JHN.2.2"},
		{"JHN.2", "JHN.2.1 JHN.2.2"},
		{"JHN.1.3-1", "the range ends before it starts"},
		{"JHN.2.1-1.3", "the range ends before it starts"},
		{"JHN.5", "chapter JHN.5 not found"},
		{"JHN.5.1", "chapter JHN.5 not found"},
		{"JHN.1.1-5.1", "chapter JHN.5 not found"},
		{"JHN.1.4", "verse JHN.1.4 not found"},
		{"JHN.1.1-2.9", "verse JHN.2.9 not found"},
		{"JHN.3.4", "verse JHN.3.4 not found"},
		{"JHN.INTRO", "an introduction has no verses"},
	} {
		s, err := b.Span(MustParseRef(c.ref))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = strings.Join(s.PassageIDs(), " ")
			if n := s.Len(); n != len(s.PassageIDs()) {
				t.Errorf("%s: Len %d, %d ids", c.ref, n, len(s.PassageIDs()))
			}
		}
		if got != c.want {
			t.Errorf("Span(%s) = %s, want %s", c.ref, got, c.want)
		}
	}
	var me *MissingError
	if _, err := b.Span(MustParseRef("JHN.1.9")); !errors.As(err, &me) || me.Verse != "9" || me.Chapter != "1" {
		t.Errorf("missing verse: %#v", err)
	}
	if _, err := b.Span(MustParseRef("JHN.2.2-1")); !errors.Is(err, ErrBackwards) {
		t.Errorf("backwards: %v", err)
	}
}

func TestSpanAllocs(t *testing.T) {
	b := testBook()
	r := MustParseRef("JHN.1.3-3.2")
	if n := testing.AllocsPerRun(100, func() {
		if s, err := b.Span(r); err != nil || s.Len() != 5 {
			t.Fatal(s, err)
		}
	}); n != 0 {
		t.Errorf("Span allocates %v times", n)
	}
}

// FuzzSpan checks Span against a walk over every verse of the book: the
// span holds exactly the verses from the start to the end, in order.
func FuzzSpan(f *testing.F) {
	for _, s := range []string{"JHN.1.2", "JHN.1.3-3.2", "JHN.2", "JHN.2.1-1.3", "JHN.5.1", "JHN.3.4a-4.1", "JHN.INTRO"} {
		f.Add(s)
	}
	b := testBook()
	var all []string
	for _, ch := range b.Chapters {
		for _, v := range ch.Verses {
			all = append(all, "JHN."+ch.ID+"."+v.ID)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil || r.Book != "JHN" {
			return
		}
		sp, err := b.Span(r)
		if err != nil {
			return
		}
		ids := sp.PassageIDs()
		if len(ids) == 0 || len(ids) != sp.Len() {
			t.Fatalf("%s: %v (Len %d)", s, ids, sp.Len())
		}
		i := slices.Index(all, ids[0])
		if i < 0 || i+len(ids) > len(all) || !slices.Equal(all[i:i+len(ids)], ids) {
			t.Fatalf("%s: %v is not a run of the book's verses", s, ids)
		}
		switch r.Kind() {
		case KindVerse, KindRange:
			if ids[0] != r.Start().String() || ids[len(ids)-1] != r.End().String() {
				t.Fatalf("%s: runs %s..%s", s, ids[0], ids[len(ids)-1])
			}
		case KindChapter:
			if ids[0] != r.String()+"."+b.Chapter(r.Chapter).Verses[0].ID {
				t.Fatalf("%s: starts at %s", s, ids[0])
			}
		}
	})
}

func TestSpanErrorMessages(t *testing.T) {
	b := testBook()
	for _, c := range []struct {
		ref  string
		want string
	}{
		{"JHN.5", "Chapter JHN.5 is not in this Bible."},
		{"JHN.1.1-2.9", "Verse JHN.2.9 is not in this Bible."},
		{"JHN.1.3-1", "The passage range JHN.1.3-1 ends before it starts."},
		{"JHN.2.1-1.3", "The passage range JHN.2.1-1.3 ends before it starts."},
	} {
		_, err := b.Span(MustParseRef(c.ref))
		var m interface{ Message() string }
		if !errors.As(err, &m) {
			t.Errorf("Span(%s) = %v, want an error with a Message", c.ref, err)
			continue
		}
		if got := m.Message(); got != c.want {
			t.Errorf("Span(%s) message = %q, want %q", c.ref, got, c.want)
		}
	}
	if got, want := (&MissingError{Book: "REV"}).Message(), "Book REV is not in this Bible."; got != want {
		t.Errorf("missing book: %q, want %q", got, want)
	}
}
