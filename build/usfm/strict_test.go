package usfm

import (
	"strings"
	"testing"
)

// TestSeverities checks which defects are damage (an import refuses the
// book), which are known habits repaired and counted, and where each is
// reported.
func TestSeverities(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		sev       Severity
		class     string // for Repaired
		at        string // line:col
		msg       string // part of the message
		tree      string // the tree after the repair, when checked
	}{
		{"chapter number not a number", "\\id JHN\n\\c three\n\\p \\v 1 a", Damage, "", "2:1", `chapter number "three" is not a number`, ""},
		{"chapter number beyond the cap", "\\id JHN\n\\c 99999999999999999999\n\\p \\v 1 a", Damage, "", "2:1", "beyond the cap of 1000", ""},
		{"chapter number just beyond the cap", "\\id JHN\n\\c 1001\n\\p \\v 1 a", Damage, "", "2:1", "beyond the cap", ""},
		{"chapter without a number", "\\id GEN\n\\c\n\\p", Damage, "", "2:1", `\c without a chapter number`, ""},
		{"verse without a number", "\\id GEN\n\\c 1\n\\p  \\v \\v 2", Damage, "", "3:5", `\v without a verse number`, "c1 p[v2]"},
		{"verse number not a number", "\\id JHN\n\\c 1\n\\p \\v x a", Damage, "", "3:4", `verse number "x" is not a number`, ""},
		{"verse lost into an unknown marker", "\\id JHN\n\\c 1\n\\p \\v 4 a\n\\vv 5 b", Damage, "", "4:1", `unknown marker \vv before the number "5"`, ""},
		{"verse number glued to a word", "\\id 1SA\n\\c 13\n\\p \\v 7And \\add some\\add* went", Repaired, "verse number glued to its text", "3:4", `"7And" read as verse 7 followed by "And"`,
			`c13 p[v7 "And " add["some"] " went"]`},
		{"verse number glued to an ellipsis", "\\id EPH\n\\c 3\n\\p \\v 14... for this reason", Repaired, "verse number glued to its text", "3:4", `read as verse 14`,
			`c3 p[v14 "... for this reason"]`},
		{"verse range glued to a word", "\\id EPH\n\\c 3\n\\p \\v 8-9Mashed", Repaired, "verse number glued to its text", "3:4", `read as verse 8-9`,
			`c3 p[v8-9 "Mashed"]`},
		{"psalm title before verse 1", "\\id PSA\n\\c 3\n\\d A Psalme of Dauid.\n\\v 1 LORD, how", Repaired, "psalm title before its first verse", "4:1", `\d title ended`,
			`c3 d["A Psalme of Dauid."] p[v1 "LORD, how"]`},
		{"bare \\* ends the note of its section", "\\id EST\n\\c 2\n\\p \\v 21 chamberlens, \\f + \\fr 2:21 \\ft Or, Bigthana. \\xt chap. 6.2.\\*Bigthan and Teresh", Repaired, BareClose, "3:69", `\* read as the end of the \f at 3:23`,
			`c2 p[v21 "chamberlens, " f(+)[fr["2:21 "] ft["Or, Bigthana. "] xt["chap. 6.2."]] "Bigthan and Teresh"]`},
		{"bare \\* ends the innermost style", "\\id JHN\n\\c 1\n\\p \\v 1 \\wj a \\+nd b\\* c\\wj* d", Repaired, BareClose, "3:21", `\* read as the end of the \nd at 3:15`,
			`c1 p[v1 wj["a " nd["b"] " c"] " d"]`},
		{"bare \\* ends a nested style in a note", "\\id JHN\n\\c 1\n\\p \\v 1 a\\f + \\ft b \\+bd c\\* d\\f* e", Repaired, BareClose, "3:27", `\* read as the end of the \bd`,
			`c1 p[v1 "a" f(+)[ft["b " bd["c"] " d"]] " e"]`},
		{"bare \\* with nothing open", "\\id JHN\n\\c 1\n\\p \\v 1 a\\* b", Warning, "", "3:10", `\* without a milestone`,
			`c1 p[v1 "a b"]`},
		{"additions to Esther", "\\id ADE\n\\c 10\n\\p \\v 4 Then", Repaired, "non-standard book code", "1:5", "book code ADE read as ESG", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse("f.usfm", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var found *Diag
			for i, w := range b.Warnings {
				if strings.Contains(w.Msg, tc.msg) {
					found = &b.Warnings[i]
				}
			}
			if found == nil {
				t.Fatalf("no diagnostic containing %q in %v", tc.msg, b.Warnings)
			}
			if found.Sev != tc.sev || found.Class != tc.class {
				t.Errorf("%v: severity %v class %q; want %v %q", found, found.Sev, found.Class, tc.sev, tc.class)
			}
			if !strings.HasPrefix(found.Error(), "f.usfm:"+tc.at+": ") {
				t.Errorf("%v: want position %s", found, tc.at)
			}
			if tc.tree != "" {
				if got := dump(b.Nodes); got != tc.tree {
					t.Errorf("tree\n got %s\nwant %s", got, tc.tree)
				}
			}
		})
	}
	t.Run("a verse letter part is no glued text", func(t *testing.T) {
		for _, num := range []string{"3a", "15-16", "3b-4a", "12", "1,2", "3\u20134"} {
			if n := VerseNumberLen(num); n != len(num) {
				t.Errorf("VerseNumberLen(%q) = %d", num, n)
			}
		}
	})
}
