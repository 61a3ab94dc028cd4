package citation

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/versification"
)

// engBible is a resolver and the lengths of a Bible numbered as English
// Bibles are (eng.vrs): every book of the English names table.
func engBible(t testing.TB) (*Resolver, *versification.Scheme) {
	t.Helper()
	eng, _ := versification.Standard(versification.Eng)
	var bs []Book
	for _, e := range table("en").books {
		if n := eng.Chapters(e.id); n > 0 {
			bs = append(bs, Book{ID: e.id, Chapters: n})
		}
	}
	return NewResolver("en", bs, nil), eng
}

// TestResolveLectionary reads citations as the Revised Common Lectionary
// and the Book of Common Prayer print them: lists, gaps, parts of verses,
// optional verses in parentheses, "-end", runs across chapters, several
// passages, and single-chapter books.
func TestResolveLectionary(t *testing.T) {
	r, eng := engBible(t)
	for _, tc := range []struct{ in, want string }{
		// Advent to Epiphany, year A.
		{"Isaiah 2:1-5", "ISA.2.1-5"},
		{"Psalm 122", "PSA.122"},
		{"Romans 13:11-14", "ROM.13.11-14"},
		{"Matthew 24:36-44", "MAT.24.36-44"},
		{"Isaiah 11:1-10", "ISA.11.1-10"},
		{"Psalm 72:1-7, 18-19", "PSA.72.1-7,PSA.72.18-19"},
		{"Romans 15:4-13", "ROM.15.4-13"},
		{"Matthew 3:1-12", "MAT.3.1-12"},
		{"Isaiah 35:1-10", "ISA.35.1-10"},
		{"Psalm 146:5-10", "PSA.146.5-10"},
		{"Luke 1:46b-55", "LUK.1.46-55"},
		{"James 5:7-10", "JAS.5.7-10"},
		{"Matthew 11:2-11", "MAT.11.2-11"},
		{"Isaiah 7:10-16", "ISA.7.10-16"},
		{"Psalm 80:1-7, 17-19", "PSA.80.1-7,PSA.80.17-19"},
		{"Romans 1:1-7", "ROM.1.1-7"},
		{"Matthew 1:18-25", "MAT.1.18-25"},
		{"Isaiah 9:2-7; Luke 2:1-14 (15-20)", "ISA.9.2-7,LUK.2.1-14,LUK.2.15-20"},
		{"Titus 2:11-14", "TIT.2.11-14"},
		{"Psalm 96", "PSA.96"},
		{"Isaiah 63:7-9", "ISA.63.7-9"},
		{"Psalm 148", "PSA.148"},
		{"Hebrews 2:10-18", "HEB.2.10-18"},
		{"Matthew 2:13-23", "MAT.2.13-23"},
		{"Isaiah 60:1-6", "ISA.60.1-6"},
		{"Psalm 72:1-7, 10-14", "PSA.72.1-7,PSA.72.10-14"},
		{"Ephesians 3:1-12", "EPH.3.1-12"},
		{"Eph 3:2-3, 5-6", "EPH.3.2-3,EPH.3.5-6"},
		{"Matthew 2:1-12", "MAT.2.1-12"},
		{"Isaiah 42:1-9", "ISA.42.1-9"},
		{"Psalm 29", "PSA.29"},
		{"Acts 10:34-43", "ACT.10.34-43"},
		{"Matthew 3:13-17", "MAT.3.13-17"},
		{"Isaiah 49:1-7", "ISA.49.1-7"},
		{"Psalm 40:1-11", "PSA.40.1-11"},
		{"1 Corinthians 1:1-9", "1CO.1.1-9"},
		{"John 1:29-42", "JHN.1.29-42"},
		{"Isaiah 9:1-4", "ISA.9.1-4"},
		{"Psalm 27:1, 4-9", "PSA.27.1,PSA.27.4-9"},
		{"1 Corinthians 1:10-18", "1CO.1.10-18"},
		{"Matthew 4:12-23", "MAT.4.12-23"},
		{"Micah 6:1-8", "MIC.6.1-8"},
		{"Psalm 15", "PSA.15"},
		{"Matthew 5:1-12", "MAT.5.1-12"},
		{"Isaiah 58:1-9a, (9b-12)", "ISA.58.1-9,ISA.58.9-12"},
		{"Psalm 112:1-9, (10)", "PSA.112.1-9,PSA.112.10"},
		{"1 Corinthians 2:1-12, (13-16)", "1CO.2.1-12,1CO.2.13-16"},
		{"Exodus 24:12-18", "EXO.24.12-18"},
		{"2 Peter 1:16-21", "2PE.1.16-21"},
		{"Matthew 17:1-9", "MAT.17.1-9"},
		// Lent and Easter.
		{"Joel 2:1-2, 12-17", "JOL.2.1-2,JOL.2.12-17"},
		{"Psalm 51:1-17", "PSA.51.1-17"},
		{"2 Corinthians 5:20b-6:10", "2CO.5.20-6.10"},
		{"Matthew 6:1-6, 16-21", "MAT.6.1-6,MAT.6.16-21"},
		{"Genesis 2:15-17; 3:1-7", "GEN.2.15-17,GEN.3.1-7"},
		{"Psalm 32", "PSA.32"},
		{"Romans 5:12-19", "ROM.5.12-19"},
		{"Genesis 12:1-4a", "GEN.12.1-4"},
		{"Romans 4:1-5, 13-17", "ROM.4.1-5,ROM.4.13-17"},
		{"John 3:1-17", "JHN.3.1-17"},
		{"John 4:5-42", "JHN.4.5-42"},
		{"1 Samuel 16:1-13", "1SA.16.1-13"},
		{"Ephesians 5:8-14", "EPH.5.8-14"},
		{"Ezekiel 37:1-14", "EZK.37.1-14"},
		{"Psalm 118:1-2, 19-29", "PSA.118.1-2,PSA.118.19-29"},
		{"Isaiah 50:4-9a", "ISA.50.4-9"},
		{"Philippians 2:5-11", "PHP.2.5-11"},
		{"Matthew 26:14-27:66", "MAT.26.14-27.66"},
		{"Isaiah 52:13-53:12", "ISA.52.13-53.12"},
		{"John 18:1-19:42", "JHN.18.1-19.42"},
		{"Psalm 118:1-2, 14-24", "PSA.118.1-2,PSA.118.14-24"},
		{"Colossians 3:1-4", "COL.3.1-4"},
		{"Acts 2:14a, 22-32", "ACT.2.14,ACT.2.22-32"},
		{"Psalm 116:1-4, 12-19", "PSA.116.1-4,PSA.116.12-19"},
		{"Luke 24:13-35", "LUK.24.13-35"},
		{"Psalm 104:24-34, 35b", "PSA.104.24-34,PSA.104.35"},
		{"1 Corinthians 12:3b-13", "1CO.12.3-13"},
		{"Genesis 1:1-2:4a", "GEN.1.1-2.4"},
		{"2 Corinthians 13:11-13", "2CO.13.11-13"},
		// Ordinary Time.
		{"Genesis 24:34-38, 42-49, 58-67", "GEN.24.34-38,GEN.24.42-49,GEN.24.58-67"},
		{"Song of Solomon 2:8-13", "SNG.2.8-13"},
		{"Romans 7:15-25a", "ROM.7.15-25"},
		{"Matthew 11:16-19, 25-30", "MAT.11.16-19,MAT.11.25-30"},
		{"Psalm 119:105-112", "PSA.119.105-112"},
		{"Matthew 13:1-9, 18-23", "MAT.13.1-9,MAT.13.18-23"},
		{"Genesis 28:10-19a", "GEN.28.10-19"},
		{"Psalm 139:1-12, 23-24", "PSA.139.1-12,PSA.139.23-24"},
		{"Matthew 13:31-33, 44-52", "MAT.13.31-33,MAT.13.44-52"},
		{"Psalm 17:1-7, 15", "PSA.17.1-7,PSA.17.15"},
		{"Genesis 37:1-4, 12-28", "GEN.37.1-4,GEN.37.12-28"},
		{"Psalm 105:1-6, 16-22, 45b", "PSA.105.1-6,PSA.105.16-22,PSA.105.45"},
		{"Romans 11:1-2a, 29-32", "ROM.11.1-2,ROM.11.29-32"},
		{"Matthew 15:(10-20), 21-28", "MAT.15.10-20,MAT.15.21-28"},
		{"Exodus 1:8-2:10", "EXO.1.8-2.10"},
		{"Exodus 15:1b-11, 20-21", "EXO.15.1-11,EXO.15.20-21"},
		{"Philippians 1:21-30", "PHP.1.21-30"},
		{"John 1:(1-9), 10-18", "JHN.1.1-9,JHN.1.10-18"},
		{"Psalm 42-43", "PSA.42.1-43.5"},
		// The Church of England's style: "." and "-end".
		{"Romans 7.14-end", "ROM.7.14-25"},
		{"Rom 7:14-end", "ROM.7.14-25"},
		{"Mark 1.29-end", "MRK.1.29-45"},
		{"Isaiah 40.21-end", "ISA.40.21-31"},
		{"Psalm 147.1-11, 20c", "PSA.147.1-11,PSA.147.20"},
		{"1 Peter 3.18-end", "1PE.3.18-22"},
		{"Genesis 17.1-7, 15, 16", "GEN.17.1-7,GEN.17.15,GEN.17.16"},
		{"Romans 4.13-end", "ROM.4.13-25"},
		{"Mark 8.31-end", "MRK.8.31-38"},
		{"1 Corinthians 1.18-25", "1CO.1.18-25"},
		{"Ephesians 2.1-10", "EPH.2.1-10"},
		{"1 John 1.1-2.2", "1JN.1.1-2.2"},
		{"1 John 3.16-end", "1JN.3.16-24"},
		{"John 20.19-end", "JHN.20.19-31"},
		{"Luke 24.36b-48", "LUK.24.36-48"},
		{"Acts 4.5-12", "ACT.4.5-12"},
		// Several passages, abbreviated books, a book carried over.
		{"Isa 9:2-7; Luke 2:1-14", "ISA.9.2-7,LUK.2.1-14"},
		{"Jer 33:14-16; Ps 25:1-10; 1 Thess 3:9-13; Luke 21:25-36", "JER.33.14-16,PSA.25.1-10,1TH.3.9-13,LUK.21.25-36"},
		{"Zeph 3:14-20; Isa 12:2-6; Phil 4:4-7; Luke 3:7-18", "ZEP.3.14-20,ISA.12.2-6,PHP.4.4-7,LUK.3.7-18"},
		{"Mic 5:2-5a; Luke 1:46b-55; Heb 10:5-10; Luke 1:39-45 (46-55)", "MIC.5.2-5,LUK.1.46-55,HEB.10.5-10,LUK.1.39-45,LUK.1.46-55"},
		{"Ezekiel 37.1-14; Acts 2.1-21", "EZK.37.1-14,ACT.2.1-21"},
		{"Isa 9:2-7; 11:1-3", "ISA.9.2-7,ISA.11.1-3"},
		{"Ps 19; Rom 10:5-15", "PSA.19,ROM.10.5-15"},
		// Single-chapter books: the numbers are verses.
		{"Philemon 1-21", "PHM.1.1-21"},
		{"Jude 17-25", "JUD.1.17-25"},
		{"Obadiah 15-21", "OBA.1.15-21"},
		{"2 John 4-9", "2JN.1.4-9"},
		{"3 John 1:5-8", "3JN.1.5-8"},
		{"Jude 3", "JUD.1.3"},
		// What search's reference intent reads.
		{"jn 3 16", "JHN.3.16"},
		{"Jn3:16", "JHN.3.16"},
		{"John 3:16–18", "JHN.3.16-18"},
		{"First Corinthians 13:4-7", "1CO.13.4-7"},
		{"Mathew 5:9", "MAT.5.9"},
	} {
		got, err := r.Resolve(tc.in, eng)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tc.in, err)
			continue
		}
		if g := strings.Join(got.IDs(), ","); g != tc.want {
			t.Errorf("Resolve(%q) = %s, want %s", tc.in, g, tc.want)
		}
		for _, id := range got.IDs() {
			if _, err := bible.ParseRef(id); err != nil {
				t.Errorf("Resolve(%q): %s is not a passage id: %v", tc.in, id, err)
			}
		}
	}
}

func TestResolveReference(t *testing.T) {
	r, eng := engBible(t)
	es := NewResolver("es", []Book{{ID: "JHN", Names: []string{"Juan"}, Chapters: 21}, {ID: "EPH", Names: []string{"Efesios"}, Chapters: 6}}, nil)
	for _, tc := range []struct {
		r        *Resolver
		in, want string
	}{
		{r, "Eph 3:2-3, 5-6", "Ephesians 3:2-3, 5-6"},
		{r, "Isa 9:2-7; Luke 2:1-14", "Isaiah 9:2-7; Luke 2:1-14"},
		{r, "Rom 7:14-end", "Romans 7:14-25"},
		{r, "Ps 23", "Psalms 23"},
		{r, "Matthew 26:14-27:66, 5", "Matthew 26:14-27:66, 5"},
		{r, "Genesis 2:15-17; 3:1-7", "Genesis 2:15-17; Genesis 3:1-7"},
		{es, "Juan 3,16", "Juan 3:16"},
		{es, "Juan 3,16-18; Efesios 3:2-3, 5-6", "Juan 3:16-18; Efesios 3:2-3, 5-6"},
		{es, "John 3:16", "Juan 3:16"},
	} {
		got, err := tc.r.Resolve(tc.in, eng)
		if err != nil || got.Reference != tc.want {
			t.Errorf("Resolve(%q).Reference = %q (%v), want %q", tc.in, got.Reference, err, tc.want)
		}
	}
}

// TestResolveRefused: what cannot be read is refused, naming the passage
// at fault.
func TestResolveRefused(t *testing.T) {
	r, eng := engBible(t)
	for _, tc := range []struct{ in, part, reason string }{
		{"Eph 3:2-x", "Eph 3:2-x", "not a book"},
		{"John 3:16-", "John 3:16-", "nothing after the dash"},
		{"Hezekiah 3:16", "Hezekiah 3:16", `"Hezekiah" is not a book`},
		{"John 3:16;", "John 3:16;", "empty passage"},
		{"; John 3", "; John 3", "empty passage"},
		{"John 99:1", "John 99:1", "John has 21 chapters, not 99"},
		{"John 3:99", "John 3:99", "John 3 has 36 verses, not 99"},
		{"John 3:18-16", "John 3:18-16", "runs backwards"},
		{"Psalm 151", "Psalm 151", "Psalms has 150 chapters"},
		{"Rom 7-end", "Rom 7-end", `"end" after a chapter`},
		{"John 3:16--18", "John 3:16--18", "expected a number"},
		{"Isa 9:2-7; 1:1-3; Luke 2:1-40:2", "Luke 2:1-40:2", "Luke has 24 chapters, not 40"},
		{"1:1", "1:1", "no book named"},
		{"John", "John", "a whole book is not a passage"},
		{"John 3:16, , 17", "John 3:16, , 17", "expected a number"},
		{"Jude 26", "Jude 26", "Jude 1 has 25 verses, not 26"},
		{"Genesis 0:1", "Genesis 0:1", "no chapter 0"},
		{"Mark 1:1-16:9-10", "Mark 1:1-16:9-10", "two dashes"},
		{"John 3:16 is love", "John 3:16 is love", "not a book"},
		{"John 3:1600", "John 3:1600", "not a book"},
		{"Isa 9:2-7; Lk 2:1-14; Hezekiah 3", "Hezekiah 3", "not a book"},
		{"", "", "empty passage"},
		{strings.Repeat("John 3:16; ", 120), "", "longer than"},
	} {
		_, err := r.Resolve(tc.in, eng)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Resolve(%q) = %v, want an *Error", tc.in, err)
			continue
		}
		if tc.part != "" && e.Part != tc.part || !strings.Contains(e.Reason, tc.reason) {
			t.Errorf("Resolve(%q) = part %q, %q; want part %q, %q", tc.in, e.Part, e.Reason, tc.part, tc.reason)
		}
	}
}

func FuzzResolve(f *testing.F) {
	r, eng := engBible(f)
	for _, s := range []string{"Eph 3:2-3, 5-6", "Rom 7:14-end", "Isa 9:2-7; Luke 2:1-14 (15-20)", "Matthew 15:(10-20), 21-28",
		"Juan 3,16", "Jude 3", "Psalm 42-43", "1 John 1.1-2.2", "jn 3 16", "John 3:16--18", ";", "(", "1:1", "Ps 1-150"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := r.Resolve(s, eng)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: %v is not an *Error", s, err)
			}
			return
		}
		if len(got.Passages) == 0 || got.Reference == "" {
			t.Fatalf("%q: nothing resolved and no error", s)
		}
		for _, p := range got.Passages {
			q, err := bible.ParseRef(p.String())
			if err != nil || q != p {
				t.Fatalf("%q: %s does not read back (%v)", s, p, err)
			}
			if _, err := versification.Map(eng, eng, p); err != nil {
				t.Fatalf("%q: %s is not a passage of the Bible: %v", s, p, err)
			}
		}
	})
}

// TestIndexLengths: a Bible's index answers the chapters' lengths, so
// "-end" ends where the Bible's chapter ends.
func TestIndexLengths(t *testing.T) {
	x := &bible.Index{Books: []bible.Book{{ID: "ROM", Chapters: []bible.Chapter{
		{ID: "7", Verses: []bible.Verse{{ID: "1"}, {ID: "2"}, {ID: "3a"}, {ID: "3b"}}},
	}}}}
	r := NewResolver("en", []Book{{ID: "ROM", Chapters: 16}}, nil)
	got, err := r.Resolve("Rom 7:2-end", IndexLengths{x})
	if err != nil || strings.Join(got.IDs(), ",") != "ROM.7.2-3" {
		t.Errorf("Rom 7:2-end = %v (%v), want ROM.7.2-3", got.IDs(), err)
	}
	if _, err := r.Resolve("Rom 8:1", IndexLengths{x}); err == nil || !strings.Contains(err.Error(), "this Bible has no Romans 8") {
		t.Errorf("Rom 8:1: %v", err)
	}
}

// TestBookOf: a resolver made from a Bible's index reads the Bible's own
// names and writes them in references.
func TestBookOf(t *testing.T) {
	b := bible.Book{ID: "JHN", Title: "Juan", FullTitle: "El Evangelio según San Juan", Abbreviation: "Jn"}
	for c := 1; c <= 21; c++ {
		b.Chapters = append(b.Chapters, bible.Chapter{ID: strconv.Itoa(c), Verses: []bible.Verse{{ID: "1"}, {ID: "2"}}})
	}
	got := BookOf(&b)
	if got.ID != "JHN" || got.Chapters != 21 || strings.Join(got.Names, "|") != "Juan|El Evangelio según San Juan|Jn" {
		t.Errorf("BookOf = %+v", got)
	}
	x := &bible.Index{Books: []bible.Book{b}}
	res, err := NewResolver("es", []Book{got}, nil).Resolve("San Juan 3:1-end", IndexLengths{x})
	if err != nil || res.Reference != "Juan 3:1-2" || strings.Join(res.IDs(), ",") != "JHN.3.1-2" {
		t.Errorf("Resolve = %+v (%v)", res, err)
	}
}
