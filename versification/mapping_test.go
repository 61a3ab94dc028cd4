package versification

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/internal/repotest"
)

func std(t testing.TB, name string) *Scheme {
	t.Helper()
	s, ok := Standard(name)
	if !ok {
		t.Fatalf("no standard scheme %q", name)
	}
	return s
}

func join(refs []bible.Ref) string {
	var ids []string
	for _, r := range refs {
		ids = append(ids, r.String())
	}
	return strings.Join(ids, ",")
}

func TestMap(t *testing.T) {
	for _, tc := range []struct {
		from, to, ref, want string
	}{
		// Psalm 51: the English title is Hebrew verses 1–2.
		{Eng, Org, "PSA.51.10", "PSA.51.12"},
		{Org, Eng, "PSA.51.12", "PSA.51.10"},
		{Eng, Org, "PSA.51.1", "PSA.51.3"},
		{Org, Eng, "PSA.51.3", "PSA.51.1"},
		{Eng, Org, "PSA.51.0", "PSA.51.1-2"},
		{Org, Eng, "PSA.51.1", "PSA.51.0"},
		{Org, Eng, "PSA.51.2", "PSA.51.0"},
		{Org, Eng, "PSA.51.1-3", "PSA.51.0-1"},
		{Eng, Org, "PSA.51", "PSA.51.1-21"},
		{Org, Eng, "PSA.51", "PSA.51.0-19"},
		{Eng, Org, "PSA.51.1-19", "PSA.51.3-21"},
		// Malachi 4 of English Bibles is Malachi 3:19–24 in Hebrew.
		{Eng, Org, "MAL.4", "MAL.3.19-24"},
		{Eng, Org, "MAL.4.1", "MAL.3.19"},
		{Org, Eng, "MAL.3.19-24", "MAL.4.1-6"},
		{Org, Eng, "MAL.3", "MAL.3.1-4.6"},
		{Org, Eng, "MAL.3.24", "MAL.4.6"},
		// Joel 2:28–32 is Joel 3:1–5, and English Joel 3 is Hebrew Joel 4.
		{Eng, Org, "JOL.2.28-32", "JOL.3.1-5"},
		{Org, Eng, "JOL.3.1-5", "JOL.2.28-32"},
		{Eng, Org, "JOL.2", "JOL.2.1-3.5"},
		{Eng, Org, "JOL.3.21", "JOL.4.21"},
		{Org, Eng, "JOL.4", "JOL.3.1-21"},
		// The Greek and Latin Psalters are one psalm behind for most of
		// the book: LXX 9 is Hebrew 9 and 10, LXX 22 is Hebrew 23, LXX
		// and Vulgate 50 (the Miserere) is Hebrew 51.
		{LXX, Org, "PSA.22.1", "PSA.23.1"},
		{LXX, Eng, "PSA.22", "PSA.23.1-6"},
		{Eng, LXX, "PSA.23.1-6", "PSA.22.1-6"},
		{LXX, Org, "PSA.9", "PSA.9.1-10.18"},
		{Org, LXX, "PSA.10.1", "PSA.9.22"},
		{LXX, Eng, "PSA.50.3", "PSA.51.1"},
		{Vul, Eng, "PSA.50.12", "PSA.51.10"},
		{Eng, Vul, "PSA.51.10", "PSA.50.12"},
		{LXX, Vul, "PSA.50", "PSA.50.1-21"},
		// Verses every scheme numbers alike map to themselves.
		{Eng, Org, "3JN.1.14-15", "3JN.1.14-15"},
		{Org, Eng, "3JN.1.15", "3JN.1.15"},
		{Vul, RSO, "3JN.1", "3JN.1.1-15"},
		{Eng, Org, "JHN.3.16", "JHN.3.16"},
		// The doxology of Romans (16:25–27 in the Vulgate and the
		// original) closes chapter 14 in the Russian Synodal Bible.
		{Vul, Org, "ROM.16.25-27", "ROM.16.25-27"},
		{Vul, RSO, "ROM.16.25-27", "ROM.14.24-26"},
		{RSC, Vul, "ROM.14.24-26", "ROM.16.25-27"},
		{Vul, Eng, "ROM.16.25-27", "ROM.16.25-27"},
		{Org, RSC, "ROM.16", "ROM.14.24-26,ROM.16.1-24"},
		// A run mapped to one verse answers the whole run back
		// (eng.vrs: #! &ACT 19:40-41 = ACT 19:40).
		{Org, Eng, "ACT.19.40", "ACT.19.40-41"},
		{Eng, Org, "ACT.19.41", "ACT.19.40"},
		// Across a chapter boundary.
		{Eng, Org, "GEN.31.55", "GEN.32.1"},
		{Eng, Org, "GEN.31.54-32.1", "GEN.31.54-32.2"},
		{Org, Eng, "GEN.32.1-2", "GEN.31.55-32.1"},
		// The original numbering names the Song of the Three twice.
		{Vul, Org, "DAG.3.24", "S3Y.1.1,DAG.3.24"},
		{Org, Org, "DAG.3.24", "DAG.3.24"},
		{Eng, Eng, "DAG.3.24-25", "DAG.3.24-25"},
		// Greek Esther: English verses that are segments of one original
		// verse.
		{Eng, Org, "ESG.1.2", "ESG.1.1b"},
		{Org, Eng, "ESG.1.1b", "ESG.1.2"},
		// Rows of unequal length (rso.vrs: PSA 89:2-6 = PSA 90:1-6).
		{Org, RSO, "PSA.90.6", "PSA.89.6"},
		{RSO, Org, "PSA.89.6", "PSA.90.5-6"},
	} {
		got, err := Map(std(t, tc.from), std(t, tc.to), bible.MustParseRef(tc.ref))
		if tc.from != tc.to {
			// A Bible's compiled copy of a scheme maps as the scheme.
			from, _ := Decode(Encode(std(t, tc.from)))
			if again, err := Map(from, std(t, tc.to), bible.MustParseRef(tc.ref)); err != nil || join(again) != join(got) {
				t.Errorf("%s %s → %s from a compiled copy = %s (%v), want %s", tc.from, tc.ref, tc.to, join(again), err, join(got))
			}
		}
		if err != nil {
			t.Errorf("%s %s → %s: %v", tc.from, tc.ref, tc.to, err)
			continue
		}
		if g := join(got); g != tc.want {
			t.Errorf("%s %s → %s = %s, want %s", tc.from, tc.ref, tc.to, g, tc.want)
		}
	}
}

func TestMapErrors(t *testing.T) {
	eng := std(t, Eng)
	for _, tc := range []struct {
		ref  string
		want error
	}{
		{"PS2.1_1", ErrNotNumbered},
		{"PSA.1.x", ErrNotNumbered},
		{"GEN.INTRO", ErrIntro},
		{"GEN.3.5-2", bible.ErrBackwards},
		{"GEN.51", &MissingError{}},
		{"GEN.50.1-52.1", &MissingError{}},
	} {
		_, err := Map(eng, std(t, Org), bible.MustParseRef(tc.ref))
		var missing *MissingError
		if _, wantMissing := tc.want.(*MissingError); wantMissing && errors.As(err, &missing) {
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("Map(%s) = %v, want %v", tc.ref, err, tc.want)
		}
	}
}

// covers reports whether one of refs (runs of to) holds v.
func covers(refs []bible.Ref, v Verse) bool {
	for _, r := range refs {
		a, b := refVerse(r.Start()), refVerse(r.End())
		if compare(a, v) <= 0 && compare(v, b) <= 0 {
			return true
		}
	}
	return false
}

func verseRef(v Verse) bible.Ref {
	return bible.Ref{Book: v.Book, Chapter: strconv.Itoa(v.Chapter), Verse: v.id()}
}

func rangeRef(r Range) bible.Ref {
	ref := verseRef(r.verse(0))
	if r.Last != r.First {
		ref.EndChapter, ref.EndVerse = ref.Chapter, strconv.Itoa(r.Last)
	}
	return ref
}

// TestEveryMappingLine maps every verse pair of every mapping line of the
// shared .vrs files both ways through the original numbering, and each
// line's runs as a whole.
func TestEveryMappingLine(t *testing.T) {
	org := std(t, Org)
	eng := std(t, Eng)
	lines, pairs := 0, 0
	for _, name := range Names {
		s := parseShared(t, name)
		for _, m := range s.Mappings() {
			lines++
			where := name + ".vrs:" + strconv.Itoa(m.Line) + ": " + m.Local.String() + " = " + m.Org.String()
			if name == Org {
				// org.vrs names the same text twice: a scheme that
				// numbers both alike answers both names.
				m.Pairs(func(a, b Verse) {
					pairs++
					if got, _ := Map(eng, org, verseRef(a)); !covers(got, b) {
						t.Errorf("%s: eng %s → org = %s, want it to hold %s", where, a, join(got), b)
					}
					if got, _ := Map(org, eng, verseRef(b)); !covers(got, a) {
						t.Errorf("%s: org %s → eng = %s, want it to hold %s", where, b, join(got), a)
					}
				})
				continue
			}
			m.Pairs(func(l, o Verse) {
				pairs++
				got, err := Map(s, org, verseRef(l))
				if err != nil || !covers(got, o) {
					t.Errorf("%s: %s → org = %s (%v), want it to hold %s", where, l, join(got), err, o)
				}
				// A verse only this pair maps answers exactly its pair.
				if len(s.toOrg[l]) == 1 && len(aliases()[o]) == 0 && join(got) != verseRef(o).String() {
					t.Errorf("%s: %s → org = %s, want %s", where, l, join(got), verseRef(o))
				}
				back, err := Map(org, s, verseRef(o))
				if err != nil || !covers(back, l) {
					t.Errorf("%s: org %s → %s = %s (%v), want it to hold %s", where, o, name, join(back), err, l)
				}
				if len(s.fromOrg[o]) == 1 && len(aliases()[o]) == 0 && join(back) != verseRef(l).String() {
					t.Errorf("%s: org %s → %s = %s, want %s", where, o, name, join(back), verseRef(l))
				}
			})
			got, err := Map(s, org, rangeRef(m.Local))
			for i := range m.Org.len() {
				if err != nil || !covers(got, m.Org.verse(i)) {
					t.Errorf("%s: the run → org = %s (%v), want it to hold %s", where, join(got), err, m.Org.verse(i))
				}
			}
			back, err := Map(org, s, rangeRef(m.Org))
			for i := range m.Local.len() {
				if err != nil || !covers(back, m.Local.verse(i)) {
					t.Errorf("%s: the run back = %s (%v), want it to hold %s", where, join(back), err, m.Local.verse(i))
				}
			}
		}
	}
	// The shared files' counts, so that a file that stopped being read
	// whole fails here.
	if lines < 1700 || pairs < 10000 {
		t.Errorf("%d mapping lines, %d verse pairs: the shared files have more", lines, pairs)
	}
	t.Logf("%d mapping lines, %d verse pairs", lines, pairs)
}

func parseShared(t testing.TB, name string) *Scheme {
	t.Helper()
	p := filepath.Join(repotest.Shared(t, "bibles", "versification"), name+".vrs")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := ParseVRS(p, name, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
