package search_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/search"
)

// pages reads every page of a query's answer the way the edge serves it:
// the first offset+size verses of the ranking, then the page's part.
func pages(x *search.Index, q, intent string, size int) ([]int32, *search.Result) {
	var all []int32
	var first *search.Result
	for off := 0; ; off += size {
		r := x.Search(q, intent, off+size)
		if first == nil {
			first = r
		}
		if off >= len(r.Verses) {
			return all, first
		}
		all = append(all, r.Verses[off:]...)
		if off+size >= r.Total {
			return all, first
		}
	}
}

// stemsOf is the plain scan's view of a verse: its words' stems in order.
func stemsOf(x *search.Index, text string) []string {
	an := x.Analyzer()
	var out []string
	for _, w := range an.Words(text) {
		out = append(out, an.Stem(w))
	}
	return out
}

func containsRun(hay, run []string) bool {
	for i := 0; i+len(run) <= len(hay); i++ {
		if slices.Equal(hay[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// TestRecall samples words and phrases from the WEB's own text and checks
// that paging through the answer returns exactly the verses a plain scan
// of the text finds (every word present, in the same stem; a phrase as a
// run of words), each once.
func TestRecall(t *testing.T) {
	x := loadWEB(t)
	stems := make([][]string, x.Len())
	for i := range stems {
		stems[i] = stemsOf(x, x.Text(int32(i)))
	}
	rng := rand.New(rand.NewPCG(11, 1))
	n := 300
	if testing.Short() {
		n = 60
	}
	for range n {
		var v int32
		for {
			v = int32(rng.IntN(x.Len()))
			if len(stems[v]) >= 4 {
				break
			}
		}
		words := x.Analyzer().Words(x.Text(v))
		var q string
		var want func(s []string) bool
		switch k := rng.IntN(3); k {
		case 0, 1: // one or two words, anywhere in the verse
			a := words[rng.IntN(len(words))]
			b := words[rng.IntN(len(words))]
			q = a
			if k == 1 {
				q = a + " " + b
			}
			sa, sb := x.Analyzer().Stem(a), x.Analyzer().Stem(b)
			want = func(s []string) bool { return slices.Contains(s, sa) && (k == 0 || slices.Contains(s, sb)) }
		default: // a quoted phrase of two or three words
			l := 2 + rng.IntN(2)
			i := rng.IntN(len(words) - l + 1)
			q = `"` + strings.Join(words[i:i+l], " ") + `"`
			run := stemsOf(x, strings.Join(words[i:i+l], " "))
			want = func(s []string) bool { return containsRun(s, run) }
		}
		var expect []int32
		for i, s := range stems {
			if want(s) {
				expect = append(expect, int32(i))
			}
		}
		got, _ := pages(x, q, search.IntentText, 99)
		seen := map[int32]bool{}
		for _, d := range got {
			if seen[d] {
				t.Fatalf("%s: %s returned twice", q, x.Verse(d))
			}
			seen[d] = true
		}
		slices.Sort(got)
		if !slices.Equal(got, expect) {
			t.Fatalf("%s: %d verses returned, the scan finds %d (first missing or extra: %v)", q, len(got), len(expect), firstDiff(x, got, expect))
		}
	}
}

func firstDiff(x *search.Index, got, want []int32) string {
	for _, d := range want {
		if _, ok := slices.BinarySearch(got, d); !ok {
			return "missing " + x.Verse(d)
		}
	}
	for _, d := range got {
		if _, ok := slices.BinarySearch(want, d); !ok {
			return "extra " + x.Verse(d)
		}
	}
	return ""
}

// TestTypo applies one random edit to words of the WEB's vocabulary (an
// edit that makes another word of the vocabulary is no typo to the index,
// so it is drawn again) and checks that the query is corrected back to the
// word in at least 90 % of cases. A correction to another form of the
// word's stem ("persuadse" to "persuade" for "persuades"), or a typo the
// stemmer already maps to the word's stem ("begining" finds "beginning"
// with no correction), searches exactly as the word does, and counts as
// corrected back; the strict rate is logged too.
func TestTypo(t *testing.T) {
	x := loadWEB(t)
	rng := rand.New(rand.NewPCG(7, 3))
	vocab := map[string]bool{}
	var words []string
	for i := range x.Len() {
		for _, w := range x.Analyzer().Words(x.Text(int32(i))) {
			if !vocab[w] {
				vocab[w] = true
				if len(w) >= 4 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" {
					words = append(words, w)
				}
			}
		}
	}
	slices.Sort(words)
	const letters = "abcdefghijklmnopqrstuvwxyz"
	an := x.Analyzer()
	n, ok, strict := 400, 0, 0
	var misses []string
	for range n {
		var w, typo string
		for typo == "" || vocab[typo] {
			w = words[rng.IntN(len(words))]
			i := rng.IntN(len(w))
			c := string(letters[rng.IntN(26)])
			switch rng.IntN(4) {
			case 0:
				typo = w[:i] + w[i+1:]
			case 1:
				typo = w[:i] + c + w[i:]
			case 2:
				typo = w[:i] + c + w[i+1:]
			default:
				if i+1 < len(w) {
					typo = w[:i] + w[i+1:i+2] + w[i:i+1] + w[i+2:]
				}
			}
		}
		r := x.Search(typo, search.IntentText, 10)
		got := r.SearchInsteadFor
		if got == "" && len(r.DidYouMean) == 0 && r.Total > 0 {
			got = typo
		}
		if got == w {
			strict++
		}
		if an.Stem(got) == an.Stem(w) {
			ok++
		} else if len(misses) < 15 {
			misses = append(misses, fmt.Sprintf("%s→%s (%q)", w, typo, r.SearchInsteadFor))
		}
	}
	rate := float64(ok) / float64(n)
	t.Logf("typo: %d of %d corrected back to the word's stem (%.1f %%), %d to the word itself; misses: %s", ok, n, 100*rate, strict, strings.Join(misses, ", "))
	if rate < 0.9 {
		t.Errorf("typo correction rate %.1f %% < 90 %%", 100*rate)
	}
}

func TestQueries(t *testing.T) {
	x := loadWEB(t)
	for _, c := range []struct {
		q, intent  string
		wantIntent string
		first      string // a verse among the first page
		instead    string
	}{
		{"John 3:16", "", search.IntentReference, "JHN.3.16", ""},
		{"jn 3 16", "unknown", search.IntentReference, "JHN.3.16", ""},
		{"1 Cor 13", "", search.IntentReference, "1CO.13.1", ""},
		{"I Corinthians 13:4-7", "", search.IntentReference, "1CO.13.4", ""},
		{"Psalm 23:1-3", "", search.IntentReference, "PSA.23.1", ""},
		{"gen 1", "", search.IntentReference, "GEN.1.1", ""},
		// Forced to text, no verse holds "John", "3" and "16": the verses
		// with most of them, and the answer says which words they hold.
		{"John 3:16", search.IntentText, search.IntentText, "", "John"},
		{"Romans", search.IntentReference, search.IntentReference, "ROM.1.1", ""},
		{`"God so loved the world"`, "", search.IntentText, "JHN.3.16", ""},
		{"love one another", "", search.IntentText, "JHN.13.34", ""},
		{"shepherd* lack", "", search.IntentText, "PSA.23.1", ""},
		{"shepherdd", "", search.IntentText, "", "shepherd"},
		{"begining", "", search.IntentText, "", ""}, // the stemmer finds "beginning"
		{"in the beginning was the wrod", "", search.IntentText, "JHN.1.1", "in the beginning was the word"},
		{"Jesús wept", "", search.IntentText, "JHN.11.35", ""},
	} {
		r := x.Search(c.q, c.intent, 25)
		if r.Intent != c.wantIntent {
			t.Errorf("%q: intent %s, want %s", c.q, r.Intent, c.wantIntent)
		}
		if c.instead != r.SearchInsteadFor {
			t.Errorf("%q: search_instead_for %q, want %q", c.q, r.SearchInsteadFor, c.instead)
		}
		if c.first == "" {
			continue
		}
		var got []string
		for _, v := range r.Verses {
			got = append(got, x.Verse(v))
		}
		if !slices.Contains(got, c.first) {
			t.Errorf("%q: %s not on the first page: %v", c.q, c.first, got)
		}
	}
	r := x.Search("1 Cor 13:4-7", "", 99)
	if r.Total != 4 {
		t.Errorf("1 Cor 13:4-7: %d verses, want 4", r.Total)
	}
	r = x.Search("lov* neighbor", "", 99)
	d := r.Verses[0]
	ms := x.Matches(r, d)
	text := []rune(x.Text(d))
	for _, m := range ms {
		w := strings.ToLower(string(text[m.Start:m.End]))
		if !strings.HasPrefix(w, "lov") && !strings.HasPrefix(w, "neighbor") {
			t.Errorf("match %q in %s", w, x.Verse(d))
		}
	}
	if len(ms) < 2 {
		t.Errorf("%s: matches %v", x.Verse(d), ms)
	}
}

// TestOwnNames: a reference in the Bible's own language, from the names
// its index gives; diacritics folded in text.
func TestOwnNames(t *testing.T) {
	juan := bible.Book{ID: "JHN", Title: "Juan", FullTitle: "El Evangelio según San Juan", Abbreviation: "Jn",
		Chapters: []bible.Chapter{{ID: "3", Verses: []bible.Verse{{ID: "16"}, {ID: "17"}}}}}
	salmos := bible.Book{ID: "PSA", Title: "Salmos", Abbreviation: "Sal",
		Chapters: []bible.Chapter{{ID: "23", Verses: []bible.Verse{{ID: "1"}, {ID: "2"}, {ID: "3"}, {ID: "4"}}}}}
	x, err := search.Decode(search.Build("es", []search.Verses{
		{Book: salmos, Texts: [][]string{{"Jehová es mi pastor; nada me faltará.", "En lugares de delicados pastos me hará yacer", "Confortará mi alma", "Aunque ande en valle de sombra de muerte"}}},
		{Book: juan, Texts: [][]string{{"Porque de tal manera amó Dios al mundo", "Porque no envió Dios a su Hijo"}}},
	}).Encode())
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string][]string{
		"Juan 3:16":     {"JHN.3.16"},
		"Salmos 23:1-3": {"PSA.23.1", "PSA.23.2", "PSA.23.3"},
		"sal 23 4":      {"PSA.23.4"},
		"John 3:17":     {"JHN.3.17"},
		"jehova pastor": {"PSA.23.1"},
		"amo":           {"JHN.3.16"},
		"DIOS":          {"JHN.3.16", "JHN.3.17"},
	} {
		r := x.Search(q, "", 25)
		var got []string
		for _, v := range r.Verses {
			got = append(got, x.Verse(v))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
}

func FuzzSearch(f *testing.F) {
	x, err := search.Decode(search.Build("en", []search.Verses{{
		Book:  bible.Book{ID: "JHN", Title: "John", Chapters: []bible.Chapter{{ID: "1", Verses: []bible.Verse{{ID: "1"}, {ID: "2"}}}}},
		Texts: [][]string{{"In the beginning was the Word, and the Word was with God.", "The same was in the beginning with God."}},
	}}).Encode())
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"word", `"the word"`, "beg*", "begining", "John 1:1-2", "jn 1 1", `"unclosed`, "***", "i ii iii 1 2", "\xff\xfe"} {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, q, intent string) {
		r := x.Search(q, intent, 10)
		for _, v := range r.Verses {
			for _, m := range x.Matches(r, v) {
				if m.Start < 0 || m.End <= m.Start || m.End > len([]rune(x.Text(v))) {
					t.Fatalf("%q: span %v", q, m)
				}
			}
		}
	})
}

func FuzzDecode(f *testing.F) {
	good := search.Build("en", []search.Verses{{
		Book:  bible.Book{ID: "JHN", Title: "John", Chapters: []bible.Chapter{{ID: "1", Verses: []bible.Verse{{ID: "1"}}}}},
		Texts: [][]string{{"In the beginning was the Word"}},
	}}).Encode()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := search.Decode(data)
		if err != nil {
			return
		}
		x.Search("word", "", 10)
		x.Search("w*", "", 10)
		x.Search(`"the word"`, "", 10)
	})
}

// BenchmarkBuildWEB is the index's share of a cold build of the WEB.
func BenchmarkBuildWEB(b *testing.B) {
	vs, err := webVerses()
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, v := range vs {
		for _, c := range v.Texts {
			for _, t := range c {
				size += len(t)
			}
		}
	}
	b.ResetTimer()
	var n int
	for range b.N {
		n = len(search.Build("en", vs).Encode())
	}
	b.ReportMetric(float64(n)/float64(size), "index/text")
	b.ReportMetric(float64(n)/1e6, "index_MB")
}
