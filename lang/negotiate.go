package lang

import (
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/language"
)

// Limits on what an Accept-Language header may cost. Browsers send a
// handful of ranges; the rest of an abusive header is ignored.
const (
	maxHeaderLen = 4096
	maxRanges    = 32
)

// Preferences is a parsed Accept-Language priority list, resolved to the
// CLDR locales that have display names, most preferred first.
// The zero value prefers nothing, which means English.
type Preferences struct {
	locales []int // indexes into the catalogue's locales, no repeats
}

// ParsePreferences parses an Accept-Language header (RFC 9110 §12.5.4)
// leniently: a malformed or unknown range, or one with a malformed weight,
// is skipped rather than failing the request; "*" and ranges with q=0
// select nothing. Ranges are ordered by weight, ties in header order, and
// each is resolved to the closest CLDR locale with display names
// (zh-TW → zh-Hant-TW, fr-XX → fr).
func ParsePreferences(acceptLanguage string) Preferences {
	if len(acceptLanguage) > maxHeaderLen {
		acceptLanguage = acceptLanguage[:maxHeaderLen]
	}
	type weighted struct {
		tag language.Tag
		q   float64
	}
	var ranges []weighted
	for n, item := range strings.Split(acceptLanguage, ",") {
		if n >= maxRanges {
			break
		}
		rng, params, _ := strings.Cut(item, ";")
		rng = strings.TrimSpace(rng)
		q, ok := weight(params)
		if !ok || q == 0 || rng == "" || rng == "*" {
			// RFC 9110 §12.4.2: q=0 means "not acceptable". The wildcard
			// adds nothing to the English fallback.
			continue
		}
		t, err := language.Parse(rng)
		if err != nil {
			continue
		}
		if b, conf := t.Base(); conf != language.Exact || b.String() == "und" {
			continue
		}
		ranges = append(ranges, weighted{t, q})
	}
	slices.SortStableFunc(ranges, func(a, b weighted) int {
		switch {
		case a.q > b.q:
			return -1
		case a.q < b.q:
			return 1
		}
		return 0
	})
	c := data()
	var p Preferences
	for _, r := range ranges {
		_, i, conf := c.matcher.Match(r.tag)
		if conf < language.High {
			// Low is x/text's "related but probably not understood" (a
			// different language altogether); a name in it helps no one.
			continue
		}
		if loc := c.matched[i]; !slices.Contains(p.locales, loc) {
			p.locales = append(p.locales, loc)
		}
	}
	return p
}

// weight reads the q parameter of one Accept-Language item (RFC 9110
// §12.4.2), defaulting to 1. Other parameters are ignored; a malformed or
// out-of-range q reports false.
func weight(params string) (float64, bool) {
	q := 1.0
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f < 0 || f > 1 || f != f {
			return 0, false
		}
		q = f
	}
	return q, true
}

// Locale is the negotiated locale: the most preferred one with display
// names, else English. It is what Content-Language echoes.
func (p Preferences) Locale() string {
	c := data()
	if len(p.locales) == 0 {
		return "en"
	}
	return c.locales[p.locales[0]]
}

// Locales are the preferred CLDR locales, most preferred first ("fr-CH",
// "fr", "de"); empty when nothing usable was asked for. Callers that match
// the preferences against their own set of languages (an organization's
// names) walk this list.
func (p Preferences) Locales() []string {
	c := data()
	out := make([]string, len(p.locales))
	for i, l := range p.locales {
		out[i] = c.locales[l]
	}
	return out
}

// Negotiate picks the CLDR locale to show display names in for an
// Accept-Language header; "en" when the header is absent or names nothing
// usable.
func Negotiate(acceptLanguage string) string {
	return ParsePreferences(acceptLanguage).Locale()
}

// LocalizedName chooses the one name the spec's localized_name field shows:
// the language's name in the first preferred locale that has one, else its
// English name, else its name in the first locale (in id order) that has
// one, else "".
func LocalizedName(l Language, prefs Preferences) string {
	c := data()
	for _, loc := range prefs.locales {
		if n, ok := l.nameAt(c, loc); ok {
			return n
		}
	}
	if n, ok := l.nameAt(c, c.localeIndex["en"]); ok {
		return n
	}
	for i := range c.locales {
		if n, ok := l.nameAt(c, i); ok {
			return n
		}
	}
	return ""
}
