package citation

import (
	"testing"

	"github.com/bibleplatform/platform/bible"
)

// books is a Bible's book list as NewResolver gets it: every canonical
// book, with the chapters of the Protestant canon's single-chapter books.
func books(names map[bible.BookID][]string) []Book {
	single := map[bible.BookID]bool{"OBA": true, "PHM": true, "2JN": true, "3JN": true, "JUD": true}
	var out []Book
	for _, t := range []string{"en"} {
		for _, e := range table(t).books {
			n := 50
			if single[e.id] {
				n = 1
			}
			out = append(out, Book{ID: e.id, Names: names[e.id], Chapters: n})
		}
	}
	return out
}

func TestParse(t *testing.T) {
	words := map[string]bool{"love": true, "mark": true, "juan": true, "salmos": true}
	isWord := func(w string) bool { return words[w] }
	en := NewResolver("en", books(nil), isWord)
	es := NewResolver("es", books(map[bible.BookID][]string{"MAT": {"San Mateo"}, "JHN": {"Juan"}}), isWord)
	he := NewResolver("hbo", books(nil), isWord)
	for _, c := range []struct {
		r    *Resolver
		in   string
		want Citation
		ok   bool
	}{
		{en, "John 3:16", Citation{"JHN", 3, 16, 0}, true},
		{en, "jn 3 16", Citation{"JHN", 3, 16, 0}, true},
		{en, "Jn3:16", Citation{"JHN", 3, 16, 0}, true},
		{en, "john 3.16", Citation{"JHN", 3, 16, 0}, true},
		{en, "John 3:16-18", Citation{"JHN", 3, 16, 18}, true},
		{en, "John 3:16–18", Citation{"JHN", 3, 16, 18}, true},
		{en, "1 Cor 13", Citation{"1CO", 13, 0, 0}, true},
		{en, "1Cor 13:4", Citation{"1CO", 13, 4, 0}, true},
		{en, "First Corinthians 13:4", Citation{"1CO", 13, 4, 0}, true},
		{en, "1st Corinthians 13:4", Citation{"1CO", 13, 4, 0}, true},
		{en, "I Corinthians 13:4-7", Citation{"1CO", 13, 4, 7}, true},
		{en, "II Timothy 3:16", Citation{"2TI", 3, 16, 0}, true},
		{en, "2nd Tim 3:16", Citation{"2TI", 3, 16, 0}, true},
		{en, "III John 4", Citation{"3JN", 1, 4, 0}, true},
		{en, "Jude 3", Citation{"JUD", 1, 3, 0}, true},
		{en, "Jude 3-5", Citation{"JUD", 1, 3, 5}, true},
		{en, "Jude 1:3", Citation{"JUD", 1, 3, 0}, true},
		{en, "Obadiah 4", Citation{"OBA", 1, 4, 0}, true},
		{en, "Philem 6", Citation{"PHM", 1, 6, 0}, true},
		{en, "Psalm 23", Citation{"PSA", 23, 0, 0}, true},
		{en, "Psalms 23-24", Citation{}, false}, // a run of chapters
		{en, "Song of Solomon 2:4", Citation{"SNG", 2, 4, 0}, true},
		{en, "Romans", Citation{"ROM", 0, 0, 0}, true},
		// Misspelt names, but never a word of the text.
		{en, "Jhon 3:16", Citation{"JHN", 3, 16, 0}, true},
		{en, "Mathew 5:9", Citation{"MAT", 5, 9, 0}, true},
		{en, "Revalation 21:4", Citation{"REV", 21, 4, 0}, true},
		{en, "Phillipians 4:13", Citation{"PHP", 4, 13, 0}, true},
		{en, "Revalation", Citation{}, false}, // a misspelt name needs a number
		{en, "love 1", Citation{}, false},
		{en, "juan 3 16", Citation{}, false}, // a word of the text
		{en, "i am the way", Citation{}, false},
		{en, "3", Citation{}, false},
		{en, "", Citation{}, false},
		// Spanish: the Bible's own names, the Spanish table, English.
		{es, "San Mateo 5:9", Citation{"MAT", 5, 9, 0}, true},
		{es, "Mateo 5:9", Citation{"MAT", 5, 9, 0}, true},
		{es, "Mt 5:9", Citation{"MAT", 5, 9, 0}, true},
		{es, "Primera de Corintios 13:4", Citation{"1CO", 13, 4, 0}, true},
		{es, "1ª Corintios 13:4", Citation{"1CO", 13, 4, 0}, true},
		{es, "1a Co 13:4", Citation{"1CO", 13, 4, 0}, true},
		{es, "Segunda de Timoteo 3:16", Citation{"2TI", 3, 16, 0}, true},
		{es, "Éxodo 20:13", Citation{"EXO", 20, 13, 0}, true},
		{es, "exodo 20:13", Citation{"EXO", 20, 13, 0}, true},
		{es, "Judas 3", Citation{"JUD", 1, 3, 0}, true},
		{es, "Filipences 4:13", Citation{"PHP", 4, 13, 0}, true},
		{es, "Salmos 23", Citation{"PSA", 23, 0, 0}, true},
		{es, "John 3:16", Citation{"JHN", 3, 16, 0}, true},
		// Hebrew names for a Biblical Hebrew Bible.
		{he, "בראשית 1:1", Citation{"GEN", 1, 1, 0}, true},
		{he, "שמואל א 3", Citation{"1SA", 3, 0, 0}, true},
		{he, "Genesis 1:1", Citation{"GEN", 1, 1, 0}, true},
	} {
		got, ok := c.r.Parse(c.in)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestTables: every names file reads, and the Spanish and English ones
// name all 66 books of the Old and New Testaments, the Hebrew one the 39
// of the Hebrew Bible.
func TestTables(t *testing.T) {
	for lang, want := range map[string]int{"en": 66, "es": 66, "he": 39} {
		n := 0
		for _, e := range table(lang).books {
			if c := e.id.Canon(); c == bible.OldTestament || c == bible.NewTestament {
				n++
			}
		}
		if n != want {
			t.Errorf("%s names %d books of the Old and New Testaments, want %d", lang, n, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	r := NewResolver("es", books(nil), func(w string) bool { return w == "amor" })
	for _, s := range []string{"John 3:16", "1ª Corintios 13:4-7", "Jude 3", "amor 3", "Primera de", "1 2 3", "\xff 3", "ii", "Mathew 5:9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := r.Parse(s)
		if !ok {
			return
		}
		if _, has := r.chapters[c.Book]; !has {
			t.Fatalf("%q: book %s the Bible does not have", s, c.Book)
		}
		if c.Chapter < 0 || c.Verse < 0 || c.EndVerse != 0 && c.EndVerse <= c.Verse {
			t.Fatalf("%q: %+v", s, c)
		}
	})
}
