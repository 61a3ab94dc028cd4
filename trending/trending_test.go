package trending

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  Love   one\tanother ", "love one another"},
		{"SALVACIÓN", "salvación"},
		{"ﬁsh", "fish"},
		{"\x00\x01", ""},
		{"\xff", ""},
		// Control and format characters, URLs and markup never enter.
		{"love\x00god", ""},
		{"love\u202egod", ""},
		{"\u200fjesus", ""},
		{"https://evil.example/x", ""},
		{"visit evil.example now", ""},
		{"www evil com", ""},
		{"http:evil", ""},
		{"<script>alert(1)</script>", ""},
		{"tom & jerry", ""},
		{"a=b", ""},
		{"mail me@x", ""},
		// What readers search for does.
		{"John 3:16", "john 3:16"},
		{"jn 3.16", "jn 3.16"},
		{"1 Cor. 13", "1 cor. 13"},
		{`"love one another"`, `"love one another"`},
		{"lov*", "lov*"},
		{"¿Dónde está Dios?", "¿dónde está dios?"},
		{"God's love", "god's love"},
		{"בְּרֵאשִׁית", "בְּרֵאשִׁית"},
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	long := ""
	for range 60 {
		long += "ab "
	}
	if got := Normalize(long); len([]rune(got)) > MaxPhraseRunes || got[len(got)-1] == ' ' {
		t.Errorf("Normalize(long) = %q", got)
	}
}

func TestCounter(t *testing.T) {
	var c Counter
	for i := range 20 {
		c.Add("en", "Love", fmt.Sprint("app", i%18), fmt.Sprint("client", i))
	}
	c.Add("en", "love ", "app0", "client0")
	c.Add("es", "amor", "app0", "client0")
	c.Add("", "amor", "app0", "client0")
	b := c.Take()
	if b == nil || len(b.Queries) != 2 {
		t.Fatalf("batch %+v, want 2 phrases", b)
	}
	for _, q := range b.Queries {
		if q.Phrase == "love" && (q.Count != 21 || len(q.Apps) != MaxApps || len(q.Clients) != MaxApps) {
			t.Errorf("love: %+v; want 21 searches and %d apps and clients at most", q, MaxApps)
		}
	}
	if c.Take() != nil {
		t.Error("Take after Take is not empty")
	}
	c.Add("en", "love", "app99", "client99")
	c.Restore(b)
	b2 := c.Take()
	for _, q := range b2.Queries {
		if q.Phrase == "love" && q.Count != 22 {
			t.Errorf("restored love: %+v; want 22", q)
		}
	}
}

func TestCounterBound(t *testing.T) {
	var c Counter
	for i := range MaxBatch + 5 {
		c.Add("en", fmt.Sprint("q", i), "a", "c")
	}
	if c.Dropped() != 5 {
		t.Errorf("dropped %d, want 5", c.Dropped())
	}
	if b := c.Take(); len(b.Queries) != MaxBatch {
		t.Errorf("%d phrases, want %d", len(b.Queries), MaxBatch)
	}
}

// FuzzNormalize: a phrase is normalised once for good (dynamic refuses a
// reported phrase that Normalize does not return unchanged), and what it
// returns holds nothing the countable rule keeps out.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Love one another", "John 3:16", "<script>", "https://x.y", "ﬁsh", "\u202eabc", "¿Dónde?", "ΣΑΣ", "ǅ", "ﬃ ß İ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := Normalize(s)
		if p == "" {
			return
		}
		if again := Normalize(p); again != p {
			t.Fatalf("Normalize(%q) = %q, and again %q", s, p, again)
		}
		if strings.ContainsAny(p, "<>&/@=%#\x00\n") || utf8.RuneCountInString(p) > MaxPhraseRunes {
			t.Fatalf("Normalize(%q) = %q", s, p)
		}
		for _, r := range p {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("Normalize(%q) = %q holds %U", s, p, r)
			}
		}
	})
}
