package build

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/publish"
	"golang.org/x/text/language"
)

// A DBL (Digital Bible Library) text bundle is a folder or a .zip holding
// metadata.xml (DBL 2.x: identification, language, copyright, promotion,
// agencies, book names, manifest and publications), license.xml and the
// books as USX under release/ (release/USX_1/GEN.usx …). The files may sit
// under one top folder of the zip.
//
// importBundle maps the metadata onto bible.json:
//
//	identification/name, nameLocal          title, localized_title
//	identification/abbreviation(Local)      abbreviation, localized_abbreviation
//	language/ldml (else iso), scriptCode    language_tag; the script is added
//	                                        when it is not the language's usual one
//	language/scriptDirection                text_direction
//	copyright/fullStatement                 copyright (text, markup removed)
//	promotion/promoVersionInfo              promotional_content (likewise)
//	agencies/rightsHolder (name, url)       organization_id, publisher_url
//	names/name (abbr, short, long)          book_names: each book's \toc3,
//	                                        \toc2 and \toc1 at build
//	publications/publication[default]       which USX files are the books
//	release/versification.vrs               versification: the standard scheme
//	                                        it is, else custom with the file kept
//
// Flags (non-empty fields of meta) override all of it. license.xml is kept
// as bibles/<id>/license.xml. The Bible's id, when not given, is the one an
// earlier import of the same bundle (the DBL id, kept in bible.json) got,
// or the next free id. When neither meta nor an earlier import names an
// organization or a licence, the import writes them from the bundle: the
// rights holder as an organization (its id derived from the DBL uid, so
// that a re-import finds it) and a licence of that organization that is
// not open (apps need an agreement; `publish licenses add --open` makes an
// open one). Books are published in the spec's canonical order.
// bundleVRS is where a bundle keeps its versification (Paratext's
// project versification, standard or its own).
const bundleVRS = "release/" + VRSFile

type dblBundle struct {
	name  string            // the source, for diagnostics
	files map[string][]byte // by path relative to the bundle root
	meta  dblMetadata
}

type dblText struct {
	Inner string `xml:",innerxml"`
}

// text is the element's text with markup removed and whitespace collapsed,
// one line per paragraph.
func (t dblText) text() string {
	dec := xml.NewDecoder(strings.NewReader("<x>" + t.Inner + "</x>"))
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case xml.CharData:
			b.Write(v)
		case xml.EndElement:
			switch v.Name.Local {
			case "p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6":
				b.WriteByte('\n')
			}
		}
	}
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

type dblMetadata struct {
	XMLName        xml.Name `xml:"DBLMetadata"`
	ID             string   `xml:"id,attr"`
	Type           string   `xml:"type,attr"`
	Version        string   `xml:"version,attr"`
	TypeVersion    string   `xml:"typeVersion,attr"`
	Identification struct {
		Name              string `xml:"name"`
		NameLocal         string `xml:"nameLocal"`
		Abbreviation      string `xml:"abbreviation"`
		AbbreviationLocal string `xml:"abbreviationLocal"`
		Description       string `xml:"description"`
	} `xml:"identification"`
	Language struct {
		ISO             string `xml:"iso"`
		LDML            string `xml:"ldml"`
		ScriptCode      string `xml:"scriptCode"`
		ScriptDirection string `xml:"scriptDirection"`
	} `xml:"language"`
	Copyright struct {
		Statement dblText `xml:"fullStatement>statementContent"`
	} `xml:"copyright"`
	Promotion struct {
		VersionInfo dblText `xml:"promoVersionInfo"`
	} `xml:"promotion"`
	Agencies struct {
		RightsHolder []struct {
			UID       string `xml:"uid,attr"`
			Name      string `xml:"name"`
			NameLocal string `xml:"nameLocal"`
			URL       string `xml:"url,attr"`
			URLElem   string `xml:"url"` // some bundles write it as an element
		} `xml:"rightsHolder"`
	} `xml:"agencies"`
	Names []struct {
		ID    string `xml:"id,attr"`
		Abbr  string `xml:"abbr"`
		Short string `xml:"short"`
		Long  string `xml:"long"`
	} `xml:"names>name"`
	Publications []struct {
		Default   string `xml:"default,attr"`
		Canonical []struct {
			Code string `xml:"code,attr"`
		} `xml:"canonicalContent>book"`
		Structure []struct {
			Role string `xml:"role,attr"`
			Src  string `xml:"src,attr"`
			Name string `xml:"name,attr"`
		} `xml:"structure>content"`
	} `xml:"publications>publication"`
}

// findBundle reads source as a DBL bundle when it is one (a folder or .zip
// with metadata.xml at its root or under one top folder); nil otherwise.
func findBundle(source string) (*dblBundle, error) {
	fi, err := os.Stat(source)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	b := &dblBundle{name: source, files: map[string][]byte{}}
	r := &sourceReader{source: source}
	bundleFile := func(rel string) bool {
		return rel == "metadata.xml" || rel == "license.xml" || rel == bundleVRS || isUSXName(rel)
	}
	switch {
	case fi.IsDir():
		root := source
		if _, err := os.Lstat(filepath.Join(root, "metadata.xml")); err != nil {
			subs, _ := filepath.Glob(filepath.Join(source, "*", "metadata.xml"))
			if len(subs) != 1 {
				return nil, nil
			}
			root = filepath.Dir(subs[0])
		}
		err := r.walkFolder(root, bundleFile, func(_, rel string) string { return rel })
		if err != nil {
			return nil, err
		}
		for _, f := range r.files {
			b.files[f.name] = f.data
		}
	case strings.EqualFold(filepath.Ext(source), ".zip"):
		err := r.readZip(source, func(name string) bool {
			base := path.Base(name)
			return base == "metadata.xml" || base == "license.xml" || base == VRSFile || isUSXName(name)
		})
		if err != nil {
			return nil, err
		}
		files := r.files
		// The bundle is the shallowest metadata.xml's folder, whatever
		// the order of the zip's entries (as for a folder).
		prefix, found := "", false
		for _, f := range files {
			name := strings.TrimPrefix(f.name, source+":")
			if path.Base(name) != "metadata.xml" {
				continue
			}
			p := strings.TrimSuffix(name, "metadata.xml")
			if !found || strings.Count(p, "/") < strings.Count(prefix, "/") {
				prefix, found = p, true
			}
		}
		if !found {
			return nil, nil
		}
		for _, f := range files {
			name := strings.TrimPrefix(f.name, source+":")
			if rel, ok := strings.CutPrefix(name, prefix); ok {
				b.files[rel] = f.data
			}
		}
	default:
		return nil, nil
	}
	md, ok := b.files["metadata.xml"]
	if !ok {
		return nil, nil
	}
	if err := xml.Unmarshal(md, &b.meta); err != nil {
		return nil, fmt.Errorf("import: %s: metadata.xml: %w", source, err)
	}
	if b.meta.Type != "" && b.meta.Type != "text" {
		return nil, fmt.Errorf("import: %s: a DBL %s bundle; only text bundles hold books", source, b.meta.Type)
	}
	return b, nil
}

// books returns the bundle's USX books: those of the default publication
// (or the first), else every .usx file.
func (b *dblBundle) books() ([]sourceFile, error) {
	var srcs []string
	if pubs := b.meta.Publications; len(pubs) > 0 {
		pub := pubs[0]
		for _, p := range pubs {
			if p.Default == "true" {
				pub = p
				break
			}
		}
		for _, c := range pub.Structure {
			if isUSXName(c.Src) {
				srcs = append(srcs, c.Src)
			}
		}
	}
	if len(srcs) == 0 {
		for name := range b.files {
			if isUSXName(name) {
				srcs = append(srcs, name)
			}
		}
	}
	sort.Strings(srcs)
	var out []sourceFile
	for _, s := range srcs {
		data, ok := b.files[s]
		if !ok {
			return nil, fmt.Errorf("import: %s: metadata.xml names %s, which the bundle does not hold", b.name, s)
		}
		out = append(out, sourceFile{b.name + ":" + s, data})
	}
	return out, nil
}

// bibleMeta is what metadata.xml says of the Bible.
func (b *dblBundle) bibleMeta() BibleMeta {
	md := &b.meta
	m := BibleMeta{
		Title:                 strings.TrimSpace(md.Identification.Name),
		LocalizedTitle:        strings.TrimSpace(md.Identification.NameLocal),
		Abbreviation:          strings.TrimSpace(md.Identification.Abbreviation),
		LocalizedAbbreviation: strings.TrimSpace(md.Identification.AbbreviationLocal),
		Copyright:             md.Copyright.Statement.text(),
		PromotionalContent:    md.Promotion.VersionInfo.text(),
		DBLID:                 strings.TrimSpace(md.ID),
	}
	if m.Title == "" {
		m.Title = m.LocalizedTitle
	}
	if m.Abbreviation == "" {
		m.Abbreviation = m.LocalizedAbbreviation
	}
	m.LanguageTag = dblLanguageTag(md.Language.LDML, md.Language.ISO, md.Language.ScriptCode)
	switch strings.ToLower(strings.TrimSpace(md.Language.ScriptDirection)) {
	case "rtl":
		m.TextDirection = "rtl"
	case "ltr":
		m.TextDirection = "ltr"
	}
	if rh := md.Agencies.RightsHolder; len(rh) > 0 {
		m.PublisherURL = strings.TrimSpace(rh[0].URL + rh[0].URLElem)
	}
	for _, n := range md.Names {
		id := bible.BookID(strings.ToUpper(strings.TrimPrefix(n.ID, "book-")))
		if !id.Canonical() {
			continue
		}
		if m.BookNames == nil {
			m.BookNames = map[bible.BookID]BookName{}
		}
		m.BookNames[id] = BookName{Abbreviation: strings.TrimSpace(n.Abbr), Short: strings.TrimSpace(n.Short), Long: strings.TrimSpace(n.Long)}
	}
	return m
}

// dblLanguageTag makes a BCP 47 tag of DBL's ldml (a tag already, such as
// "hbo" or "sr_Latn") or iso (ISO 639-3) and scriptCode (ISO 15924). The
// script is kept only when it is not the language's likely one.
func dblLanguageTag(ldml, iso, script string) string {
	raw := strings.ReplaceAll(strings.TrimSpace(ldml), "_", "-")
	if raw == "" {
		raw = strings.TrimSpace(iso)
	}
	if raw == "" {
		return ""
	}
	tag := raw
	if id, err := lang.Canonical(raw); err == nil {
		tag = id
	}
	t, err := language.Parse(tag)
	if err != nil || script == "" {
		return tag
	}
	sc, err := language.ParseScript(script)
	if err != nil {
		return tag
	}
	if s, conf := t.Script(); conf == language.Exact || s == sc {
		return tag
	}
	// Not x/text's likely script for the language (or it knows none): say it.
	if withScript, err := language.Compose(t, sc); err == nil {
		return withScript.String()
	}
	return tag
}

// importBundle imports a DBL text bundle.
func importBundle(content string, b *dblBundle, flags BibleMeta, opt ImportOptions) (*ImportReport, error) {
	meta := b.bibleMeta()
	meta.Override(flags)
	if meta.ID <= 0 {
		id, err := bundleBibleID(content, meta.DBLID)
		if err != nil {
			return nil, err
		}
		meta.ID = id
	}
	var old BibleMeta
	if err := readJSON(filepath.Join(content, "bibles", fmt.Sprint(meta.ID), "bible.json"), &old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	books, err := b.books()
	if err != nil {
		return nil, err
	}
	if len(books) == 0 {
		return nil, fmt.Errorf("import: %s: the bundle holds no USX book", b.name)
	}
	var created []string
	if !opt.Check {
		if meta.OrganizationID == "" && old.OrganizationID == "" {
			if meta.OrganizationID, err = b.writeOrganization(content, meta); err != nil {
				return nil, err
			}
			if meta.OrganizationID != "" {
				created = append(created, "organization "+meta.OrganizationID)
			}
		}
		if meta.LicenseID == 0 && old.LicenseID == 0 && meta.OrganizationID != "" {
			l := publish.License{Name: meta.Title + " licence", OrganizationID: meta.OrganizationID}
			text := paragraphsHTML(append(strings.Split(meta.Copyright, "\n"),
				"The terms of the Digital Bible Library licence of this text are kept with the Bible (license.xml).")...)
			if meta.LicenseID, err = AddLicense(content, l, text, false); err != nil {
				return nil, err
			}
			created = append(created, fmt.Sprintf("licence %d", meta.LicenseID))
		}
	}
	extra := map[string][]byte{}
	if lic, ok := b.files["license.xml"]; ok {
		extra["license.xml"] = lic
	}
	if vrs, ok := b.files[bundleVRS]; ok && flags.Versification == "" && opt.VRS == nil {
		opt.VRS, opt.VRSName = vrs, b.name+":"+bundleVRS
	}
	rep, err := importFiles(content, b.name, books, meta, opt, extra)
	if rep != nil {
		rep.Created = created
	}
	return rep, err
}

// writeOrganization writes the bundle's rights holder as an organization
// unless it exists, and returns its id ("" when the bundle names none).
func (b *dblBundle) writeOrganization(content string, meta BibleMeta) (string, error) {
	rh := b.meta.Agencies.RightsHolder
	if len(rh) == 0 || strings.TrimSpace(rh[0].Name) == "" {
		return "", nil
	}
	key := rh[0].UID
	if key == "" {
		key = rh[0].Name
	}
	id := nameUUID("dbl:" + key)
	if organizationExists(content, id) == nil {
		return id, nil
	}
	primary := "en"
	names := map[string]string{"en": strings.TrimSpace(rh[0].Name)}
	if local := strings.TrimSpace(rh[0].NameLocal); local != "" && meta.LanguageTag != "" {
		base, _ := language.Make(meta.LanguageTag).Base()
		if base.String() != "en" {
			names[base.String()] = local
		}
	}
	o := Organization{ID: id, PrimaryLanguage: primary, Names: names}
	if u := strings.TrimSpace(rh[0].URL + rh[0].URLElem); u != "" {
		o.WebsiteURL = &u
	}
	return AddOrganization(content, o, false)
}

// bundleBibleID is the id of the Bible an earlier import of the DBL id
// dblID got, or the next free id.
func bundleBibleID(content, dblID string) (int32, error) {
	bibles, err := ReadBibles(content)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	var top int32
	for _, cb := range bibles {
		if dblID != "" && cb.Meta.DBLID == dblID {
			return cb.Meta.ID, nil
		}
		top = max(top, cb.Meta.ID)
	}
	return top + 1, nil
}

func jsonBytes(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
