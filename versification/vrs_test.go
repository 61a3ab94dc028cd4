package versification

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/internal/repotest"
)

func TestParseVRS(t *testing.T) {
	src := "# Versification  \"Test\"\n" +
		"GEN 1:31 2:25\r\n" +
		"PSA 1:6 2:12 3:8\n" +
		"   # an indented comment\n" +
		"PSA 3:0-8 = PSA 3:1-9   # a title\n" +
		"#! &ACT 19:40-41 = ACT 19:40\n" +
		"-GEN 2:25\n" +
		"#! *JOS 9:2,-,a,b\n" +
		"ESG 1:2 = ESG 1:1b\n"
	s, warns, err := ParseVRS("t.vrs", "t", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %v", warns)
	}
	if got := s.LastVerse("PSA", 3); got != 8 {
		t.Errorf("PSA 3 ends at %d, want 8", got)
	}
	if got := s.Chapters("GEN"); got != 2 {
		t.Errorf("GEN has %d chapters, want 2", got)
	}
	var got []string
	for _, m := range s.Mappings() {
		got = append(got, m.Local.String()+" = "+m.Org.String())
	}
	if want := "PSA 3:0-8 = PSA 3:1-9|ACT 19:40-41 = ACT 19:40|ESG 1:2 = ESG 1:1b"; strings.Join(got, "|") != want {
		t.Errorf("mappings %q, want %q", strings.Join(got, "|"), want)
	}
	if !s.isExcl[Verse{Book: "GEN", Chapter: 2, Verse: 25}] {
		t.Error("GEN 2:25 is not excluded")
	}
	if got := s.FromOrg(Verse{Book: "GEN", Chapter: 2, Verse: 25}); len(got) != 0 {
		t.Errorf("an excluded verse answers %v", got)
	}
}

func TestParseVRSWarnsOfBackwardRuns(t *testing.T) {
	s, warns, err := ParseVRS("t.vrs", "t", []byte("DAG 3:97\nDAG 3:52-23 = S3Y 1:30-31\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0].Error(), "t.vrs:2:10: the run 3:52-23 runs backwards") {
		t.Fatalf("warnings %v", warns)
	}
	if m := s.Mappings()[0]; m.Local.String() != "DAG 3:52" {
		t.Errorf("read as %s, want DAG 3:52", m.Local)
	}
}

func TestParseVRSErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", "t.vrs:1:1: no book lists its chapters"},
		{"# only comments\n", "t.vrs:1:1: no book lists its chapters"},
		{"Gen 1:31\n", `t.vrs:1:1: "Gen" is not a book id`},
		{"GEN\n", "t.vrs:1:1: book GEN lists no chapter"},
		{"GEN 1:31 2\n", `t.vrs:1:10: "2" is not CHAPTER:LASTVERSE`},
		{"GEN 1:31 0:5\n", "t.vrs:1:10: chapter 0 is outside 1–1000"},
		{"GEN 1:x\n", `t.vrs:1:7: last verse "x" is not a number`},
		{"GEN 1:1001\n", "t.vrs:1:7: last verse 1001 is outside 0–1000"},
		{"GEN 1:31\nGEN 1:1 = GEN 1:2 = GEN 1:3\n", "t.vrs:2:19: a mapping has one '='"},
		{"GEN 1:31\nGEN 1:1 =\n", "t.vrs:2:1: the right side is not BOOK CHAPTER:VERSE[-VERSE]"},
		{"GEN 1:31\nGEN 1:1-2:3 = GEN 1:1\n", "t.vrs:2:9: a run of verses stays within one chapter"},
		{"GEN 1:31\nGEN 1:1a-3 = GEN 1:1\n", "t.vrs:2:9: a run of verses cannot start with a segment"},
		{"GEN 1:31\nGEN 1 = GEN 1:1\n", `t.vrs:2:5: "1" is not CHAPTER:VERSE`},
		{"GEN 1:31\nGEN 1:99999 = GEN 1:1\n", `t.vrs:2:7: verse "99999" is not a number`},
		{"GEN 1:31\n-GEN 1:2-3\n", "t.vrs:2:2: an excluded verse is one verse"},
		{"GEN 1:31\n*GEN 1:2\n", "t.vrs:2:1: a segment line is *BOOK CHAPTER:VERSE,SEGMENT,…"},
		{"GEN 1:31\n*GEN 1:2,-,A\n", `t.vrs:2:1: segment "A" is not a letter`},
		{strings.Repeat("#", MaxVRSBytes+1), "t.vrs:1:1: the file is larger than"},
		{"GEN 1:31\n" + strings.Repeat("GEN 1:0-1000 = GEN 1:0-1000\n", MaxPairs/1001+1), "the mappings expand to more than"},
	} {
		_, _, err := ParseVRS("t.vrs", "t", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseVRS(%.40q) = %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestStandardData checks that standard_data.go is what the generator
// makes of the shared files today (make versification regenerates it).
func TestStandardData(t *testing.T) {
	for _, name := range Names {
		s := parseShared(t, name)
		if got := Encode(s); !bytes.Equal(got, []byte(standardData[name])) {
			t.Errorf("%s: standard_data.go is not the compiled %s.vrs; run make versification", name, name)
		}
		if !equal(s, std(t, name)) {
			t.Errorf("%s: the decoded standard scheme differs from the parsed file", name)
		}
		if got := Identify(s); got != name {
			t.Errorf("Identify(%s.vrs) = %q", name, got)
		}
	}
	if len(standardData) != len(Names) {
		t.Errorf("standard_data.go holds %d schemes, want %d", len(standardData), len(Names))
	}
}

func TestIdentify(t *testing.T) {
	p := filepath.Join(repotest.Shared(t, "bibles", "versification"), "eng.vrs")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// A bundle's copy of eng.vrs with its comments gone is still eng.
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "# ") {
			lines = append(lines, l)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{strings.Join(lines, "\n"), Eng},
		{string(data) + "\nJHN 3:16 = JHN 3:17\n", ""},
		{strings.Replace(string(data), "3JN 1:15", "3JN 1:14", 1), ""},
	} {
		s, _, err := ParseVRS("custom.vrs", Custom, []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := Identify(s); got != tc.want {
			t.Errorf("Identify = %q, want %q", got, tc.want)
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	for _, name := range Names {
		s := std(t, name)
		d, err := Decode(Encode(s))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Name != name || !equal(s, d) || !bytes.Equal(Encode(d), Encode(s)) {
			t.Errorf("%s: Decode(Encode) differs", name)
		}
	}
	for _, bad := range []string{"", "VRS", "VRS2", "VRS1\x03eng", "VRS1\x00\x01GEN\x01", "VRS1\x00\x00\x00\x00x",
		"VRS1\x00\x01gen\x01\x05\x00\x00", "VRS1\x00\xff\xff\xff\xff\x0f"} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%q) succeeded", bad)
		}
	}
}

func FuzzParseVRS(f *testing.F) {
	f.Add([]byte("GEN 1:31 2:25\nGEN 1:31 = GEN 2:1\n"))
	f.Add([]byte("PSA 51:19\nPSA 51:0 = PSA 51:1\nPSA 51:0 = PSA 51:2\nPSA 51:1-19 = PSA 51:3-21\n"))
	f.Add([]byte("ESG 1:39\nESG 1:1 = ESG 1:1a\n#! &ACT 19:40-41 = ACT 19:40\n-ESG 1:5\n#! *JOS 9:2,-,a,b\nGEN 1:3 END\n"))
	f.Add([]byte("DAG 3:97\nDAG 3:52-23 = S3Y 1:30-31\nPSA 89:2-6 = PSA 90:1-6\n"))
	if dir, err := repotest.FindShared("bibles", "versification"); err == nil {
		for _, name := range Names {
			if data, err := os.ReadFile(filepath.Join(dir, name+".vrs")); err == nil {
				f.Add(data)
			}
		}
	}
	org, _ := Standard(Org)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := ParseVRS("f.vrs", Custom, data)
		if err != nil {
			return
		}
		d, err := Decode(Encode(s))
		if err != nil || !equal(s, d) {
			t.Fatalf("Decode(Encode(s)) = %v, equal %v", err, err == nil && equal(s, d))
		}
		ms := s.Mappings()
		// A few mappings are enough to exercise Map on what was read;
		// all of a shared file's hundreds would slow the fuzzer tenfold.
		for _, m := range ms[:min(len(ms), 8)] {
			for _, r := range []bible.Ref{rangeRef(m.Local), {Book: m.Local.Book, Chapter: "1"}} {
				_, _ = Map(s, org, r)
				_, _ = Map(org, s, r)
			}
		}
	})
}

func FuzzDecode(f *testing.F) {
	for _, name := range Names {
		f.Add([]byte(standardData[name]))
	}
	f.Add([]byte("VRS1\x00\x01GEN\x01\x05\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		if err != nil {
			return
		}
		if !bytes.Equal(Encode(s), data) {
			// Decode accepts only what Encode writes.
			if d, err := Decode(Encode(s)); err != nil || !equal(s, d) {
				t.Fatalf("re-encoding differs: %v", err)
			}
		}
	})
}
