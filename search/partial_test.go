package search_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/search"
)

// smallIndex indexes one chapter of verses (GEN.1.1, GEN.1.2, …).
func smallIndex(t testing.TB, lang string, syn search.Synonyms, texts ...string) *search.Index {
	t.Helper()
	ch := bible.Chapter{ID: "1"}
	for i := range texts {
		ch.Verses = append(ch.Verses, bible.Verse{ID: strconv.Itoa(i + 1)})
	}
	x, err := search.Decode(search.BuildWith(lang, []search.Verses{{
		Book:  bible.Book{ID: "GEN", Title: "Genesis", Chapters: []bible.Chapter{ch}},
		Texts: [][]string{texts},
	}}, syn).Encode())
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func ids(x *search.Index, vs []int32) []string {
	var out []string
	for _, v := range vs {
		out = append(out, x.Verse(v))
	}
	return out
}

func TestPartial(t *testing.T) {
	syn, errs := search.ParseSynonyms("en.txt", []byte("lord, yahweh\nthou, you\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	x := smallIndex(t, "en", syn,
		"Yahweh is my shepherd; I shall lack nothing.", // 1
		"The shepherd went to the field.",              // 2
		"My sheep hear my voice, and the shepherd is near.",
		"Wash their feet with water.",             // 4
		"The feet of him who brings good news.",   // 5
		"Strike the shepherd, says Yahweh.",       // 6
		"Nothing is hidden that will not be seen", // 7
	)
	for _, c := range []struct {
		q       string
		first   string
		instead string
		total   int
	}{
		// Every word held, the stop words optional: the synonym finds
		// Yahweh, proximity puts the verse that reads like the query first.
		{"the lord is my shepherd", "GEN.1.1", "", 2},
		// No verse holds every word: the verses holding most, and the
		// words the first holds.
		{"the lord is my shepherd i shall not want", "GEN.1.1", "lord is my shepherd i shall", 6},
		// A word of the text that fits the rest much worse than a near,
		// more common word.
		{"wash their feat", "GEN.1.4", "wash their feet", 1},
		// Older verb endings.
		{"yahweh striketh the shepherd", "GEN.1.6", "", 1},
		// Synonym ranked below the word's own form.
		{"thou", "GEN.1.1", "", 0},
	} {
		r := x.Search(c.q, search.IntentText, 10)
		if c.total == 0 {
			continue
		}
		got := ids(x, r.Verses)
		if len(got) == 0 || got[0] != c.first || r.SearchInsteadFor != c.instead || r.Total != c.total {
			t.Errorf("%q: %v (total %d), instead %q; want %s first (total %d), instead %q", c.q, got, r.Total, r.SearchInsteadFor, c.first, c.total, c.instead)
		}
		if c.instead != "" {
			// What the answer says it searched for finds its first verse.
			r2 := x.Search(c.instead, search.IntentText, 10)
			if !slices.Contains(ids(x, r2.Verses), c.first) {
				t.Errorf("%q: searching %q instead: %v, want %s among them", c.q, c.instead, ids(x, r2.Verses), c.first)
			}
		}
	}
	// The synonym's verses come after those with the word itself.
	r := x.Search("yahweh shepherd", search.IntentText, 10)
	if got := ids(x, r.Verses); len(got) != 2 {
		t.Errorf("yahweh shepherd: %v, want the two verses with Yahweh", got)
	}
	r = x.Search("lord shepherd", search.IntentText, 10)
	if got := ids(x, r.Verses); len(got) != 2 {
		t.Errorf("lord shepherd: %v, want the two verses with Yahweh, by synonym", got)
	}
}

// TestPartialPaging pages through partial answers of the WEB (their
// first pagedVerses verses, past the verses ranked again by proximity):
// every verse once, the same order whatever the page size.
func TestPartialPaging(t *testing.T) {
	const pagedVerses = 400
	x := loadWEB(t)
	for _, q := range []string{
		"shepherd lack nothing want",
		"labour heavy laden rest",
		"faith hope charity",
	} {
		var orders [][]int32
		for _, size := range []int{7, 25, 99} {
			var got []int32
			var first *search.Result
			for off := 0; off < pagedVerses; off += size {
				r := x.Search(q, search.IntentText, off+size)
				if first == nil {
					first = r
				}
				if r.Total != first.Total || r.SearchInsteadFor != first.SearchInsteadFor {
					t.Fatalf("%q: page at %d: total %d, instead %q; the first page said %d, %q", q, off, r.Total, r.SearchInsteadFor, first.Total, first.SearchInsteadFor)
				}
				if off >= len(r.Verses) {
					break
				}
				got = append(got, r.Verses[off:]...)
			}
			if first.Total <= pagedVerses || first.SearchInsteadFor == "" {
				t.Fatalf("%q: %d verses, instead %q: want a partial answer of more than %d verses", q, first.Total, first.SearchInsteadFor, pagedVerses)
			}
			got = got[:pagedVerses]
			seen := map[int32]bool{}
			for _, d := range got {
				if seen[d] {
					t.Fatalf("%q: %s twice", q, x.Verse(d))
				}
				seen[d] = true
			}
			orders = append(orders, got)
		}
		for _, o := range orders[1:] {
			if !slices.Equal(o, orders[0]) {
				t.Errorf("%q: the order depends on the page size", q)
			}
		}
	}
}

func TestParseSynonyms(t *testing.T) {
	got, errs := search.ParseSynonyms("synonyms/en.txt", []byte("# the divine name\nLORD, Yahweh , Jehovah\n\nthou,you\nlone\nbad, two words\nok, ok\n, x\n"))
	want := search.Synonyms{{"lord", "yahweh", "jehovah"}, {"thou", "you"}}
	if len(got) != len(want) || !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) {
		t.Errorf("groups %q, want %q", got, want)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	wantErrs := []string{
		"synonyms/en.txt:5:1: a group needs at least two words",
		`synonyms/en.txt:6:6: "two words" is not one word`,
		"synonyms/en.txt:7:1: a group needs at least two words",
		"synonyms/en.txt:8:1: empty word",
	}
	if !slices.Equal(msgs, wantErrs) {
		t.Errorf("errors\n%s\nwant\n%s", strings.Join(msgs, "\n"), strings.Join(wantErrs, "\n"))
	}
}

func FuzzParseSynonyms(f *testing.F) {
	for _, s := range []string{"lord, yahweh\n", "# c\n\na,b,c\n", ", ,\n", "a b, c", "\xff,\xfe"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		groups, _ := search.ParseSynonyms("f.txt", data)
		for _, g := range groups {
			if len(g) < 2 {
				t.Fatalf("group %q", g)
			}
		}
		x := smallIndex(t, "en", groups, "the lord is my shepherd", "a b c")
		x.Search("lord shepherd", "", 10)
	})
}

// BenchmarkPartial times partial answers of the WEB with its English
// synonyms: the queries that cost most, long ones of common words that no
// verse holds all of.
func BenchmarkPartial(b *testing.B) {
	x := loadBible(b, "eng-web", true)
	for _, q := range []string{
		"the lord is my shepherd i shall not want",
		"come unto me all ye that labour and are heavy laden",
		"and the of to in that is for with his he they them was were have",
	} {
		b.Run(strings.Fields(q)[1], func(b *testing.B) {
			for range b.N {
				x.Search(q, "", 25)
			}
		})
	}
}
