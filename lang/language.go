package lang

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// Language is one catalogue entry: the spec's Language resource less the
// fields that depend on the request (localized_name) or on published Bibles
// (default_bible_id); see Resource. Its slices are shared: do not modify
// them.
type Language struct {
	ID         string // canonical catalogue id: "en", "sr-Latn", "zh-Hant-TW"
	Language   string // ISO 639 language subtag
	Script     string // ISO 15924 code when the id has one, else ""
	ScriptName string // English name of Script, else ""

	// Aliases are the legacy, deprecated and ISO 639-2/3 codes that
	// Canonical maps to ID (iw and heb for he), sorted.
	Aliases []string
	// Scripts are the writing systems CLDR records for the language, its
	// default first; a script or region variant lists only its own.
	Scripts []string
	// Variants are BCP 47 variant subtags of CLDR locales of the language
	// (ca: valencia).
	Variants []string
	// Countries are the ISO 3166 countries where CLDR records speakers,
	// most speakers first.
	Countries []string

	TextDirection string // "ltr" or "rtl", from the direction of the (default) script

	// Populations are CLDR territoryInfo estimates summed over countries:
	// population × the language's share, and for writing × the share that
	// writes it (see docs/languages.md).
	WritingPopulation  int64
	SpeakingPopulation int64

	names []localName // sorted by locale index
}

type localName struct {
	locale int
	name   string // "" marks a locale that lacks a name its parent has
}

// Lookup returns the entry for a canonical catalogue id. Ids are matched
// exactly: pass the result of Canonical.
func Lookup(id string) (Language, bool) {
	c := data()
	i, ok := c.byID[id]
	if !ok {
		return Language{}, false
	}
	return c.langs[i], true
}

// All returns every catalogue entry ordered by ID in byte order, which is
// stable across releases and keeps a language next to its variants
// ("es", "es-419", "es-ES"), so page tokens can be ids.
func All() []Language {
	return slices.Clone(data().langs)
}

// CLDRVersion is the Unicode CLDR release the catalogue was generated from.
func CLDRVersion() string { return data().version }

// prominentShare is the share of a country's population from which a
// language counts as prominent there even when it is not official.
const prominentShare = 5.0

// Prominent returns the ids of the languages that are official (de jure or
// de facto) in a country or spoken by at least 5 % of its people, most
// speakers first; nil for a country CLDR has no data for. country is an
// ISO 3166 alpha-2 code in either case. Ids are at the language or
// language+script level (TW gives zh-Hant, not zh-Hant-TW), the level CLDR
// records usage at.
func Prominent(country string) []string {
	var ids []string
	for _, u := range data().territories[strings.ToUpper(country)] {
		if u.Official || u.Percent >= prominentShare {
			ids = append(ids, u.ID)
		}
	}
	return ids
}

// DisplayName returns the language's name in a CLDR locale ("fr-CH",
// "zh-Hant"), inheriting along CLDR's parent locales as CLDR does. The
// locale must be spelled as CLDR spells it, as Negotiate returns it.
func (l Language) DisplayName(locale string) (string, bool) {
	c := data()
	i, ok := c.localeIndex[locale]
	if !ok {
		return "", false
	}
	return l.nameAt(c, i)
}

func (l Language) nameAt(c *catalogue, loc int) (string, bool) {
	for ; loc >= 0; loc = c.parent[loc] {
		j := sort.Search(len(l.names), func(j int) bool { return l.names[j].locale >= loc })
		if j < len(l.names) && l.names[j].locale == loc {
			n := l.names[j].name
			return n, n != ""
		}
	}
	return "", false
}

// DisplayNames returns the language's name in every CLDR locale that has
// one, inherited names included. It allocates a map of several hundred
// entries: callers that list many languages should honour fields[].
func (l Language) DisplayNames() map[string]string {
	c := data()
	m := make(map[string]string, len(c.locales))
	for i, loc := range c.locales {
		if n, ok := l.nameAt(c, i); ok {
			m[loc] = n
		}
	}
	return m
}

// Resource is the spec's Language resource, ready to encode as JSON; nil
// pointers encode the spec's nulls.
type Resource struct {
	ID                 string            `json:"id"`
	Language           string            `json:"language"`
	Script             *string           `json:"script"`
	ScriptName         *string           `json:"script_name"`
	Aliases            []string          `json:"aliases"`
	DisplayNames       map[string]string `json:"display_names"`
	LocalizedName      *string           `json:"localized_name"`
	Scripts            []string          `json:"scripts"`
	Variants           []string          `json:"variants"`
	Countries          []string          `json:"countries"`
	TextDirection      string            `json:"text_direction"`
	WritingPopulation  int32             `json:"writing_population"`
	SpeakingPopulation int32             `json:"speaking_population"`
	DefaultBibleID     *int32            `json:"default_bible_id"`
}

// Resource builds the API representation. defaultBibleID comes from the
// published Bibles; 0 (no Bible in the language) encodes as null.
// Populations saturate at the int32 the spec gives them.
func (l Language) Resource(prefs Preferences, defaultBibleID int32) Resource {
	r := Resource{
		ID:                 l.ID,
		Language:           l.Language,
		Aliases:            nonNil(l.Aliases),
		DisplayNames:       l.DisplayNames(),
		Scripts:            nonNil(l.Scripts),
		Variants:           nonNil(l.Variants),
		Countries:          nonNil(l.Countries),
		TextDirection:      l.TextDirection,
		WritingPopulation:  saturate(l.WritingPopulation),
		SpeakingPopulation: saturate(l.SpeakingPopulation),
	}
	if l.Script != "" {
		r.Script, r.ScriptName = &l.Script, &l.ScriptName
	}
	if n := LocalizedName(l, prefs); n != "" {
		r.LocalizedName = &n
	}
	if defaultBibleID != 0 {
		r.DefaultBibleID = &defaultBibleID
	}
	return r
}

// nonNil makes empty lists encode as [] rather than null: the spec types
// them as arrays, not nullable.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func saturate(n int64) int32 {
	return int32(min(max(n, 0), math.MaxInt32))
}
