package usfm

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// dump writes nodes in a compact form for tests:
// p[v1 "text" w{lemma=x}["word"]] c1 table[row[tc1["x"]]].
func dump(nodes []*Node) string {
	var b strings.Builder
	for i, n := range nodes {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch n.Kind {
		case Text:
			fmt.Fprintf(&b, "%q", n.Text)
		case Verse:
			b.WriteString("v" + n.Number)
		case Chapter:
			b.WriteString("c" + n.Number)
		case Table:
			b.WriteString("table")
		case Row:
			b.WriteString("row")
		case Note:
			b.WriteString(n.Marker + "(" + n.Caller + ")")
		default:
			b.WriteString(n.Marker)
		}
		if n.Pub != "" {
			b.WriteString("/pub=" + n.Pub)
		}
		if n.Alt != "" {
			b.WriteString("/alt=" + n.Alt)
		}
		if len(n.Attrs) > 0 {
			keys := make([]string, 0, len(n.Attrs))
			for k := range n.Attrs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for i, k := range keys {
				keys[i] = k + "=" + n.Attrs[k]
			}
			b.WriteString("{" + strings.Join(keys, " ") + "}")
		}
		if len(n.Children) > 0 {
			b.WriteString("[" + dump(n.Children) + "]")
		}
	}
	return b.String()
}

func mustParse(t *testing.T, src string) *Book {
	t.Helper()
	b, err := Parse("t.usfm", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return b
}

func TestParseTree(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"verses", "\\id GEN\n\\c 1\n\\p\n\\v 1 In the beginning\n\\v 2 The earth",
			`c1 p[v1 "In the beginning " v2 "The earth"]`},
		{"whitespace collapses", "\\id GEN\n\\c 1\n\\p   \n\\v 1   a  \n  b\t c   \n\\q1    d  ",
			`c1 p[v1 "a b c"] q1["d"]`},
		{"no-break space and optional break", "\\id GEN\n\\c 1\n\\p \\v 1 a~b long//word",
			`c1 p[v1 "a\u00a0b longword"]`},
		{"verse range and published number", "\\id GEN\n\\c 1\n\\p \\v 1-2 \\vp 1b\\vp* x \\v 3 \\va 4\\va* y",
			`c1 p[v1-2/pub=1b "x " v3/alt=4 "y"]`},
		{"chapter pub alt and label", "\\id GEN\n\\c 2\n\\ca 3\\ca*\n\\cp B\n\\cl Chapter Two\n\\cd about\n\\p \\v 1 x",
			`c2/pub=B/alt=3 cl["Chapter Two"] cd["about"] p[v1 "x"]`},
		{"nested character styles", "\\id MAT\n\\c 1\n\\p \\v 1 \\wj I \\+nd Lord\\+nd* said\\wj* done",
			`c1 p[v1 wj["I " nd["Lord"] " said"] " done"]`},
		{"word attributes", "\\id GEN\n\\c 1\n\\p \\v 1 \\w In|strong=\"H7225\" lemma=\"x y\"\\w* \\w gracious|grace\\w*",
			`c1 p[v1 w{lemma=x y strong=H7225}["In"] " " w{lemma=grace}["gracious"]]`},
		{"attribute list with space before closing", "\\id GEN\n\\c 1\n\\p \\v 1 \\w gracious|lemma=\"grace\" \\w*",
			`c1 p[v1 w{lemma=grace}["gracious"]]`},
		{"unusable attribute list stays text", "\\id GEN\n\\c 1\n\\p \\v 1 \\em caption|no default\\em*",
			`c1 p[v1 em["caption|no default"]]`},
		{"footnote", "\\id MAT\n\\c 1\n\\p \\v 1 Son\\f + \\fr 1.1: \\ft Some have \\fq the Son.\\f* of God.",
			`c1 p[v1 "Son" f(+)[fr["1.1: "] ft["Some have "] fq["the Son."]] " of God."]`},
		{"note character closed explicitly and nested", "\\id MAT\n\\c 1\n\\p \\v 1 a\\f + \\ft see \\fv 2\\fv* and \\+bk Book\\+bk*\\ft* end\\f* b",
			`c1 p[v1 "a" f(+)[ft["see " fv["2"] " and " bk["Book"]] " end"] " b"]`},
		{"cross reference", "\\id MAT\n\\c 2\n\\p \\v 3 \\x - \\xo 2.23: \\xt Mrk 1.24\\x*and made",
			`c2 p[v3 x(-)[xo["2.23: "] xt["Mrk 1.24"]] "and made"]`},
		{"milestones and skipped markers", "\\id GEN\n\\c 1\n\\p \\v 1 \\qt-s |sid=\"q1\" who=\"x\"\\*a\\qt-e\\* b\\ts\\* c\\fig cap|src=\"a.jpg\"\\fig* d \\zaln-s |x-lemma=\"y\"\\*e\\zaln-e\\*",
			`c1 p[v1 "a b c d e"]`},
		{"old milestone without closing", "\\id GEN\n\\c 1\n\\p \\v 1\n\\zaln-s|x-lemma=\"y\"\n\\w a|x-occurrence=\"1\"\\w*\n\\zaln-e\\*, b",
			`c1 p[v1 w{x-occurrence=1}["a"] " , b"]`},
		{"custom z character style", "\\id GEN\n\\c 1\n\\p \\v 1 a \\zx b\\zx* c",
			`c1 p[v1 "a " zx["b"] " c"]`},
		{"table", "\\id NUM\n\\c 7\n\\tr \\th1 Day \\thr2 Tribe\n\\tr \\tc1 \\v 12 1st \\tcr2 Judah\n\\p \\v 13 x",
			`c7 table[row[th1["Day"] thr2["Tribe"]] row[tc1[v12 "1st"] tcr2["Judah"]]] p[v13 "x"]`},
		{"introduction", "\\id MRK\n\\imt1 Mark\n\\is Introduction\n\\ip \\bk Mark\\bk* begins\n\\ili one\n\\iot Outline\n\\io1 A \\ior 1.1\\ior*\n\\ie\n\\c 1\n\\p \\v 1 x",
			`imt1["Mark"] is["Introduction"] ip[bk["Mark"] " begins"] ili["one"] iot["Outline"] io1["A " ior["1.1"]] ie c1 p[v1 "x"]`},
		{"titles and headings", "\\id PSA\n\\mt2 The\n\\mt1 Psalms\n\\c 3\n\\ms1 BOOK 1\n\\mr (Psalms 1-41)\n\\d A Psalm \\v 1 x\n\\s1 Head\n\\r (Mark 1)\n\\q1 \\v 2 y \\qs Selah\\qs*\n\\b\n\\qa Aleph",
			`mt2["The"] mt1["Psalms"] c3 ms1["BOOK 1"] mr["(Psalms 1-41)"] d["A Psalm"] p[v1 "x"] s1["Head"] r["(Mark 1)"] q1[v2 "y " qs["Selah"]] b qa["Aleph"]`},
		{"verse in a heading opens a paragraph", "\\id LUK\n\\c 20\n\\s5\n\\v 17 But Jesus",
			`c20 s5 p[v17 "But Jesus"]`},
		{"verse outside a paragraph", "\\id PRO\n\\c 11\n\\v 1 A false",
			`c11 p[v1 "A false"]`},
		{"sidebar and page break", "\\id GEN\n\\c 1\n\\p \\v 1 a\n\\esb \\cat People\\cat*\n\\ms Abraham\n\\p text\n\\esbe\n\\pb\n\\p \\v 2 b",
			`c1 p[v1 "a"] ms["Abraham"] p["text"] p[v2 "b"]`},
		{"periph", "\\id FRT\n\\periph Title Page|id=\"title\"\n\\mt1 Bible",
			`periph{id=title}["Title Page"] mt1["Bible"]`},
		{"unclosed character style ends with the paragraph", "\\id GEN\n\\c 1\n\\p \\v 1 \\nd Lord\n\\p \\v 2 x",
			`c1 p[v1 nd["Lord"]] p[v2 "x"]`},
		{"stray backslash word kept as text", "\\id JOB\n\\c 39\n\\p \\v 20 \\Canst thou",
			`c39 p[v20 "Canst thou"]`},
		{"lone backslash dropped", "\\id GEN\n\\c 1\n\\p \\v 14\nv 15\n\\\\v 16 stuff \\ and",
			`c1 p[v14 "v 15 " v16 "stuff and"]`},
		{"psalm title alternate verse without a verse", "\\id PSA\n\\c 3\n\\d\n\\va 1\\va*\n\\w a|lemma=\"b\"\\w*\n\\v 1 x",
			`c3 d[va["1"] w{lemma=b}["a"]] p[v1 "x"]`},
		{"alternate chapter where it starts", "\\id GEN\n\\c 31\n\\p \\v 54 a\n\\ca 32\\ca*\n\\p \\v 55 \\va 32:1\\va* b",
			`c31 p[v54 "a " ca["32"]] p[v55/alt=32:1 "b"]`},
		{"alternate verse within a verse", "\\id 1KI\n\\c 22\n\\p \\v 43\n\\va 43\\va* a \\va 44\\va* b",
			`c22 p[v43/alt=43 "a " va["44"] "b"]`},
		{"lists and poetry", "\\id ROM\n\\c 1\n\\lh Here\n\\li1 \\v 1 one\n\\li2 two\n\\lf end\n\\pi1 \\v 2 a\n\\q1 b\n\\qm2 c\n\\pmo d\n\\nb e\n\\pc f\n\\qc g\n\\qr h\n\\qd i",
			`c1 lh["Here"] li1[v1 "one"] li2["two"] lf["end"] pi1[v2 "a"] q1["b"] qm2["c"] pmo["d"] nb["e"] pc["f"] qc["g"] qr["h"] qd["i"]`},
		{"unknown character marker closed", "\\id GEN\n\\c 1\n\\p \\v 1 \\xyz a\\xyz* b",
			`c1 p[v1 xyz["a"] " b"]`},
		{"unknown marker ignored", "\\id GEN\n\\c 1\n\\p \\v 1 a \\xyz b",
			`c1 p[v1 "a b"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustParse(t, tt.src)
			if got := dump(b.Nodes); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseIdentification(t *testing.T) {
	src := "\uFEFF\r\n\\id gen World English Bible  \r\n\\usfm 3.0\r\n\\ide UTF-8 \r\n\\rem a remark\r\nover two lines\r\n\\h Genesis  \r\n\\toc1 The First Book\r\n\\toc2 Genesis\r\n\\toc3 Gen\r\n\\toca1 Bereshit\r\n\\sts 2\r\n\\mt1 Genesis\r\n\\c 1\r\n\\p\r\n\\v 1 In the beginning  \r\n"
	b := mustParse(t, src)
	if b.ID != "GEN" || b.IDText != "World English Bible" {
		t.Errorf("ID, IDText = %q, %q", b.ID, b.IDText)
	}
	want := map[string]string{"usfm": "3.0", "ide": "UTF-8", "h": "Genesis", "toc1": "The First Book",
		"toc2": "Genesis", "toc3": "Gen", "toca1": "Bereshit", "sts": "2"}
	if fmt.Sprint(b.Headers) != fmt.Sprint(want) {
		t.Errorf("Headers = %v, want %v", b.Headers, want)
	}
	if got, w := dump(b.Nodes), `mt1["Genesis"] c1 p[v1 "In the beginning"]`; got != w {
		t.Errorf("got  %s\nwant %s", got, w)
	}
	if len(b.Warnings) != 0 {
		t.Errorf("warnings: %v", b.Warnings)
	}
	// Positions count lines after CRLF and the BOM line.
	v := b.Nodes[2].Children[0]
	if v.Kind != Verse || v.Pos != (Pos{16, 1}) {
		t.Errorf("verse %v at %v, want 16:1", v.Kind, v.Pos)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", "f.usfm:1:1: missing \\id marker"},
		{"no id", "\\c 1\n\\p \\v 1 x", "f.usfm:1:1: missing \\id marker"},
		{"content before id", "\n\\rem x\n\\id GEN\n", "f.usfm:2:1: content before \\id"},
		{"id without code", "\\id\n\\c 1", "f.usfm:1:1: \\id without a book code"},
		{"bad code", "\\id GENESIS\n", "f.usfm:1:5: invalid book code \"GENESIS\" in \\id"},
		{"second id", "\\id GEN\n\\c 1\n\\p \\v 1 x\n\\id EXO\n", "f.usfm:4:1: second \\id marker: one book per file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Parse("f.usfm", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error; tree %s", dump(b.Nodes))
			}
			var d Diag
			if !errors.As(err, &d) {
				t.Fatalf("error %T is not a Diag", err)
			}
			if err.Error() != tt.want {
				t.Errorf("got  %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestParseWarnings(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"unknown marker", "\\id GEN\n\\c 1\n\\p \\v 1 a \\xyz b", []string{"f:3:11: unknown marker \\xyz ignored"}},
		{"unclosed note", "\\id GEN\n\\c 1\n\\p \\v 1 a\\f + \\ft b\n\\v 2 c", []string{"f:4:1: \\f at 3:10 not closed"}},
		{"closing without opening", "\\id GEN\n\\c 1\n\\p \\v 1 a\\nd*", []string{"f:3:10: \\nd* without an open \\nd"}},
		{"malformed attributes", "\\id GEN\n\\c 1\n\\p \\v 1 \\w a|strong=\"H1\" x=y\\w*", []string{"f:3:14: \\w: attribute value not in quotes"}},
		{"verse in heading", "\\id GEN\n\\c 1\n\\s Head\n\\v 1 a\n\\s Two\n\\v 2 b", []string{"f:4:1: verse in \\s; assuming \\p (reported once per file)"}},
		{"duplicate header", "\\id JOS\n\\toc1 A\n\\toc1 B\n", []string{"f:4:1: duplicate \\toc1 ignored"}},
		{"milestone without end", "\\id GEN\n\\c 1\n\\p \\v 1 \\k-s| x-tw=\"a\"\nword", []string{"f:3:9: milestone \\k-s not closed with \\*"}},
		{"unclosed vp", "\\id GEN\n\\c 1\n\\p \\v 20 a \\vp 21 \\wj b\\wj*", []string{"f:3:12: \\vp not closed with \\vp*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Parse("f", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range b.Warnings {
				got = append(got, w.Error())
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestNorm(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a  b", "a b"},
		{"a\r\nb", "a b"},
		{" \n a \t", " a "},
		{"a~b", "a\u00a0b"},
		{"a//b", "ab"},
		{"a // b", "a b"},
		{"a/b", "a/b"},
	}
	for _, tt := range tests {
		if got := norm(tt.in); got != tt.want {
			t.Errorf("norm(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseAttrs(t *testing.T) {
	tests := []struct {
		raw, def string
		want     string
		err      bool
	}{
		{`strong="H1234" lemma="x"`, "lemma", "map[lemma:x strong:H1234]", false},
		{`grace`, "lemma", "map[lemma:grace]", false},
		{` x-morph = "He,Ncmpa"  `, "lemma", "map[x-morph:He,Ncmpa]", false},
		{`lemma="a b" strong="H1`, "lemma", "map[lemma:a b]", true},
		{`lemma=x`, "lemma", "map[]", true},
		{`no default`, "", "map[]", true},
		{``, "lemma", "map[]", true},
	}
	for _, tt := range tests {
		got, err := parseAttrs(tt.raw, tt.def)
		if fmt.Sprint(got) != tt.want || (err != "") != tt.err {
			t.Errorf("parseAttrs(%q) = %v, %q; want %s, error %v", tt.raw, got, err, tt.want, tt.err)
		}
	}
}

// TestSharedAttrs checks that identical attribute lists share a map, and
// different ones do not.
func TestSharedAttrs(t *testing.T) {
	b := mustParse(t, "\\id GEN\n\\c 1\n\\p \\v 1 \\w a|strong=\"H1\"\\w* \\w b|strong=\"H1\"\\w* \\w c|strong=\"H2\"\\w*")
	p := b.Nodes[1].Children
	a, bb, c := p[1].Attrs, p[3].Attrs, p[5].Attrs
	if a["strong"] != "H1" || bb["strong"] != "H1" || c["strong"] != "H2" {
		t.Errorf("attrs %v %v %v", a, bb, c)
	}
}

// TestPositions checks line and column of nodes, also after a warning
// inside a text run (attributes) and after CRLF line ends.
func TestPositions(t *testing.T) {
	b := mustParse(t, "\\id GEN\r\n\\c 1\r\n\\p \\v 1 \\w a|x=y\\w* b\r\n\\q1 c")
	var got []string
	var walk func([]*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			got = append(got, fmt.Sprintf("%v@%d:%d", n.Kind, n.Pos.Line, n.Pos.Col))
			walk(n.Children)
		}
	}
	walk(b.Nodes)
	want := "[chapter@2:1 para@3:1 verse@3:4 char@3:9 text@3:12 text@3:20 para@4:1 text@4:5]"
	if fmt.Sprint(got) != want {
		t.Errorf("got  %v\nwant %s", got, want)
	}
	if len(b.Warnings) != 1 || b.Warnings[0].Pos != (Pos{3, 14}) {
		t.Errorf("warnings %v, want one at 3:14", b.Warnings)
	}
}

func TestWarningsCapped(t *testing.T) {
	b := mustParse(t, "\\id GEN\n\\c 1\n\\p \\v 1 "+strings.Repeat("\\xyz ", maxWarnings+5))
	if len(b.Warnings) != maxWarnings+1 {
		t.Fatalf("%d warnings, want %d", len(b.Warnings), maxWarnings+1)
	}
	if got, want := b.Warnings[maxWarnings].Msg, "5 more warnings not reported"; got != want {
		t.Errorf("last warning %q, want %q", got, want)
	}
}
