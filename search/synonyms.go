package search

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Synonyms are groups of words a reader takes for one another: the
// divine name as translations render it (LORD, Yahweh, Jehovah), or an
// older word and the one that replaced it (thou, you). A query word also
// matches its group's words, with a lower weight than its own forms
// (synonymWeight). The content team keeps them per language in the
// content directory, synonyms/<language>.txt (docs/search.md).
type Synonyms [][]string

// ParseSynonyms reads a synonyms file: one group per line, its words
// separated by commas; blank lines and lines starting with # are
// ignored. A word is one word of text (letters, digits, an apostrophe),
// folded as the analysis folds it. A line with a bad word, or with fewer
// than two words, is reported as file:line:column and left out; the rest
// is kept.
func ParseSynonyms(file string, data []byte) (Synonyms, []error) {
	var out Synonyms
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		group, col, err := synonymLine(line)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d:%d: %s", file, n, col, err))
			continue
		}
		out = append(out, group)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", file, err))
	}
	return out, errs
}

func synonymLine(line string) ([]string, int, error) {
	var group []string
	col := 1
	for _, part := range strings.Split(line, ",") {
		w := strings.TrimSpace(part)
		at := col + utf8.RuneCountInString(part[:strings.Index(part, w)])
		col += utf8.RuneCountInString(part) + 1
		if w == "" {
			return nil, at, fmt.Errorf("empty word")
		}
		for _, r := range w {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) && r != '\'' && r != '’' {
				return nil, at, fmt.Errorf("%q is not one word", w)
			}
		}
		if f := Fold(w); !slices.Contains(group, f) {
			group = append(group, f)
		}
	}
	if len(group) < 2 {
		return nil, 1, fmt.Errorf("a group needs at least two words")
	}
	return group, 0, nil
}

// deriveSynonyms maps each stem of a group's words to the words of the
// group's other stems that this Bible has.
func (x *Index) deriveSynonyms() {
	x.synAt = map[string][]uint32{}
	for _, g := range x.synonyms {
		stems := make([]string, len(g))
		forms := make([][]uint32, len(g))
		for i, w := range g {
			stems[i] = x.an.Stem(w)
			forms[i] = x.forms(w)
		}
		for i := range g {
			var ws []uint32
			for k := range g {
				if stems[k] != stems[i] {
					ws = append(ws, forms[k]...)
				}
			}
			if len(ws) == 0 {
				continue
			}
			ws = append(ws, x.synAt[stems[i]]...)
			slices.Sort(ws)
			ws = slices.Compact(ws)
			// A word is never its own synonym, whatever the groups say.
			ws = slices.DeleteFunc(ws, func(w uint32) bool { return slices.Contains(forms[i], w) })
			if len(ws) > 0 {
				x.synAt[stems[i]] = ws
			}
		}
	}
}

// synonymsOf returns the words of a folded word's synonyms.
func (x *Index) synonymsOf(word string) []uint32 {
	if len(x.synAt) == 0 {
		return nil
	}
	return x.synAt[x.an.Stem(word)]
}
