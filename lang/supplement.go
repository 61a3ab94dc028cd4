package lang

import (
	"slices"
	"strings"

	"golang.org/x/text/language"
)

// supplement lists languages that Bibles are published in and CLDR does
// not name: ancient and liturgical languages (the unfoldingWord Hebrew
// Bible is hbo). Each has its ISO 639-3 code and reference name, and the
// ISO 15924 script its texts are written in, used where x/text's likely
// subtags know none. CLDR already has grc, arc, syc, cop, got, gez, cu and
// the like.
var supplement = []struct{ id, name, script string }{
	{"hbo", "Ancient Hebrew", "Hebr"},
	{"jpa", "Jewish Palestinian Aramaic", "Hebr"},
	{"oar", "Old Aramaic", "Armi"},
	{"smp", "Samaritan Hebrew", "Samr"},
	{"tmr", "Jewish Babylonian Aramaic", "Hebr"},
	{"xcl", "Classical Armenian", "Armn"},
}

// scriptOf is the script a supplement language is written in: x/text's
// likely script (Unicode CLDR likely subtags) when it knows one, else the
// table's.
func scriptOf(id, table string) string {
	if s, conf := language.Make(id).Script(); conf != language.No {
		return s.String()
	}
	return table
}

// addSupplement adds the supplement languages CLDR lacks, their direction
// from the Unicode script metadata of their script (rtl). It runs before
// names are read, and names them in English after.
func (c *catalogue) addSupplement(rtl map[string]bool) (names func()) {
	added := map[string]string{} // id → English name
	for _, s := range supplement {
		if _, ok := c.byID[s.id]; ok {
			continue // a newer CLDR has it
		}
		script := scriptOf(s.id, s.script)
		dir := "ltr"
		if rtl[script] {
			dir = "rtl"
		}
		c.langs = append(c.langs, Language{ID: s.id, Language: s.id, Scripts: []string{script}, TextDirection: dir})
		c.defaults[s.id] = script
		added[s.id] = s.name
	}
	slices.SortFunc(c.langs, func(a, b Language) int { return strings.Compare(a.ID, b.ID) })
	for i := range c.langs {
		c.byID[c.langs[i].ID] = i
	}
	return func() {
		en := c.localeIndex["en"]
		for id, name := range added {
			l := &c.langs[c.byID[id]]
			l.names = append(l.names, localName{locale: en, name: name})
		}
	}
}
