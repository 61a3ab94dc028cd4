package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/edge/internal/compose"
	"github.com/bibleplatform/platform/edge/internal/packs"
	"github.com/bibleplatform/platform/edge/internal/represent"
	"github.com/bibleplatform/platform/edge/internal/site"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/publish"
)

// The catalogues (docs/catalogue.md) are read-mostly: the build publishes
// them in the site pack and in each Bible's pack, and the edge turns them
// into a catalog when it loads the build, so that a request filters and
// pages in memory and composes its answer by appending bytes that were
// encoded once. A catalog belongs to one site (build) and is swapped with
// it.

// catalog is one build's catalogues, ready to serve.
type catalog struct {
	build string
	mod   time.Time // Last-Modified of composed answers: the build's creation

	bibles    []*bibleItem // by id
	bibleByID map[int32]*bibleItem

	languages []*langItem // lang.All order: by id in byte order
	langByID  map[string]*langItem

	orgs    []*orgItem // by id
	orgByID map[string]*orgItem
	orgMod  time.Time

	fonts    []*fontItem // by id
	fontByID map[int32]*fontItem
	fontMod  time.Time

	site    *publish.PackRef // the site pack, for the calendar's own entry
	votdDay map[int]*represent.Resource
}

// Prepare builds st's catalog before st is swapped in. A failure is
// logged and retried on demand: the content routes do not need it.
func (s *Routes) Prepare(st *site.Site) {
	if _, err := s.catalogOf(context.Background(), st); err != nil {
		s.log.Error("cannot build the catalogues; will retry on the first catalogue request", "build", st.Build, "err", err)
	}
}

// catalogOf returns st's catalog, building it if needed. It is built
// before the site is published to requests; if that failed (the store was
// down), the first catalogue request tries again.
func (s *Routes) catalogOf(ctx context.Context, st *site.Site) (*catalog, error) {
	return site.Make(&st.Catalog, func() (*catalog, error) { return s.loadCatalog(ctx, st) })
}

func (s *Routes) loadCatalog(ctx context.Context, st *site.Site) (*catalog, error) {
	m := st.Manifest
	c := &catalog{build: st.Build, mod: m.Created, site: m.Site, votdDay: map[int]*represent.Resource{}}
	var sitePack *packs.View
	if m.Site != nil {
		pv, err := s.packs.Get(ctx, *m.Site)
		if err != nil {
			return nil, fmt.Errorf("catalogue: %w", err)
		}
		sitePack = pv
		c.orgMod, c.fontMod = m.Site.Modified, m.Site.Modified
	}
	siteRaw := func(name string, v any) error {
		if sitePack == nil {
			return nil
		}
		if err := sitePack.Pack().Decode(name, v); err != nil && !errors.Is(err, publish.ErrNoEntry) {
			return fmt.Errorf("catalogue: site pack: %w", err)
		}
		return nil
	}

	var licences []publish.License
	if err := siteRaw(publish.NameLicenses, &licences); err != nil {
		return nil, err
	}
	var published []publish.CatalogBible
	if err := siteRaw(publish.NameCatalogBibles, &published); err != nil {
		return nil, err
	}
	if published == nil {
		// A build from before the site pack listed its Bibles: read each
		// Bible's own object, with its licence from the licences.
		licenceOf := map[int32]int{}
		for _, l := range licences {
			for _, id := range l.BibleIDs {
				licenceOf[id] = l.ID
			}
		}
		for _, be := range m.Bibles {
			pv, err := s.packs.Get(ctx, be.Pack)
			if err != nil {
				return nil, fmt.Errorf("catalogue: bible %d: %w", be.ID, err)
			}
			b, err := pv.Pack().Raw(publish.NameBible)
			if err != nil {
				return nil, fmt.Errorf("catalogue: bible %d: %w", be.ID, err)
			}
			published = append(published, publish.CatalogBible{LicenseID: licenceOf[be.ID], Bible: b})
		}
	}
	if err := c.addBibles(published, m); err != nil {
		return nil, err
	}
	c.addLanguages()

	var orgs []json.RawMessage
	if err := siteRaw(publish.NameOrganizations, &orgs); err != nil {
		return nil, err
	}
	if err := c.addOrganizations(orgs); err != nil {
		return nil, err
	}
	var fonts []fontSource
	if err := siteRaw(publish.NameFonts, &fonts); err != nil {
		return nil, err
	}
	c.addFonts(fonts, m, s.log)

	var votd struct {
		Data []publish.VerseOfTheDay `json:"data"`
	}
	if err := siteRaw(publish.NameVerseOfDays, &votd); err != nil {
		return nil, err
	}
	for _, v := range votd.Data {
		body, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("catalogue: verse of the day %d: %w", v.Day, err)
		}
		c.votdDay[v.Day] = newCatalogResource(body, c.orgMod)
	}
	return c, nil
}

// --- Bibles ---

// bibleFields are the Bible resource's top-level fields (spec, Bible), in
// the order bible.Bible encodes them.
var bibleFields = []string{"id", "abbreviation", "promotional_content", "copyright", "info",
	"publisher_url", "language_tag", "localized_abbreviation", "localized_title", "title", "books",
	"platform_deep_link", "organization_id", "versification"}

type bibleItem struct {
	id        int32
	licenseID int
	tag       string // language_tag as published
	langID    string // its catalogue language ("" when it names none)
	org       string
	frags     [][]byte // per bibleFields: `"name":value`, nil when absent
	mod       time.Time
}

func (c *catalog) addBibles(published []publish.CatalogBible, m *publish.Manifest) error {
	c.bibleByID = make(map[int32]*bibleItem, len(published))
	for _, p := range published {
		var b bible.Bible
		if err := json.Unmarshal(p.Bible, &b); err != nil {
			return fmt.Errorf("catalogue: bible object: %w", err)
		}
		frags, err := splitObject(p.Bible, bibleFields)
		if err != nil {
			return fmt.Errorf("catalogue: bible %d: %w", b.ID, err)
		}
		it := &bibleItem{id: b.ID, licenseID: p.LicenseID, tag: b.LanguageTag, frags: frags}
		if id, err := lang.Canonical(b.LanguageTag); err == nil {
			it.langID = id
		}
		if b.OrganizationID != nil {
			it.org = strings.ToLower(*b.OrganizationID)
		}
		if be := m.Bible(b.ID); be != nil {
			it.mod = be.Pack.Modified
		}
		c.bibles = append(c.bibles, it)
		c.bibleByID[b.ID] = it
	}
	sort.Slice(c.bibles, func(i, j int) bool { return c.bibles[i].id < c.bibles[j].id })
	return nil
}

// splitObject splits a JSON object into `"name":value` fragments in the
// order of fields; a field the object lacks is nil. Values are compacted.
func splitObject(obj []byte, fields []string) ([][]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return nil, err
	}
	out := make([][]byte, len(fields))
	for i, f := range fields {
		v, ok := m[f]
		if !ok {
			continue
		}
		out[i] = fieldFrag(f, v)
	}
	return out, nil
}

// fieldFrag is `"name":value` with value compacted.
func fieldFrag(name string, value []byte) []byte {
	var b bytes.Buffer
	b.WriteByte('"')
	b.WriteString(name) // field names are plain ASCII identifiers
	b.WriteString(`":`)
	if err := json.Compact(&b, value); err != nil {
		b.Truncate(len(name) + 3)
		b.WriteString("null")
	}
	return b.Bytes()
}

// fieldFragOf encodes v as the value of a field.
func fieldFragOf(name string, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte("null")
	}
	return fieldFrag(name, b)
}

// --- Languages ---

// languageFields are the Language resource's top-level fields (spec).
var languageFields = []string{"id", "language", "script", "script_name", "aliases", "display_names",
	"localized_name", "scripts", "variants", "countries", "text_direction", "writing_population",
	"speaking_population", "default_bible_id"}

const (
	langFieldDisplayNames  = 5
	langFieldLocalizedName = 6
)

type langItem struct {
	lang  lang.Language
	bible int32    // default_bible_id, 0 when no Bible is in the language
	frags [][]byte // per languageFields; display_names and localized_name are nil

	namesOnce sync.Once
	names     []byte // display_names, encoded on first need: large
}

func (l *langItem) displayNames() []byte {
	l.namesOnce.Do(func() { l.names = fieldFragOf("display_names", l.lang.DisplayNames()) })
	return l.names
}

// addLanguages indexes the language catalogue with each language's
// default Bible: the published Bible with the lowest id whose language_tag
// canonicalises to the language's id (docs/catalogue.md).
func (c *catalog) addLanguages() {
	def := map[string]int32{}
	for _, b := range c.bibles { // by id: the first one seen is the lowest
		if _, ok := def[b.langID]; !ok && b.langID != "" {
			def[b.langID] = b.id
		}
	}
	all := lang.All()
	c.languages = make([]*langItem, len(all))
	c.langByID = make(map[string]*langItem, len(all))
	for i, l := range all {
		r := l.Resource(lang.Preferences{}, def[l.ID])
		it := &langItem{lang: l, bible: def[l.ID], frags: make([][]byte, len(languageFields))}
		vals := []any{r.ID, r.Language, r.Script, r.ScriptName, r.Aliases, nil, nil, r.Scripts,
			r.Variants, r.Countries, r.TextDirection, r.WritingPopulation, r.SpeakingPopulation, nil}
		for f, v := range vals {
			if f == langFieldDisplayNames || f == langFieldLocalizedName || v == nil {
				continue
			}
			it.frags[f] = fieldFragOf(languageFields[f], v)
		}
		// No Bible in the language: the field is left out rather than null,
		// as the spec types it a plain integer.
		if it.bible != 0 {
			it.frags[len(languageFields)-1] = fieldFragOf("default_bible_id", it.bible)
		}
		c.languages[i] = it
		c.langByID[l.ID] = it
	}
}

// --- Organizations ---

var orgFields = []string{"id", "parent_organization_id", "name", "description", "email", "phone",
	"primary_language", "website_url", "address"}

const (
	orgFieldName        = 2
	orgFieldDescription = 3
)

type orgItem struct {
	id           string
	primary      string
	names        map[string]string
	descriptions map[string]string
	frags        [][]byte // per orgFields; name and description are nil
}

// orgSource is an organization as the content directory writes it: the
// spec's Organization with its name and description in several languages.
type orgSource struct {
	ID              string            `json:"id"`
	PrimaryLanguage string            `json:"primary_language"`
	Name            string            `json:"name"`
	Names           map[string]string `json:"names"`
	Description     string            `json:"description"`
	Descriptions    map[string]string `json:"descriptions"`
}

func (c *catalog) addOrganizations(raw []json.RawMessage) error {
	c.orgByID = make(map[string]*orgItem, len(raw))
	for _, r := range raw {
		var o orgSource
		if err := json.Unmarshal(r, &o); err != nil {
			return fmt.Errorf("catalogue: organization: %w", err)
		}
		if !bible.ValidUUID(o.ID) {
			return fmt.Errorf("catalogue: organization id %q is not a uuid", o.ID)
		}
		frags, err := splitObject(r, orgFields)
		if err != nil {
			return fmt.Errorf("catalogue: organization %s: %w", o.ID, err)
		}
		it := &orgItem{id: strings.ToLower(o.ID), primary: o.PrimaryLanguage, names: o.Names,
			descriptions: o.Descriptions, frags: frags}
		// A single name or description stands for the primary language.
		if it.names == nil {
			it.names = map[string]string{}
		}
		if o.Name != "" {
			if _, ok := it.names[o.PrimaryLanguage]; !ok {
				it.names[o.PrimaryLanguage] = o.Name
			}
		}
		if it.descriptions == nil {
			it.descriptions = map[string]string{}
		}
		if o.Description != "" {
			if _, ok := it.descriptions[o.PrimaryLanguage]; !ok {
				it.descriptions[o.PrimaryLanguage] = o.Description
			}
		}
		it.frags[orgFieldName], it.frags[orgFieldDescription] = nil, nil
		c.orgs = append(c.orgs, it)
		c.orgByID[it.id] = it
	}
	sort.Slice(c.orgs, func(i, j int) bool { return c.orgs[i].id < c.orgs[j].id })
	return nil
}

// chooseLanguage picks the language an organization is shown in: the first
// preferred locale it has a name in (fr-CH, then its language fr), else
// its primary language, else English, else its first language in byte
// order (spec, Organization.name).
func chooseLanguage(names map[string]string, prefs []string, primary string) string {
	for _, p := range prefs {
		for t := p; t != ""; {
			if _, ok := names[t]; ok {
				return t
			}
			i := strings.LastIndexByte(t, '-')
			if i < 0 {
				break
			}
			t = t[:i]
		}
	}
	for _, t := range []string{primary, "en"} {
		if _, ok := names[t]; ok {
			return t
		}
	}
	if len(names) == 0 {
		return primary
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys[0]
}

// text returns the organization's name and description in language l,
// each falling back as chooseLanguage does when l lacks it.
func (o *orgItem) text(l string) (name, desc string, hasDesc bool) {
	name = o.names[chooseLanguage(o.names, []string{l}, o.primary)]
	if len(o.descriptions) > 0 {
		desc, hasDesc = o.descriptions[chooseLanguage(o.descriptions, []string{l}, o.primary)], true
	}
	return name, desc, hasDesc
}

// --- Fonts ---

// fontSource is a font family as the content directory writes it.
type fontSource struct {
	ID       int32  `json:"id"`
	Slug     string `json:"slug"`
	Family   string `json:"family"`
	Variants []struct {
		Weight int               `json:"weight"`
		Style  string            `json:"style"`
		Files  map[string]string `json:"files"` // format → path under fonts/
	} `json:"variants"`
}

type fontItem struct {
	id       int32
	slug     string
	family   string
	variants []fontVariant
}

type fontVariant struct {
	weight  int
	style   string
	sources []fontFile // woff2 first
}

type fontFile struct {
	format string
	path   string // URL path below the public base: /v1/fonts/files/<hash>/<name>
}

// fontFormatOrder ranks formats for the sources list: the most compact
// first, as browsers take the first they support.
var fontFormatOrder = map[string]int{"woff2": 0, "woff": 1, "truetype": 2, "ttf": 2, "opentype": 3, "otf": 3}

func (c *catalog) addFonts(fonts []fontSource, m *publish.Manifest, log *slog.Logger) {
	c.fontByID = make(map[int32]*fontItem, len(fonts))
	for _, f := range fonts {
		it := &fontItem{id: f.ID, slug: f.Slug, family: f.Family}
		for _, v := range f.Variants {
			fv := fontVariant{weight: v.Weight, style: v.Style}
			for format, p := range v.Files {
				ref, ok := m.Files[publish.FontFile(p)]
				if !ok {
					log.Warn("font file not published", "font", f.ID, "file", p)
					continue
				}
				fv.sources = append(fv.sources, fontFile{format: format, path: fontFileURLPath(p, ref)})
			}
			sort.Slice(fv.sources, func(i, j int) bool {
				a, b := fv.sources[i], fv.sources[j]
				ra, oka := fontFormatOrder[a.format]
				rb, okb := fontFormatOrder[b.format]
				if !oka {
					ra = len(fontFormatOrder)
				}
				if !okb {
					rb = len(fontFormatOrder)
				}
				if ra != rb {
					return ra < rb
				}
				return a.format < b.format
			})
			it.variants = append(it.variants, fv)
		}
		c.fonts = append(c.fonts, it)
		c.fontByID[f.ID] = it
	}
	sort.Slice(c.fonts, func(i, j int) bool { return c.fonts[i].id < c.fonts[j].id })
}

// Font files are served at /v1/fonts/files/<hash>/<name>, where <hash>
// names the published content, so that the URL changes whenever the bytes
// do and the answer can be cached for a year as immutable.
const fontFilesPrefix = "/v1/fonts/files/"

// fontHashLen is how much of the pack's content address the URL carries.
const fontHashLen = 16

// fontFileURLPath is the URL path of a published font file; p is its path
// under fonts/ ("files/x.woff2").
func fontFileURLPath(p string, ref publish.PackRef) string {
	return fontFilesPrefix + fontHash(ref) + "/" + strings.TrimPrefix(p, "files/")
}

func fontHash(ref publish.PackRef) string {
	h := strings.TrimPrefix(ref.Key, publish.PackPrefix)
	if len(h) > fontHashLen {
		h = h[:fontHashLen]
	}
	return h
}

// newCatalogResource prepares a body composed from the catalogue like a
// composed range: identity plus each smaller coding, strong ETags.
func newCatalogResource(body []byte, mod time.Time) *represent.Resource {
	return compose.NewResource(body, publish.JSON, mod, compose.Kept)
}

// InLanguage reports whether the catalogue of st lists Bible id in
// language tag; false while the catalogue is not built.
func InLanguage(st *site.Site, id int32, tag string) bool {
	c := site.Load[catalog](&st.Catalog)
	if c == nil {
		return false
	}
	it := c.bibleByID[id]
	return it != nil && (it.langID == tag || it.tag == tag)
}
