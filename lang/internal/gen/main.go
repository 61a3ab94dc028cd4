// Command gen builds the language catalogue embedded by package lang from the
// CLDR JSON npm packages cldr-core and cldr-localenames-full.
//
// The catalogue is generated rather than hand-written so that every figure in
// it can be traced to one pinned CLDR release and regenerated when CLDR moves
// on (see docs/languages.md and `make languages`). Run it as
//
//	go run ./lang/internal/gen -core DIR -localenames DIR -out lang/data
//
// where each DIR is the "package" folder of an unpacked `npm pack` tarball.
//
// It writes two gzip files:
//
//   - languages.json.gz: the language records, locales and their parents,
//     script names and directions, default scripts, CLDR language aliases and
//     per-country language usage;
//   - names.tsv.gz: display names, one "locale TAB id TAB name" line each,
//     keeping only the names a locale does not inherit unchanged from its
//     parent locale (an empty name means "none here, stop inheriting").
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// regionVariants are the only catalogue ids that keep a region subtag (the
// API's "Language id rules"). Each names the CLDR territoryInfo entry whose
// figures it takes.
var regionVariants = []struct{ id, base, script, region string }{
	{"es-419", "es", "", "419"},
	{"es-ES", "es", "", "ES"},
	{"pt-BR", "pt", "", "BR"},
	{"pt-PT", "pt", "", "PT"},
	{"zh-Hant-HK", "zh", "Hant", "HK"},
	{"zh-Hant-TW", "zh", "Hant", "TW"},
}

// notLanguages are codes CLDR names in English that do not denote a
// language a Bible can be written in (BCP 47 special-purpose subtags).
var notLanguages = map[string]bool{"und": true, "mul": true, "zxx": true, "mis": true, "root": true}

func main() {
	core := flag.String("core", "", "unpacked cldr-core package directory")
	names := flag.String("localenames", "", "unpacked cldr-localenames-full package directory")
	out := flag.String("out", "lang/data", "output directory")
	flag.Parse()
	if *core == "" || *names == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*core, *names, *out); err != nil {
		log.Fatal(err)
	}
}

// Output schema; package lang decodes the same shapes.

type catalogue struct {
	CLDRVersion    string             `json:"cldr_version"`
	Locales        [][2]string        `json:"locales"` // [id, parent id or ""], sorted by id
	Scripts        map[string]script  `json:"scripts"`
	DefaultScripts map[string]string  `json:"default_scripts"`
	RegionScripts  map[string]string  `json:"region_scripts"`
	Aliases        map[string]string  `json:"aliases"`
	Languages      []record           `json:"languages"`
	Territories    map[string][]usage `json:"territories"`
}

type script struct {
	Name string `json:"name"`
	RTL  bool   `json:"rtl,omitempty"`
}

type record struct {
	ID        string   `json:"id"`
	Script    string   `json:"script,omitempty"`
	Scripts   []string `json:"scripts,omitempty"`
	Variants  []string `json:"variants,omitempty"`
	Countries []string `json:"countries,omitempty"`
	RTL       bool     `json:"rtl,omitempty"`
	Writing   int64    `json:"writing"`
	Speaking  int64    `json:"speaking"`
}

type usage struct {
	ID       string  `json:"id"`
	Speakers int64   `json:"speakers"`
	Percent  float64 `json:"percent"`
	Official bool    `json:"official,omitempty"`
}

func run(core, localenames, out string) error {
	var pkg struct{ Version string }
	if err := readJSON(filepath.Join(core, "package.json"), &pkg); err != nil {
		return err
	}
	main := filepath.Join(localenames, "main")
	enLangs, err := localeSection(main, "en", "languages", "languages")
	if err != nil {
		return err
	}
	enScripts, err := localeSection(main, "en", "scripts", "scripts")
	if err != nil {
		return err
	}

	likely, err := likelySubtags(core)
	if err != nil {
		return err
	}
	aliases, err := languageAliases(core)
	if err != nil {
		return err
	}
	var avail struct {
		AvailableLocales struct{ Full []string } `json:"availableLocales"`
	}
	if err := readJSON(filepath.Join(core, "availableLocales.json"), &avail); err != nil {
		return err
	}
	ti, err := territoryInfo(core)
	if err != nil {
		return err
	}

	// Base languages: every code CLDR names in English, less special codes
	// and codes CLDR itself replaces (tl → fil, sh → sr-Latn): those become
	// aliases of their replacement instead.
	defaults := map[string]string{}
	ids := map[string]bool{}
	for code := range enLangs {
		if strings.Contains(code, "-") || notLanguages[code] {
			continue
		}
		if _, replaced := aliases[code]; replaced {
			continue
		}
		ids[code] = true
		if s := likely[code].script; s != "" {
			defaults[code] = s
		}
	}

	// Script variants: a language+script pair CLDR distinguishes (a CLDR
	// locale, an English display name, or a territory population entry)
	// whose script is not the language's default one.
	addScript := func(tag string) {
		p := strings.FieldsFunc(tag, func(r rune) bool { return r == '-' || r == '_' })
		if len(p) < 2 || !isScript(p[1]) || !ids[p[0]] || defaults[p[0]] == p[1] {
			return
		}
		ids[p[0]+"-"+p[1]] = true
	}
	for _, l := range avail.AvailableLocales.Full {
		addScript(l)
	}
	for code := range enLangs {
		if !strings.Contains(code, "-alt-") {
			addScript(code)
		}
	}
	for _, t := range ti {
		for k := range t.langs {
			addScript(k)
		}
	}
	for _, rv := range regionVariants {
		ids[rv.id] = true
	}

	// Region-implied scripts (zh-TW → Hant, sr-ME → Latn) from CLDR likely
	// subtags, kept only where they lead to a catalogue entry.
	regionScripts := map[string]string{}
	for key, v := range likely {
		p := strings.Split(key, "-")
		if len(p) != 2 || !isRegion(p[1]) || v.script == "" || v.script == defaults[p[0]] {
			continue
		}
		if ids[p[0]+"-"+v.script] {
			regionScripts[key] = v.script
		}
	}

	// An alias to a language outside the catalogue leads nowhere.
	for a, repl := range aliases {
		base := strings.Split(repl, "-")[0]
		if !ids[base] {
			delete(aliases, a)
		}
	}

	scripts := map[string]script{}
	var meta struct {
		ScriptMetadata map[string]struct{ Rtl string } `json:"scriptMetadata"`
	}
	if err := readJSON(filepath.Join(core, "scriptMetadata.json"), &meta); err != nil {
		return err
	}
	for code, name := range enScripts {
		if !isScript(code) {
			continue
		}
		// Stand-alone names ("Traditional Han") read better in a field of
		// their own than the in-locale-name forms ("Traditional").
		if sa, ok := enScripts[code+"-alt-stand-alone"]; ok {
			name = sa
		}
		scripts[code] = script{Name: name, RTL: meta.ScriptMetadata[code].Rtl == "YES"}
	}

	langScripts, err := languageScripts(core)
	if err != nil {
		return err
	}
	variants := map[string][]string{}
	for _, l := range avail.AvailableLocales.Full {
		p := strings.Split(l, "-")
		for _, s := range p[1:] {
			if len(s) >= 5 || (len(s) == 4 && s[0] >= '0' && s[0] <= '9') {
				variants[p[0]] = appendUnique(variants[p[0]], strings.ToLower(s))
			}
		}
	}

	containment, err := territoryContainment(core)
	if err != nil {
		return err
	}
	pops := populations(ti, ids, defaults, containment)

	var recs []record
	sortedIDs := slices.Sorted(maps.Keys(ids))
	for _, id := range sortedIDs {
		base, scr, reg := splitID(id)
		r := record{ID: id, Script: scr, Variants: variants[base]}
		eff := scr
		if eff == "" {
			eff = defaults[base]
		}
		switch {
		case scr != "" || reg != "":
			// A variant is about one writing system.
			r.Scripts = []string{eff}
		default:
			r.Scripts = appendUnique(nil, defaults[base])
			for _, s := range langScripts[base] {
				r.Scripts = appendUnique(r.Scripts, s)
			}
			for _, other := range sortedIDs {
				if b, s, reg := splitID(other); b == base && s != "" && reg == "" {
					r.Scripts = appendUnique(r.Scripts, s)
				}
			}
			if r.Scripts[0] == "" {
				r.Scripts = r.Scripts[1:]
			}
		}
		r.RTL = scripts[eff].RTL
		if p := pops.byID[id]; p != nil {
			r.Writing, r.Speaking = round(p.writing), round(p.speaking)
			r.Countries = p.countries()
		}
		if eff != "" {
			if _, ok := scripts[eff]; !ok {
				return fmt.Errorf("%s: script %s has no English name", id, eff)
			}
		}
		recs = append(recs, r)
	}

	locales, err := localeParents(core, main)
	if err != nil {
		return err
	}
	names, err := displayNames(main, locales, ids)
	if err != nil {
		return err
	}

	cat := catalogue{
		CLDRVersion:    pkg.Version,
		Locales:        locales,
		Scripts:        scripts,
		DefaultScripts: defaults,
		RegionScripts:  regionScripts,
		Aliases:        aliases,
		Languages:      recs,
		Territories:    pops.territories,
	}
	js, err := json.Marshal(cat)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeGzip(filepath.Join(out, "languages.json.gz"), js); err != nil {
		return err
	}
	if err := writeGzip(filepath.Join(out, "names.tsv.gz"), names); err != nil {
		return err
	}
	lic, err := os.ReadFile(filepath.Join(core, "LICENSE"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "LICENSE-UNICODE"), lic, 0o644); err != nil {
		return err
	}
	log.Printf("CLDR %s: %d languages, %d locales, %d aliases", pkg.Version, len(recs), len(locales), len(aliases))
	return nil
}

// ---- CLDR readers ----

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// localeSection reads the main.<locale>.localeDisplayNames.<section> map of
// main/<locale>/<file>.json.
func localeSection(main, locale, file, section string) (map[string]string, error) {
	var doc struct {
		Main map[string]struct {
			LocaleDisplayNames map[string]json.RawMessage `json:"localeDisplayNames"`
		} `json:"main"`
	}
	err := readJSON(filepath.Join(main, locale, file+".json"), &doc)
	if errors.Is(err, fs.ErrNotExist) {
		// Locales with no data of a kind (aa has no language names) ship no
		// file for it.
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	raw, ok := doc.Main[locale].LocaleDisplayNames[section]
	if !ok {
		return nil, fmt.Errorf("%s/%s.json: no %s", locale, file, section)
	}
	m := map[string]string{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s/%s.json: %w", locale, file, err)
	}
	return m, nil
}

type likelyTag struct{ lang, script, region string }

func likelySubtags(core string) (map[string]likelyTag, error) {
	var doc struct {
		Supplemental struct {
			LikelySubtags map[string]string `json:"likelySubtags"`
		} `json:"supplemental"`
	}
	if err := readJSON(filepath.Join(core, "supplemental", "likelySubtags.json"), &doc); err != nil {
		return nil, err
	}
	m := map[string]likelyTag{}
	for k, v := range doc.Supplemental.LikelySubtags {
		p := strings.Split(v, "-")
		if len(p) != 3 {
			continue
		}
		m[k] = likelyTag{p[0], p[1], p[2]}
	}
	return m, nil
}

var (
	simpleAlias = regexp.MustCompile(`^[a-z]{2,8}$`)
	simpleTag   = regexp.MustCompile(`^[a-z]{2,8}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$`)
)

// languageAliases keeps CLDR's single-subtag language aliases (deprecated,
// legacy, ISO 639-2/3 overlong and bibliographic codes, macrolanguage
// members) whose replacement is a plain language[-Script][-Region] tag.
// Multi-subtag grandfathered forms are golang.org/x/text's business.
func languageAliases(core string) (map[string]string, error) {
	var doc struct {
		Supplemental struct {
			Metadata struct {
				Alias struct {
					LanguageAlias map[string]struct {
						Replacement string `json:"_replacement"`
					} `json:"languageAlias"`
				} `json:"alias"`
			} `json:"metadata"`
		} `json:"supplemental"`
	}
	if err := readJSON(filepath.Join(core, "supplemental", "aliases.json"), &doc); err != nil {
		return nil, err
	}
	m := map[string]string{}
	for k, v := range doc.Supplemental.Metadata.Alias.LanguageAlias {
		repl := strings.ReplaceAll(v.Replacement, "_", "-")
		if simpleAlias.MatchString(k) && simpleTag.MatchString(repl) {
			m[k] = repl
		}
	}
	return m, nil
}

// languageScripts lists, per language, the scripts CLDR's languageData
// records (primary first, then secondary).
func languageScripts(core string) (map[string][]string, error) {
	var doc struct {
		Supplemental struct {
			LanguageData map[string]struct {
				Scripts []string `json:"_scripts"`
			} `json:"languageData"`
		} `json:"supplemental"`
	}
	if err := readJSON(filepath.Join(core, "supplemental", "languageData.json"), &doc); err != nil {
		return nil, err
	}
	ld := doc.Supplemental.LanguageData
	m := map[string][]string{}
	for k, v := range ld {
		if !strings.HasSuffix(k, "-alt-secondary") {
			m[k] = append(m[k], v.Scripts...)
		}
	}
	for k, v := range ld {
		if base, ok := strings.CutSuffix(k, "-alt-secondary"); ok {
			for _, s := range v.Scripts {
				m[base] = appendUnique(m[base], s)
			}
		}
	}
	return m, nil
}

type territory struct {
	population float64
	literacy   float64 // -1 when CLDR gives none
	langs      map[string]langPop
}

type langPop struct {
	percent, writing, literacy float64 // writing and literacy -1 when absent
	official                   bool
}

func territoryInfo(core string) (map[string]territory, error) {
	type lp struct {
		Population string `json:"_populationPercent"`
		Writing    string `json:"_writingPercent"`
		Literacy   string `json:"_literacyPercent"`
		Status     string `json:"_officialStatus"`
	}
	var doc struct {
		Supplemental struct {
			TerritoryInfo map[string]struct {
				Population string        `json:"_population"`
				Literacy   string        `json:"_literacyPercent"`
				Languages  map[string]lp `json:"languagePopulation"`
			} `json:"territoryInfo"`
		} `json:"supplemental"`
	}
	if err := readJSON(filepath.Join(core, "supplemental", "territoryInfo.json"), &doc); err != nil {
		return nil, err
	}
	num := func(s string, def float64) (float64, error) {
		if s == "" {
			return def, nil
		}
		return strconv.ParseFloat(s, 64)
	}
	m := map[string]territory{}
	var errs []error
	for code, t := range doc.Supplemental.TerritoryInfo {
		pop, err1 := num(t.Population, 0)
		lit, err2 := num(t.Literacy, -1)
		tr := territory{population: pop, literacy: lit, langs: map[string]langPop{}}
		errs = append(errs, err1, err2)
		for k, l := range t.Languages {
			p, e1 := num(l.Population, 0)
			w, e2 := num(l.Writing, -1)
			li, e3 := num(l.Literacy, -1)
			errs = append(errs, e1, e2, e3)
			tr.langs[k] = langPop{percent: p, writing: w, literacy: li,
				official: l.Status == "official" || l.Status == "de_facto_official"}
		}
		m[code] = tr
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("territoryInfo: %w", err)
	}
	return m, nil
}

// territoryContainment expands a macro-region (419) to its countries.
func territoryContainment(core string) (func(string) []string, error) {
	var doc struct {
		Supplemental struct {
			TerritoryContainment map[string]struct {
				Contains []string `json:"_contains"`
			} `json:"territoryContainment"`
		} `json:"supplemental"`
	}
	if err := readJSON(filepath.Join(core, "supplemental", "territoryContainment.json"), &doc); err != nil {
		return nil, err
	}
	tc := doc.Supplemental.TerritoryContainment
	var expand func(string) []string
	expand = func(r string) []string {
		c, ok := tc[r]
		if !ok {
			return []string{r}
		}
		var out []string
		for _, x := range c.Contains {
			out = append(out, expand(x)...)
		}
		return out
	}
	return expand, nil
}

// localeParents lists every locale with display names and its CLDR parent:
// the explicit parentLocales entry, else the locale with its last subtag
// removed (skipping ones CLDR has no data for), else none (root).
func localeParents(core, main string) ([][2]string, error) {
	var doc struct {
		Supplemental struct {
			ParentLocales struct {
				ParentLocale map[string]string `json:"parentLocale"`
			} `json:"parentLocales"`
		} `json:"supplemental"`
	}
	if err := readJSON(filepath.Join(core, "supplemental", "parentLocales.json"), &doc); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(main)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "root" {
			have[e.Name()] = true
		}
	}
	var out [][2]string
	for _, l := range slices.Sorted(maps.Keys(have)) {
		p := l
		for {
			if explicit, ok := doc.Supplemental.ParentLocales.ParentLocale[p]; ok {
				p = explicit
			} else if i := strings.LastIndexByte(p, '-'); i > 0 {
				p = p[:i]
			} else {
				p = ""
			}
			if p == "" || p == "root" {
				p = ""
				break
			}
			if have[p] {
				break
			}
		}
		out = append(out, [2]string{l, p})
	}
	return out, nil
}

// ---- display names ----

// displayNames computes every catalogue id's name in every locale, the way
// CLDR builds locale display names (LDML part 2, "Locale Display Name
// Algorithm"): the longest language[-script][-region] key the locale names,
// then the remaining script and region names in the locale's pattern. It
// keeps only what a locale does not inherit from its parent and checks that
// the runtime's inheritance walk gives back every name.
func displayNames(main string, locales [][2]string, ids map[string]bool) ([]byte, error) {
	sorted := slices.Sorted(maps.Keys(ids))
	full := map[string]map[string]string{} // locale → id → name
	for _, l := range locales {
		loc := l[0]
		langs, err := localeSection(main, loc, "languages", "languages")
		if err != nil {
			return nil, err
		}
		scripts, err := localeSection(main, loc, "scripts", "scripts")
		if err != nil {
			return nil, err
		}
		regions, err := localeSection(main, loc, "territories", "territories")
		if err != nil {
			return nil, err
		}
		pat, err := localeSection(main, loc, "localeDisplayNames", "localeDisplayPattern")
		if err != nil {
			return nil, err
		}
		m := map[string]string{}
		for _, id := range sorted {
			if n, ok := composeName(id, langs, scripts, regions, pat); ok {
				if strings.ContainsAny(n, "\t\n\r") {
					return nil, fmt.Errorf("%s: name of %s contains a control character", loc, id)
				}
				m[id] = n
			}
		}
		full[loc] = m
	}
	parent := map[string]string{}
	for _, l := range locales {
		parent[l[0]] = l[1]
	}
	stored := map[string]map[string]string{}
	var buf bytes.Buffer
	for _, l := range locales {
		loc, par := l[0], l[1]
		stored[loc] = map[string]string{}
		for _, id := range sorted {
			n, ok := full[loc][id]
			pn, pok := "", false
			if par != "" {
				pn, pok = full[par][id]
			}
			if ok == pok && n == pn {
				continue
			}
			stored[loc][id] = n // "" when the parent has a name this one lacks
			fmt.Fprintf(&buf, "%s\t%s\t%s\n", loc, id, n)
		}
	}
	// Verify: walking parents over the stored entries reproduces every name.
	for _, l := range locales {
		for _, id := range sorted {
			want, wok := full[l[0]][id]
			got, gok := "", false
			for p := l[0]; p != ""; p = parent[p] {
				if n, ok := stored[p][id]; ok {
					got, gok = n, n != ""
					break
				}
			}
			if got != want || gok != wok {
				return nil, fmt.Errorf("inheritance check: %s in %s: got %q want %q", id, l[0], got, want)
			}
		}
	}
	return buf.Bytes(), nil
}

func composeName(id string, langs, scripts, regions, pat map[string]string) (string, bool) {
	base, scr, reg := splitID(id)
	type try struct {
		key       string
		scr, reg  bool // still to be described in parentheses
		available bool
	}
	tries := []try{
		{id, false, false, true},
		{base + "-" + scr, false, reg != "", scr != "" && reg != ""},
		{base + "-" + reg, scr != "", false, scr != "" && reg != ""},
		{base, scr != "", reg != "", true},
	}
	for _, t := range tries {
		if !t.available {
			continue
		}
		name, ok := langs[t.key]
		if !ok {
			continue
		}
		var extra []string
		if t.scr {
			s, ok := scripts[scr]
			if !ok {
				return "", false
			}
			extra = append(extra, s)
		}
		if t.reg {
			r, ok := regions[reg]
			if !ok {
				return "", false
			}
			extra = append(extra, r)
		}
		if len(extra) == 0 {
			return name, true
		}
		inner := extra[0]
		for _, e := range extra[1:] {
			inner = strings.NewReplacer("{0}", inner, "{1}", e).Replace(pat["localeSeparator"])
		}
		return strings.NewReplacer("{0}", name, "{1}", inner).Replace(pat["localePattern"]), true
	}
	return "", false
}

// ---- populations ----

type tally struct {
	speaking, writing float64
	byCountry         map[string]float64
}

func (t *tally) add(country string, speakers, writers float64, official bool) {
	t.speaking += speakers
	t.writing += writers
	if speakers > 0 || official {
		t.byCountry[country] += speakers
	}
}

// countries orders the countries that use a language by its speakers there.
func (t *tally) countries() []string {
	cs := slices.Collect(maps.Keys(t.byCountry))
	slices.SortFunc(cs, func(a, b string) int {
		if d := t.byCountry[b] - t.byCountry[a]; d != 0 {
			if d > 0 {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	return cs
}

type popResult struct {
	byID        map[string]*tally
	territories map[string][]usage
}

// populations turns territoryInfo shares into head counts:
// speakers = population × languagePopulation %, and writers = speakers ×
// the language's writingPercent, else its literacyPercent in that territory,
// else the territory's literacyPercent, else all speakers.
//
// A base language counts all its writing systems, but a territory that lists
// one language under several scripts (Serbian in Serbia: 99 % Cyrillic and
// 99 % Latin) describes the same people twice, so per territory the base
// takes the largest entry rather than the sum. A script variant counts only
// entries naming its script; a region variant only its region's countries.
func populations(ti map[string]territory, ids map[string]bool, defaults map[string]string, expand func(string) []string) popResult {
	res := popResult{byID: map[string]*tally{}, territories: map[string][]usage{}}
	get := func(id string) *tally {
		t := res.byID[id]
		if t == nil {
			t = &tally{byCountry: map[string]float64{}}
			res.byID[id] = t
		}
		return t
	}
	regionOf := map[string]map[string]string{} // entry key → country → region variant
	for _, rv := range regionVariants {
		key := rv.base
		if rv.script != "" {
			key += "_" + rv.script
		}
		if regionOf[key] == nil {
			regionOf[key] = map[string]string{}
		}
		for _, c := range expand(rv.region) {
			regionOf[key][c] = rv.id
		}
	}
	for _, country := range slices.Sorted(maps.Keys(ti)) {
		t := ti[country]
		type best struct {
			speakers, writers, percent float64
			official                   bool
		}
		bases := map[string]*best{}
		use := map[string]*best{}
		for _, key := range slices.Sorted(maps.Keys(t.langs)) {
			l := t.langs[key]
			base, scr, _ := strings.Cut(key, "_")
			if !ids[base] {
				continue
			}
			speakers := t.population * l.percent / 100
			rate := 100.0
			switch {
			case l.writing >= 0:
				rate = l.writing
			case l.literacy >= 0:
				rate = l.literacy
			case t.literacy >= 0:
				rate = t.literacy
			}
			writers := speakers * rate / 100
			id := base
			if scr != "" && scr != defaults[base] && ids[base+"-"+scr] {
				id = base + "-" + scr
				get(id).add(country, speakers, writers, l.official)
			}
			if rv, ok := regionOf[key][country]; ok {
				get(rv).add(country, speakers, writers, l.official)
			}
			for _, m := range []struct {
				into map[string]*best
				k    string
			}{{bases, base}, {use, id}} {
				b := m.into[m.k]
				if b == nil {
					b = &best{}
					m.into[m.k] = b
				}
				b.speakers = math.Max(b.speakers, speakers)
				b.writers = math.Max(b.writers, writers)
				b.percent = math.Max(b.percent, l.percent)
				b.official = b.official || l.official
			}
		}
		for base, b := range bases {
			get(base).add(country, b.speakers, b.writers, b.official)
		}
		var us []usage
		for id, b := range use {
			us = append(us, usage{ID: id, Speakers: round(b.speakers), Percent: b.percent, Official: b.official})
		}
		slices.SortFunc(us, func(a, b usage) int {
			if a.Speakers != b.Speakers {
				if a.Speakers > b.Speakers {
					return -1
				}
				return 1
			}
			return strings.Compare(a.ID, b.ID)
		})
		if len(us) > 0 {
			res.territories[country] = us
		}
	}
	return res
}

// ---- small helpers ----

func splitID(id string) (base, script, region string) {
	p := strings.Split(id, "-")
	base = p[0]
	for _, s := range p[1:] {
		switch {
		case isScript(s):
			script = s
		case isRegion(s):
			region = s
		}
	}
	return base, script, region
}

func isScript(s string) bool {
	return len(s) == 4 && s[0] >= 'A' && s[0] <= 'Z' && strings.ToLower(s[1:]) == s[1:] && !strings.ContainsAny(s, "0123456789")
}

func isRegion(s string) bool {
	if len(s) == 2 {
		return s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
	}
	if len(s) == 3 {
		_, err := strconv.Atoi(s)
		return err == nil
	}
	return false
}

func appendUnique(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func round(f float64) int64 { return int64(math.Round(f)) }

func writeGzip(path string, data []byte) error {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	// No name or modification time in the header: regenerating from the
	// same CLDR release must give byte-identical files, or git sees churn.
	if _, err := zw.Write(data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
