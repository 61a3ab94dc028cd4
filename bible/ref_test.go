package bible

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Ref
		str  string
		kind Kind
	}{
		{"JHN.3", Ref{Book: "JHN", Chapter: "3"}, "JHN.3", KindChapter},
		{"JHN.3.16", Ref{Book: "JHN", Chapter: "3", Verse: "16"}, "JHN.3.16", KindVerse},
		{"JHN.3.16-18", Ref{"JHN", "3", "16", "3", "18"}, "JHN.3.16-18", KindRange},
		{"JHN.3.16-4.2", Ref{"JHN", "3", "16", "4", "2"}, "JHN.3.16-4.2", KindRange},
		{"JHN.3.16-JHN.4.2", Ref{"JHN", "3", "16", "4", "2"}, "JHN.3.16-4.2", KindRange},
		{"JHN.3.16-JHN.3.18", Ref{"JHN", "3", "16", "3", "18"}, "JHN.3.16-18", KindRange},
		{"JHN.3.16-16", Ref{Book: "JHN", Chapter: "3", Verse: "16"}, "JHN.3.16", KindVerse},
		{"GEN.INTRO", Ref{Book: "GEN", Chapter: "INTRO"}, "GEN.INTRO", KindIntro},
		{"gen.intro", Ref{Book: "GEN", Chapter: "INTRO"}, "GEN.INTRO", KindIntro},
		{"PS2.1_1", Ref{Book: "PS2", Chapter: "1_1"}, "PS2.1_1", KindChapter},
		{"PS2.1_1.7", Ref{Book: "PS2", Chapter: "1_1", Verse: "7"}, "PS2.1_1.7", KindVerse},
		{"ESG.1.1234567", Ref{Book: "ESG", Chapter: "1", Verse: "1234567"}, "ESG.1.1234567", KindVerse},
		{"1SA.3.4a", Ref{Book: "1SA", Chapter: "3", Verse: "4a"}, "1SA.3.4a", KindVerse},
	} {
		got, err := ParseRef(c.in)
		if err != nil {
			t.Errorf("ParseRef(%q): %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("ParseRef(%q) = %#v; want %#v", c.in, got, c.want)
		}
		if s := got.String(); s != c.str {
			t.Errorf("ParseRef(%q).String() = %q; want %q", c.in, s, c.str)
		}
		if k := got.Kind(); k != c.kind {
			t.Errorf("ParseRef(%q).Kind() = %v; want %v", c.in, k, c.kind)
		}
	}
}

func TestParseRefErrors(t *testing.T) {
	for _, in := range []string{
		"", "JHN", "JN.3", "JOHN.3", "JHN.", "JHN..16", "JHN.3.", "JHN.3.16.1",
		"JHN.12345678", "JHN.3.12345678", "JHN.3-4", "JHN.3.16-", "JHN.3.16-ACT.1.1",
		"GEN.INTRO.1", "GEN.INTRO-2", "JHN.3.16-INTRO.1", "JHN.3.1 6", "JHN.3.16-4.2.1.1",
		"JHN.3/16", "JHN.3.é", strings.Repeat("A", 100),
	} {
		_, err := ParseRef(in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("ParseRef(%q) = %v; want a *ParseError", in, err)
			continue
		}
		if !strings.Contains(err.Error(), `"`+in+`"`) && len(in) < 64 {
			t.Errorf("ParseRef(%q) error %q does not quote the input", in, err)
		}
	}
}

func TestLabel(t *testing.T) {
	for _, c := range []struct{ ref, want string }{
		{"JHN.3.16", "Juan 3:16"},
		{"JHN.3", "Juan 3"},
		{"JHN.3.16-18", "Juan 3:16-18"},
		{"JHN.3.16-4.2", "Juan 3:16-4:2"},
		{"JHN.INTRO", "Juan Introducción"},
	} {
		if got := MustParseRef(c.ref).Label("Juan", "Introducción"); got != c.want {
			t.Errorf("Label(%s) = %q; want %q", c.ref, got, c.want)
		}
	}
}

func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"JHN.3", "JHN.3.16", "JHN.3.16-18", "JHN.3.16-4.2", "JHN.3.16-JHN.4.2", "GEN.INTRO", "PS2.1_1.7", "x.y-z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			if !strings.Contains(err.Error(), "invalid passage id") {
				t.Fatalf("error without context: %v", err)
			}
			return
		}
		// What we print parses back to the same reference.
		out := r.String()
		r2, err := ParseRef(out)
		if err != nil || r2 != r {
			t.Fatalf("ParseRef(%q) = %#v, printed %q, reparsed %#v, %v", s, r, out, r2, err)
		}
		if r.Kind() == KindInvalid || !r.Book.Canonical() && !ValidBookID(string(r.Book)) {
			t.Fatalf("ParseRef(%q) accepted %#v", s, r)
		}
		for _, seg := range []string{r.Chapter, r.Verse, r.EndChapter, r.EndVerse} {
			if len(seg) > MaxIDLen {
				t.Fatalf("segment %q too long", seg)
			}
		}
	})
}

func TestParseRefAllocs(t *testing.T) {
	for _, id := range []string{"JHN.3.16-4.2", "jhn.3.16-JHN.4.2", "JHN.3.16", "jhn.3", "gen.intro", "PS2.1_1.7", "FRT.1"} {
		n := testing.AllocsPerRun(100, func() {
			if _, err := ParseRef(id); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("ParseRef(%q) allocates %v times; the edge parses on its hot path", id, n)
		}
	}
}
