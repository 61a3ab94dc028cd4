package lang

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/language"
)

// The generated catalogue (see ./internal/gen for the format). The files
// are committed so that building the service never needs CLDR or npm.
//
//go:embed data/languages.json.gz data/names.tsv.gz
var dataFS embed.FS

// catalogue is the decoded data, built once on first use.
type catalogue struct {
	version       string
	langs         []Language // sorted by ID
	byID          map[string]int
	aliases       map[string]string // CLDR languageAlias: "iw" → "he", "sh" → "sr-Latn"
	defaults      map[string]string // language → default script
	regionScripts map[string]string // "zh-TW" → "Hant"
	scriptNames   map[string]string
	locales       []string
	localeIndex   map[string]int
	parent        []int // locale index → parent locale index, -1 for root
	hasNames      []bool
	territories   map[string][]usage
	matcher       language.Matcher
	matched       []int // matcher index → locale index
}

type usage struct {
	ID       string  `json:"id"`
	Speakers int64   `json:"speakers"`
	Percent  float64 `json:"percent"`
	Official bool    `json:"official"`
}

// data panics if the embedded catalogue is unreadable: that is a broken
// build, caught by the package tests, not a condition to handle at run time.
var data = sync.OnceValue(func() *catalogue {
	c, err := decode(dataFS)
	if err != nil {
		panic("lang: embedded catalogue: " + err.Error())
	}
	return c
})

func decode(fsys embed.FS) (*catalogue, error) {
	js, err := gunzip(fsys, "data/languages.json.gz")
	if err != nil {
		return nil, err
	}
	var raw struct {
		CLDRVersion string      `json:"cldr_version"`
		Locales     [][2]string `json:"locales"`
		Scripts     map[string]struct {
			Name string `json:"name"`
			RTL  bool   `json:"rtl"`
		} `json:"scripts"`
		DefaultScripts map[string]string `json:"default_scripts"`
		RegionScripts  map[string]string `json:"region_scripts"`
		Aliases        map[string]string `json:"aliases"`
		Languages      []struct {
			ID        string   `json:"id"`
			Script    string   `json:"script"`
			Scripts   []string `json:"scripts"`
			Variants  []string `json:"variants"`
			Countries []string `json:"countries"`
			RTL       bool     `json:"rtl"`
			Writing   int64    `json:"writing"`
			Speaking  int64    `json:"speaking"`
		} `json:"languages"`
		Territories map[string][]usage `json:"territories"`
	}
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, fmt.Errorf("languages.json: %w", err)
	}
	c := &catalogue{
		version:       raw.CLDRVersion,
		byID:          make(map[string]int, len(raw.Languages)),
		aliases:       raw.Aliases,
		defaults:      raw.DefaultScripts,
		regionScripts: raw.RegionScripts,
		scriptNames:   make(map[string]string, len(raw.Scripts)),
		localeIndex:   make(map[string]int, len(raw.Locales)),
		territories:   raw.Territories,
	}
	for code, s := range raw.Scripts {
		c.scriptNames[code] = s.Name
	}
	for i, l := range raw.Locales {
		c.locales = append(c.locales, l[0])
		c.localeIndex[l[0]] = i
	}
	for _, l := range raw.Locales {
		p, ok := c.localeIndex[l[1]]
		if !ok {
			p = -1
		}
		c.parent = append(c.parent, p)
	}
	for i, r := range raw.Languages {
		dir := "ltr"
		if r.RTL {
			dir = "rtl"
		}
		c.langs = append(c.langs, Language{
			ID:                 r.ID,
			Language:           strings.SplitN(r.ID, "-", 2)[0],
			Script:             r.Script,
			ScriptName:         c.scriptNames[r.Script],
			Scripts:            r.Scripts,
			Variants:           r.Variants,
			Countries:          r.Countries,
			TextDirection:      dir,
			WritingPopulation:  r.Writing,
			SpeakingPopulation: r.Speaking,
		})
		c.byID[r.ID] = i
		if i > 0 && raw.Languages[i-1].ID >= r.ID {
			return nil, fmt.Errorf("languages.json: %s out of order", r.ID)
		}
	}
	rtl := make(map[string]bool, len(raw.Scripts))
	for code, s := range raw.Scripts {
		rtl[code] = s.RTL
	}
	nameSupplement := c.addSupplement(rtl)
	if err := c.readNames(fsys); err != nil {
		return nil, err
	}
	nameSupplement()

	// Aliases are whatever Canonical maps to an entry, so the listed
	// aliases and the redirects can never disagree.
	for _, a := range slices.Sorted(maps.Keys(c.aliases)) {
		if id, err := c.canonical(a); err == nil {
			l := &c.langs[c.byID[id]]
			l.Aliases = append(l.Aliases, a)
		}
	}

	// Negotiation only offers locales that name at least some languages.
	var tags []language.Tag
	for i, loc := range c.locales {
		if !c.hasNames[i] {
			continue
		}
		t, err := language.Parse(loc)
		if err != nil {
			return nil, fmt.Errorf("locale %s: %w", loc, err)
		}
		if loc == "en" {
			// First, so that it is also the matcher's fallback.
			tags = slices.Insert(tags, 0, t)
			c.matched = slices.Insert(c.matched, 0, i)
			continue
		}
		tags = append(tags, t)
		c.matched = append(c.matched, i)
	}
	c.matcher = language.NewMatcher(tags)
	return c, nil
}

// readNames loads "locale TAB id TAB name" lines. A locale lists only the
// names it does not inherit from its parent; an empty name stops the
// inheritance (the locale has no name where its parent has one).
func (c *catalogue) readNames(fsys embed.FS) error {
	b, err := gunzip(fsys, "data/names.tsv.gz")
	if err != nil {
		return err
	}
	c.hasNames = make([]bool, len(c.locales))
	s := string(b)
	for n := 1; s != ""; n++ {
		var line string
		line, s, _ = strings.Cut(s, "\n")
		loc, rest, ok1 := strings.Cut(line, "\t")
		id, name, ok2 := strings.Cut(rest, "\t")
		li, ok3 := c.localeIndex[loc]
		di, ok4 := c.byID[id]
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return fmt.Errorf("names.tsv:%d: bad line %q", n, line)
		}
		l := &c.langs[di]
		if k := len(l.names); k > 0 && l.names[k-1].locale >= li {
			return fmt.Errorf("names.tsv:%d: locale %s out of order", n, loc)
		}
		l.names = append(l.names, localName{locale: li, name: name})
		if name != "" {
			c.hasNames[li] = true
		}
	}
	// A locale with no entries of its own still names languages when an
	// ancestor does. Parents sort before their children only sometimes
	// (pt-PT is the parent of pt-AO), so follow the chain.
	for i := range c.locales {
		for p := i; p >= 0 && !c.hasNames[i]; p = c.parent[p] {
			c.hasNames[i] = c.hasNames[p]
		}
	}
	return nil
}

func gunzip(fsys embed.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, zr); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return buf.Bytes(), nil
}
