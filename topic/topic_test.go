package topic

import (
	"strings"
	"testing"
	"unsafe"
)

func TestParse(t *testing.T) {
	src := `{"id": 1, "text": "Love", "subtopics": ["God's love"], "passages": ["jhn.3.16", "1CO.13.4-7"]}

{"text": "Hope"}
{"id": 2, "text": "Faith", "passages": ["NOPE"]}
{"id": 1, "text": "Peace"}
{"id": 3, "text": "love"}
{"id": 4, "text": "Joy", "colour": "red"}
{"id": 5, "text": "Joy"} {"id": 6}
{"id": "7", "text": "Grace"}
{"id": 8, "text": "…!"}
{"id": 9, "text": "Prayer"`
	ts, errs := Parse("topics/en.jsonl", []byte(src))
	var texts []string
	for _, tp := range ts {
		texts = append(texts, tp.Text)
	}
	if got, want := strings.Join(texts, ","), "Love,Hope"; got != want {
		t.Errorf("topics = %s, want %s", got, want)
	}
	if got, want := strings.Join(ts[0].Passages, ","), "JHN.3.16,1CO.13.4-7"; got != want {
		t.Errorf("passages = %s, want %s (canonical ids)", got, want)
	}
	if ts[1].ID != nil || ts[1].Subtopics == nil || ts[1].Passages == nil {
		t.Errorf("a topic without id or lists = %+v, want null id and empty lists", ts[1])
	}
	want := []string{
		`topics/en.jsonl:4:1: passage 1: invalid passage id "NOPE"`,
		`topics/en.jsonl:5:1: id 1 is already the topic of line 1`,
		`topics/en.jsonl:6:1: topic "love" is already on line 1`,
		`topics/en.jsonl:7:`,
		`topics/en.jsonl:8:26: one topic per line`,
		`topics/en.jsonl:9:`,
		`topics/en.jsonl:10:1: text "…!" has no letter or digit`,
		`topics/en.jsonl:11:`,
	}
	if len(errs) != len(want) {
		t.Fatalf("errors = %v, want %d", errs, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(errs[i].Error(), w) {
			t.Errorf("error %d = %q, want prefix %q", i, errs[i], w)
		}
	}
}

func TestFold(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Jesús", "jesus"},
		{"  God's   LOVE!! ", "gods love"},
		{"Straße", "straße"},
		{"בְּרֵאשִׁית", "בראשית"},
		{"«Amor»", "amor"},
	} {
		if got := Fold(c.in); got != c.want {
			t.Errorf("Fold(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b   string
		k      int
		prefix bool
		want   int
	}{
		{"love", "love", 1, false, 0},
		{"lvoe", "love", 1, false, 1},
		{"lov", "love", 1, false, 1},
		{"forgivn", "forgiveness", 1, false, 2},
		{"forgivn", "forgiveness", 1, true, 1},
		{"hope", "peace", 1, false, 2},
		{"salvacion", "salvation", 2, false, 1},
	} {
		if got := distance([]rune(c.a), []rune(c.b), c.k, c.prefix); got != c.want {
			t.Errorf("distance(%q, %q, %d, %t) = %d, want %d", c.a, c.b, c.k, c.prefix, got, c.want)
		}
	}
}

func testIndex(t *testing.T) *Index {
	t.Helper()
	src := `{"id": 1, "text": "Love", "subtopics": ["God's love", "Love for neighbours"], "passages": ["JHN.3.16"]}
{"id": 2, "text": "Loving your enemies", "passages": ["MAT.5.44"]}
{"id": 3, "text": "Forgiveness", "subtopics": ["Forgiving others"], "passages": ["EPH.4.32"]}
{"id": 4, "text": "Fear", "subtopics": ["Courage"]}
{"id": 5, "text": "Salvation"}
{"id": 6, "text": "Jesús"}`
	ts, errs := Parse("en.jsonl", []byte(src))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return NewIndex(ts)
}

func texts(ts []Topic) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.Text)
	}
	return strings.Join(s, ",")
}

func TestSearch(t *testing.T) {
	x := testIndex(t)
	for _, c := range []struct {
		q, want, instead, dym string
	}{
		{"love", "Love", "", ""},
		{"Lov", "Love,Loving your enemies", "", ""},
		{"enemies loving", "Loving your enemies", "", ""},
		{"neighbours", "Love", "", ""},
		{"courage", "Fear", "", ""},
		{"jesus", "Jesús", "", ""},
		{"forgivn", "Forgiveness", "forgiveness", "forgiving"},
		{"salvacion", "Salvation", "salvation", ""},
		{"lvoe", "Love", "love", ""},
		{"zzzz", "", "", ""},
		{"!!", "", "", ""},
	} {
		r := x.Search(c.q)
		if got := texts(r.Topics); got != c.want || r.SearchInsteadFor != c.instead || strings.Join(r.DidYouMean, ",") != c.dym {
			t.Errorf("Search(%q) = %q instead %q dym %q, want %q %q %q", c.q, got, r.SearchInsteadFor, r.DidYouMean, c.want, c.instead, c.dym)
		}
	}
}

func TestSuggest(t *testing.T) {
	var list []Suggestion
	for _, s := range []string{"Love", "Love one another", "Forgiveness"} {
		list = append(list, Suggestion{Text: s, Source: SourceTopic})
	}
	list = append(list,
		Suggestion{Text: "Lamentations", Source: SourceBook, Weight: 1},
		Suggestion{Text: "Leviticus", Source: SourceBook, Weight: 1},
		Suggestion{Text: "love", Source: SourceVocabulary, Weight: 300},
		Suggestion{Text: "Lord", Source: SourceVocabulary, Weight: 7000},
		Suggestion{Text: "loved", Source: SourceVocabulary, Weight: 100},
	)
	x := NewSuggester(list)
	for _, c := range []struct{ q, want string }{
		{"lo", "Love,Love one another,Lord,loved"},
		{"LOVE ", "Love,Love one another,loved"},
		{"one an", "Love one another"},
		{"le", "Leviticus"},
		{"x", ""},
		{"  ", ""},
	} {
		var got []string
		for _, s := range x.Suggest(c.q) {
			got = append(got, s.Text)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("Suggest(%q) = %v, want %s", c.q, got, c.want)
		}
	}
}

func TestVocabulary(t *testing.T) {
	counts := map[string]int{}
	CountWords(counts, "For God so loved the world, that he gave his one and only Son. God's love; God is love.")
	CountWords(counts, "Love one another. The LORD is love, and Dios ama.")
	var got []string
	for _, s := range Vocabulary("en", counts, 2) {
		got = append(got, s.Text)
	}
	// "God" and "God's" fold apart; "the", "and", "is" are English stop
	// words; "love"/"Love" fold together and "love" is the commoner form.
	if want := "love,God"; strings.Join(got, ",") != want {
		t.Errorf("Vocabulary = %v, want %s (counts %v)", got, want, counts)
	}
	if counts["God's"] != 1 {
		t.Errorf("God's counted %d times, want 1 (an apostrophe inside a word)", counts["God's"])
	}
}

func TestRoughly(t *testing.T) {
	for n, want := range map[int]int{1: 0, 2: 4, 100: 26, 101: 26, 1000: 39, 1100: 40} {
		if got := roughly(n); got != want {
			t.Errorf("roughly(%d) = %d, want %d", n, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"id": 1, "text": "Love", "subtopics": ["x"], "passages": ["JHN.3.16"]}`))
	f.Add([]byte("{\"text\": \"a\"}\n{\"text\": \"A\"}\n"))
	f.Add([]byte(`{"id": -1, "text": ""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, _ := Parse("f.jsonl", data)
		seen := map[string]bool{}
		for _, tp := range ts {
			k := Fold(tp.Text)
			if k == "" || seen[k] {
				t.Fatalf("topic %q accepted twice or empty", tp.Text)
			}
			seen[k] = true
			x := NewIndex(ts)
			x.Search(tp.Text)
		}
	})
}

func FuzzSearch(f *testing.F) {
	f.Add("lvoe")
	f.Add("forgivn one another")
	f.Add("ééééééééééééééééééééééééééééééééééééééééé")
	f.Fuzz(func(t *testing.T, q string) {
		x := testIndex(t)
		r := x.Search(q)
		if len(r.Topics) > MaxTopics {
			t.Fatalf("%d topics", len(r.Topics))
		}
		NewSuggester([]Suggestion{{Text: "Love", Source: SourceTopic}}).Suggest(q)
	})
}

// TestParseLongLine: a line over the cap is an error for that line only;
// the topics after it are read.
func TestParseLongLine(t *testing.T) {
	long := `{"text": "` + strings.Repeat("a", MaxLineBytes) + `"}`
	data := []byte("{\"text\": \"Love\"}\n" + long + "\r\n{\"text\": \"Hope\"}\n")
	ts, errs := Parse("topics/en.jsonl", data)
	if len(ts) != 2 || ts[0].Text != "Love" || ts[1].Text != "Hope" {
		t.Errorf("topics %+v; want Love and Hope", ts)
	}
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "topics/en.jsonl:2:1048577: the line is longer than 1048576 bytes") {
		t.Errorf("errors %v; want one for line 2", errs)
	}
}

// A suggester keeps what it must for a build's life and no more: a
// candidate's source is the constant, an already-folded text is not
// copied, and only a multi-word candidate holds its words.
func TestSuggesterShares(t *testing.T) {
	text := strings.Clone("grace")
	x := NewSuggester([]Suggestion{
		{Text: text, Source: strings.Clone(SourceVocabulary), Weight: 3},
		{Text: "Love One Another", Source: strings.Clone(SourceTopic), Weight: 1},
	})
	for _, c := range x.cands {
		if unsafe.StringData(c.Source) != unsafe.StringData(sourceOf[c.Source]) {
			t.Errorf("%q: its source %q is a copy, not the constant", c.Text, c.Source)
		}
		switch c.Text {
		case text:
			if unsafe.StringData(c.folded) != unsafe.StringData(text) || c.words != nil {
				t.Errorf("%q: folded text copied or words held (%q)", c.Text, c.words)
			}
		default:
			if c.folded != "love one another" || len(c.words) != 3 {
				t.Errorf("%q: folded %q, words %q", c.Text, c.folded, c.words)
			}
		}
	}
	if got := x.Suggest("one an"); len(got) != 1 || got[0].Text != "Love One Another" {
		t.Errorf("Suggest(one an) = %v", got)
	}
}
