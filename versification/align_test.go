package versification

import (
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
)

// rowsString prints an alignment one row a line: the row's id, then each
// Bible's cell ("-" for none).
func rowsString(rows []Row) string {
	var lines []string
	for _, r := range rows {
		line := r.From.String() + ":"
		for _, c := range r.Cells {
			if c == nil {
				line += " -"
			} else {
				line += " " + join(c)
			}
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// withVerseZero is idx with a verse 0 before verse 1 of the chapter: a
// Bible that counts a psalm's title as a verse of its own.
func withVerseZero(idx *bible.Index, chapter string) *bible.Index {
	for i := range idx.Books[0].Chapters {
		ch := &idx.Books[0].Chapters[i]
		if ch.ID == chapter {
			ch.Verses = append([]bible.Verse{{ID: "0", PassageID: ch.PassageID + ".0"}}, ch.Verses...)
		}
	}
	return idx
}

func TestAlign(t *testing.T) {
	eng, org := std(t, Eng), std(t, Org)
	webPSA, uhbPSA := bookOf(eng, "PSA"), bookOf(org, "PSA")
	titledPSA := withVerseZero(bookOf(eng, "PSA"), "51")
	webMAL, rvMAL, uhbMAL := bookOf(eng, "MAL"), bookOf(eng, "MAL"), bookOf(org, "MAL")
	webJOL, uhbJOL := bookOf(eng, "JOL"), bookOf(org, "JOL")
	fullMAT, bsbMAT := bookOf(eng, "MAT"), bookOf(eng, "MAT", "MAT.17.21")
	sirWEB := bridged(t, bookOf(eng, "SIR"), "SIR.11.15-16", "SIR.26.19-27")
	for _, tc := range []struct {
		name    string
		from    *Scheme
		ref     string
		targets []Target
		want    []string // one line a row, as rowsString prints it
	}{
		{"Psalm 51 from English numbering: the title is Hebrew 1-2, absent from the WEB",
			eng, "PSA.51.0-3", []Target{{eng, webPSA}, {org, uhbPSA}},
			[]string{"PSA.51.0: - PSA.51.1-2", "PSA.51.1: PSA.51.1 PSA.51.3", "PSA.51.2: PSA.51.2 PSA.51.4", "PSA.51.3: PSA.51.3 PSA.51.5"}},
		{"Psalm 51 from Hebrew numbering: verses 1 and 2 are absent from the WEB, which keeps its place",
			org, "PSA.51.1-4", []Target{{org, uhbPSA}, {eng, webPSA}},
			[]string{"PSA.51.1: PSA.51.1 -", "PSA.51.2: PSA.51.2 -", "PSA.51.3: PSA.51.3 PSA.51.1", "PSA.51.4: PSA.51.4 PSA.51.2"}},
		{"Psalm 51 from Hebrew numbering into a Bible whose title is verse 0: one row for Hebrew 1-2",
			org, "PSA.51.1-3", []Target{{org, uhbPSA}, {eng, titledPSA}},
			[]string{"PSA.51.1-2: PSA.51.1-2 PSA.51.0", "PSA.51.3: PSA.51.3 PSA.51.1"}},
		{"Malachi 4 across two English-numbered Bibles and the Hebrew one",
			eng, "MAL.4", []Target{{eng, webMAL}, {eng, rvMAL}, {org, uhbMAL}},
			[]string{"MAL.4.1: MAL.4.1 MAL.4.1 MAL.3.19", "MAL.4.2: MAL.4.2 MAL.4.2 MAL.3.20", "MAL.4.3: MAL.4.3 MAL.4.3 MAL.3.21",
				"MAL.4.4: MAL.4.4 MAL.4.4 MAL.3.22", "MAL.4.5: MAL.4.5 MAL.4.5 MAL.3.23", "MAL.4.6: MAL.4.6 MAL.4.6 MAL.3.24"}},
		{"Malachi 3:19-24 from Hebrew numbering",
			org, "MAL.3.23-24", []Target{{org, uhbMAL}, {eng, webMAL}},
			[]string{"MAL.3.23: MAL.3.23 MAL.4.5", "MAL.3.24: MAL.3.24 MAL.4.6"}},
		{"Joel 2:28-32 is Hebrew 3:1-5",
			eng, "JOL.2.27-32", []Target{{eng, webJOL}, {org, uhbJOL}},
			[]string{"JOL.2.27: JOL.2.27 JOL.2.27", "JOL.2.28: JOL.2.28 JOL.3.1", "JOL.2.29: JOL.2.29 JOL.3.2", "JOL.2.30: JOL.2.30 JOL.3.3",
				"JOL.2.31: JOL.2.31 JOL.3.4", "JOL.2.32: JOL.2.32 JOL.3.5"}},
		{"Joel 3:1-5 from Hebrew numbering, across the chapter end",
			org, "JOL.3.5-4.1", []Target{{org, uhbJOL}, {eng, webJOL}},
			[]string{"JOL.3.5: JOL.3.5 JOL.2.32", "JOL.4.1: JOL.4.1 JOL.3.1"}},
		{"a verse one Bible omits is absent there, the next verse still lines up",
			eng, "MAT.17.20-22", []Target{{eng, fullMAT}, {eng, bsbMAT}},
			[]string{"MAT.17.20: MAT.17.20 MAT.17.20", "MAT.17.21: MAT.17.21 -", "MAT.17.22: MAT.17.22 MAT.17.22"}},
		{"a bridge (\\v 15-16) is one row for the verses it covers, its id the bridge's",
			eng, "SIR.11.14-17", []Target{{eng, sirWEB}, {eng, bookOf(eng, "SIR")}},
			[]string{"SIR.11.14: SIR.11.14 SIR.11.14", "SIR.11.15-16: SIR.11.15-16 SIR.11.15-16", "SIR.11.17: SIR.11.17 SIR.11.17"}},
		{"a verse inside a bridge is the whole bridge",
			eng, "SIR.11.16", []Target{{eng, bookOf(eng, "SIR")}, {eng, sirWEB}},
			[]string{"SIR.11.16: SIR.11.16 SIR.11.15-16"}},
		{"part of a long bridge from another numbering",
			org, "SIR.26.18-20", []Target{{org, bookOf(org, "SIR")}, {eng, sirWEB}},
			[]string{"SIR.26.18: SIR.26.18 SIR.26.18", "SIR.26.19-20: SIR.26.19-20 SIR.26.19-27"}},
		{"a verse no Bible has is a row all absent",
			eng, "PSA.51.0-1", []Target{{eng, webPSA}, {eng, bookOf(eng, "PSA")}},
			[]string{"PSA.51.0: - -", "PSA.51.1: PSA.51.1 PSA.51.1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := Align(tc.from, bible.MustParseRef(tc.ref), tc.targets)
			if err != nil {
				t.Fatal(err)
			}
			got := rowsString(rows)
			if want := strings.Join(tc.want, "\n"); got != want {
				t.Errorf("Align(%s) =\n%s\nwant\n%s", tc.ref, got, want)
			}
		})
	}
}

// TestAlignErrors: Align refuses what Map refuses.
func TestAlignErrors(t *testing.T) {
	eng := std(t, Eng)
	targets := []Target{{eng, bookOf(eng, "PSA")}}
	for _, ref := range []string{"PSA.151", "PSA.3.5-2", "PS2.1_1"} {
		_, mapErr := Map(eng, eng, bible.MustParseRef(ref))
		_, err := Align(eng, bible.MustParseRef(ref), targets)
		if err == nil || mapErr == nil || err.Error() != mapErr.Error() {
			t.Errorf("Align(%s) error %v, Map's %v", ref, err, mapErr)
		}
	}
}

// TestAlignCoversInto: over every row, a Bible's cells hold exactly the
// verses AppendInto answers for the whole passage, in the same order.
func TestAlignCoversInto(t *testing.T) {
	eng, org, lxx := std(t, Eng), std(t, Org), std(t, LXX)
	for _, tc := range []struct {
		from, to *Scheme
		book     bible.BookID
		ref      string
	}{
		{eng, org, "PSA", "PSA.51"}, {org, eng, "PSA", "PSA.51"}, {eng, lxx, "PSA", "PSA.9.1-11.7"},
		{lxx, eng, "PSA", "PSA.9"}, {eng, org, "MAL", "MAL.3.1-4.6"}, {org, eng, "JOL", "JOL.3.1-4.21"},
		{org, eng, "SIR", "SIR.11.10-26.20"},
	} {
		idx := bookOf(tc.to, tc.book)
		if tc.book == "SIR" {
			idx = bridged(t, idx, "SIR.11.15-16", "SIR.26.19-27")
		}
		rows, err := Align(tc.from, bible.MustParseRef(tc.ref), []Target{{tc.to, idx}})
		if err != nil {
			t.Fatal(err)
		}
		into, err := AppendInto(nil, tc.from, tc.to, bible.MustParseRef(tc.ref), idx)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, r := range rows {
			got = append(got, versesOf(t, idx, r.Cells[0])...)
		}
		want = versesOf(t, idx, into)
		if len(want) == 0 {
			t.Errorf("%s from %s into %s: AppendInto answers no verse", tc.ref, tc.from.Name, tc.to.Name)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s from %s into %s: rows hold\n%v\nAppendInto\n%v", tc.ref, tc.from.Name, tc.to.Name, got, want)
		}
	}
}

// versesOf lists the verse ids of the Bible idx that refs cover.
func versesOf(t *testing.T, idx *bible.Index, refs []bible.Ref) []string {
	t.Helper()
	var out []string
	for _, r := range refs {
		b := idx.Book(r.Book)
		span, err := b.Span(r)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		for c := span.FirstChapter; c <= span.LastChapter; c++ {
			from, to := span.Verses(c)
			for _, v := range b.Chapters[c].Verses[from : to+1] {
				out = append(out, b.Chapters[c].ID+"."+v.ID)
			}
		}
	}
	return out
}
