package usfm

import "strings"

// class says how the parser treats a marker. The classes follow the
// categories of the USFM 3.1 stylesheet (usfm3_1.sty, usfm.ext).
type class uint8

const (
	clUnknown    class = iota
	clID               // \id: the book code
	clHeader           // identification paragraph kept in Book.Headers
	clDrop             // paragraph whose content is dropped (\rem, \restore)
	clPara             // paragraph that may hold verses (\p, \q1, \d, \li1, …)
	clHeading          // paragraph that holds no verses (titles, headings, intro)
	clChapter          // \c
	clChapterPub       // \cp: the rest of the line is Chapter.Pub
	clVerse            // \v
	clAltNumber        // \ca, \va, \vp: inline …\xx* stored on Chapter/Verse
	clChar             // character style
	clNote             // \f, \fe, \ef, \x, \ex
	clNoteChar         // \fr, \ft, \xo, …: ends at the next note character marker
	clNoteNested       // \fv, \fdc, \xot, …: note character that nests
	clSkipChar         // \fig …\fig*, \cat …\cat*: dropped with their content
	clRow              // \tr
	clCell             // \th1, \tc1, \tcr2-3, …
	clMilestone        // \qt-s …\*, \ts\*, \zaln-e\*
	clPeriph           // \periph Title|id="x"
	clBreak            // \esb, \esbe, \pb: end the paragraph, nothing else
)

// markers maps a marker name (no backslash, no '+', no '*') to its class.
var markers = map[string]class{}

func init() {
	set := func(c class, names string) {
		for _, n := range strings.Fields(names) {
			markers[n] = c
		}
	}
	// numbered adds base and base1…baseN; a bare base is the same as base1.
	numbered := func(c class, n int, bases string) {
		for _, b := range strings.Fields(bases) {
			markers[b] = c
			for i := 1; i <= n; i++ {
				markers[b+string(rune('0'+i))] = c
			}
		}
	}
	set(clID, "id")
	set(clHeader, "ide h toc1 toc2 toc3 toca1 toca2 toca3 usfm sts")
	numbered(clHeader, 3, "h")
	set(clDrop, "rem restore")

	// Paragraphs that hold Scripture text (usfm.ext "versepara", "list",
	// "periphpara" and the like).
	set(clPara, "p m po pr cls pmo pm pmc pmr pc nb b qr qc qd d ph phi ps psi lf lh pub toc pref intro conc glo idx maps cov spine k1 k2")
	numbered(clPara, 4, "pi mi q qm ph li lim p")

	// Paragraphs that never hold verses: titles, headings, introductions.
	set(clHeading, "qa lit cl cd mr r sr sp iot ib ie iex ilit im imi imq ipc ipi ipq ipr ip mse")
	numbered(clHeading, 4, "mt mte imt imte ms s sd is iq io ili")
	set(clHeading, "ms2e ms3e s1e s2e s3e s4e")

	set(clChapter, "c")
	set(clChapterPub, "cp")
	set(clVerse, "v")
	set(clAltNumber, "ca va vp")

	set(clChar, `add addpn bd bdit bk dc efm em it jmp k nd ndx no ord pl pn png pro
		qac qs qt rb rq sc sig sls sup ta tl w wa wg wh wj wl ior iqt litl lik
		liv liv1 liv2 liv3 liv4 liv5 xtSee xtSeeAlso wr ref`)
	set(clNote, "f fe ef x ex")
	set(clNoteChar, "fr ft fk fq fqa fl fw fp fs xo xk xq xt xta")
	set(clNoteNested, "fv fdc fm xop xot xnt xdc")
	set(clSkipChar, "fig cat")
	set(clRow, "tr")
	set(clMilestone, "ts vid")
	set(clPeriph, "periph")
	set(clBreak, "esb esbe pb")
}

// defaultAttr is the attribute a lone attribute value belongs to
// (USFM 3 "default attribute"): \w gracious|grace\w* means lemma="grace".
var defaultAttr = map[string]string{
	"w":   "lemma",
	"rb":  "gloss",
	"xt":  "href",
	"jmp": "href",
	"fig": "src",
	"ref": "loc",
}

// classify returns the class of a marker name.
func classify(name string) class {
	// The markers of word-level markup are the most frequent by far.
	switch name {
	case "w", "wj", "add", "nd":
		return clChar
	case "v":
		return clVerse
	}
	if c, ok := markers[name]; ok {
		return c
	}
	// A numbered paragraph beyond the usual levels (\s5 in translationStudio
	// files, \q5) belongs to the family of its base marker.
	if base := strings.TrimRight(name, "0123456789"); base != name && base != "" {
		if c, ok := markers[base+"1"]; ok && (c == clPara || c == clHeading) {
			return c
		}
	}
	if isCell(name) {
		return clCell
	}
	if strings.HasSuffix(name, "-s") || strings.HasSuffix(name, "-e") {
		return clMilestone
	}
	return clUnknown
}

// isCell reports whether name is a table cell marker: th, thr, thc, tc, tcr
// or tcc followed by a column number, or a column span such as "tc1-2".
func isCell(name string) bool {
	if !strings.HasPrefix(name, "t") {
		return false
	}
	rest := name[1:]
	switch {
	case strings.HasPrefix(rest, "hr"), strings.HasPrefix(rest, "hc"), strings.HasPrefix(rest, "cr"), strings.HasPrefix(rest, "cc"):
		rest = rest[2:]
	case strings.HasPrefix(rest, "h"), strings.HasPrefix(rest, "c"):
		rest = rest[1:]
	default:
		return false
	}
	a, b, span := strings.Cut(rest, "-")
	return isDigits(a) && (!span || isDigits(b))
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// HoldsVerses reports whether a paragraph style may hold verses (\p, \q1,
// \d, \li1, …); titles, headings and introduction paragraphs may not. A
// verse met in one starts an implicit \p, in USFM and in USX alike.
func HoldsVerses(style string) bool { return classify(style) == clPara }

// HeaderStyle reports whether a paragraph style is identification (\h,
// \toc1, \ide, …, kept in Book.Headers) and whether its content is dropped
// (\rem, \restore).
func HeaderStyle(style string) (header, drop bool) {
	switch classify(style) {
	case clHeader:
		return true, false
	case clDrop:
		return true, true
	}
	return false, false
}

// ValidBookCode reports whether code is three upper-case ASCII letters or
// digits.
func ValidBookCode(code string) bool { return validCode(code) }
