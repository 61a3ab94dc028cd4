package versification

import (
	"strconv"
	"testing"

	"github.com/bibleplatform/platform/bible"
)

// bookOf is a Bible's book numbered by s: every verse from 1 to the
// chapter's last (a title counted as verse 0 is a heading, as in the
// WEB), without the verses listed in omit ("MAT.17.21").
func bookOf(s *Scheme, book bible.BookID, omit ...string) *bible.Index {
	skip := map[string]bool{}
	for _, o := range omit {
		skip[o] = true
	}
	b := &bible.Book{ID: book}
	for c := 1; c <= s.Chapters(book); c++ {
		ch := bible.Chapter{ID: strconv.Itoa(c), PassageID: string(book) + "." + strconv.Itoa(c)}
		for v := 1; v <= s.LastVerse(book, c); v++ {
			id := ch.PassageID + "." + strconv.Itoa(v)
			if !skip[id] {
				ch.Verses = append(ch.Verses, bible.Verse{ID: strconv.Itoa(v), PassageID: id})
			}
		}
		b.Chapters = append(b.Chapters, ch)
	}
	return &bible.Index{Books: []bible.Book{*b}}
}

// bridged makes each of ranges one verse of x, a bridge (\v 15-16): its
// first verse's, the others gone.
func bridged(t *testing.T, x *bible.Index, ranges ...string) *bible.Index {
	t.Helper()
	for _, s := range ranges {
		r := bible.MustParseRef(s)
		ch := x.Book(r.Book).Chapter(r.Chapter)
		first, last := ch.VerseIndex(r.Verse), ch.VerseIndex(r.EndVerse)
		if first < 0 || last <= first {
			t.Fatalf("bridge %s: verses %d to %d", s, first, last)
		}
		ch.Verses = append(ch.Verses[:first+1], ch.Verses[last+1:]...)
		if err := x.SetBridges(bible.Bridges{r.Start().String(): r.EndVerse}); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

func TestIdentity(t *testing.T) {
	for _, tc := range []struct {
		from, to, ref string
		want          bool
	}{
		{Eng, Org, "JHN.3.16", true},
		{Eng, Org, "JHN.3", true},
		{Eng, Org, "JHN.3.16-4.2", true},
		{Org, Vul, "3JN.1.14-15", true}, // every scheme numbers 3 John 1:14-15 alike
		{Eng, Org, "PSA.51.10", false},
		{Eng, Org, "MAL.4", false},
		{Eng, Org, "MAL.3.1", false}, // org's MAL 3 holds English 4
		{Vul, Eng, "PSA.50.3", false},
		{Eng, Eng, "PSA.51.10", true},
		{Vul, Org, "DAG.3.24", false}, // the original's alias of S3Y
		{Eng, Org, "GEN.INTRO", false},
		{Eng, Org, "PS2.1_1", false},
		{Eng, Org, "GEN.51", false}, // eng has no Genesis 51
	} {
		if got := Identity(std(t, tc.from), std(t, tc.to), bible.MustParseRef(tc.ref)); got != tc.want {
			t.Errorf("Identity(%s, %s, %s) = %v, want %v", tc.from, tc.to, tc.ref, got, tc.want)
		}
		// Identity must agree with Map.
		if tc.want {
			got, err := Map(std(t, tc.from), std(t, tc.to), bible.MustParseRef(tc.ref))
			if r := bible.MustParseRef(tc.ref); err != nil || r.Kind() != bible.KindChapter && join(got) != r.String() {
				t.Errorf("Map(%s, %s, %s) = %s (%v), but Identity holds", tc.from, tc.to, tc.ref, join(got), err)
			}
		}
	}
}

// TestIdentityAgreesWithMap: wherever Identity holds for a verse of the
// shared schemes, Map answers that verse.
func TestIdentityAgreesWithMap(t *testing.T) {
	n := 0
	for _, from := range Names {
		for _, to := range Names {
			f, g := std(t, from), std(t, to)
			for _, book := range f.books {
				for c := 1; c <= f.Chapters(book); c += 7 {
					r := bible.Ref{Book: book, Chapter: strconv.Itoa(c), Verse: "1"}
					if !Identity(f, g, r) {
						continue
					}
					n++
					if got, err := Map(f, g, r); err != nil || join(got) != r.String() {
						t.Fatalf("%s %s → %s = %s (%v), but Identity holds", from, r, to, join(got), err)
					}
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("Identity held for only %d verses", n)
	}
}

func TestAppendInto(t *testing.T) {
	eng, org, lxx := std(t, Eng), std(t, Org), std(t, LXX)
	engPsa, orgPsa := bookOf(eng, "PSA"), bookOf(org, "PSA")
	// The WEB's Sirach bridges 11:15-16 and 26:19-27.
	sir := bridged(t, bookOf(eng, "SIR"), "SIR.11.15-16", "SIR.26.19-27")
	for _, tc := range []struct {
		name     string
		from, to *Scheme
		ref      string
		b        *bible.Index
		want     string
	}{
		{"Hebrew 51:12 in an English Bible", org, eng, "PSA.51.12", engPsa, "PSA.51.10"},
		{"English 51:10 in the Hebrew", eng, org, "PSA.51.10", orgPsa, "PSA.51.12"},
		{"English 51:1 in the Hebrew", eng, org, "PSA.51.1", orgPsa, "PSA.51.3"},
		{"the Hebrew title is no verse of the WEB", org, eng, "PSA.51.1-2", engPsa, ""},
		{"the English title is Hebrew 1-2", eng, org, "PSA.51.0", orgPsa, "PSA.51.1-2"},
		{"Hebrew 51 in an English Bible", org, eng, "PSA.51", engPsa, "PSA.51"},
		{"English 51 in the Hebrew", eng, org, "PSA.51", orgPsa, "PSA.51"},
		{"Hebrew 51:1-3 in an English Bible", org, eng, "PSA.51.1-3", engPsa, "PSA.51.1"},
		{"Greek 22 is Psalm 23", lxx, eng, "PSA.22", engPsa, "PSA.23"},
		{"Greek 9 is Hebrew 9 and 10", lxx, org, "PSA.9", orgPsa, "PSA.9.1-10.18"},
		{"Malachi 4", eng, org, "MAL.4", bookOf(org, "MAL"), "MAL.3.19-24"},
		{"Hebrew Malachi 3", org, eng, "MAL.3", bookOf(eng, "MAL"), "MAL.3.1-4.6"},
		{"Joel 2:28-32", eng, org, "JOL.2.28-32", bookOf(org, "JOL"), "JOL.3.1-5"},
		{"Joel 3:1-5", org, eng, "JOL.3.1-5", bookOf(eng, "JOL"), "JOL.2.28-32"},
		{"a verse the Bible omits", org, eng, "MAT.17.21", bookOf(eng, "MAT", "MAT.17.21"), ""},
		{"a run ending in an omitted verse", org, eng, "MAT.17.20-21", bookOf(eng, "MAT", "MAT.17.21"), "MAT.17.20"},
		{"a verse inside a bridge", eng, eng, "SIR.11.16", sir, "SIR.11.15-16"},
		{"a bridge's first verse", org, eng, "SIR.11.15", sir, "SIR.11.15-16"},
		{"a run ending inside a bridge", eng, eng, "SIR.11.14-15", sir, "SIR.11.14-16"},
		{"a run starting inside a bridge", org, eng, "SIR.11.16-17", sir, "SIR.11.15-17"},
		{"a bridge across a run", eng, eng, "SIR.11.14-17", sir, "SIR.11.14-17"},
		{"a verse inside a long bridge", org, eng, "SIR.26.20", sir, "SIR.26.19-27"},
		{"a chapter ending in a bridge is the chapter", lxx, eng, "PSA.22", bridged(t, bookOf(eng, "PSA"), "PSA.23.5-6"), "PSA.23"},
		{"a run around an omitted verse", lxx, eng, "MAT.17.20-22", bookOf(eng, "MAT", "MAT.17.21"), "MAT.17.20-22"},
		{"Romans 16:25-27 from the Vulgate to a Russian Bible", std(t, Vul), std(t, RSO), "ROM.16.25-27", bookOf(std(t, RSO), "ROM"), "ROM.14.24-26"},
		{"a book the Bible lacks", eng, org, "PSA.51.10", bookOf(org, "GEN"), ""},
		{"the Song of the Three in a Bible with S3Y", std(t, Vul), org, "DAG.3.24", bookOf(org, "S3Y"), "S3Y.1.1"},
		{"the Song of the Three in a Bible with Greek Daniel", std(t, Vul), org, "DAG.3.24", bookOf(std(t, Vul), "DAG"), "DAG.3.24"},
	} {
		got, err := AppendInto(nil, tc.from, tc.to, bible.MustParseRef(tc.ref), tc.b)
		if err != nil || join(got) != tc.want {
			t.Errorf("%s: AppendInto(%s %s) = %s (%v), want %s", tc.name, tc.from.Name, tc.ref, join(got), err, tc.want)
		}
	}
}

// TestAppendIntoAllocs: a passage no scheme renumbers costs nothing.
func TestAppendIntoAllocs(t *testing.T) {
	eng, org := std(t, Eng), std(t, Org)
	b := bookOf(org, "JHN")
	r := bible.MustParseRef("JHN.3.16-18")
	allocs := testing.AllocsPerRun(100, func() {
		var buf [4]bible.Ref
		refs, err := AppendInto(buf[:0], eng, org, r, b)
		if err != nil || len(refs) != 1 {
			t.Fatal(len(refs), err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations, want 0", allocs)
	}
}
