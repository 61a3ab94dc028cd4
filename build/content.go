// Package build turns sources into published content: `publish import`
// brings USFM into a content directory, and `publish build` renders every
// representation the edge serves and writes it to a publish.Store.
//
// The content directory (git-friendly, documented in the README):
//
//	bibles/<id>/bible.json      the Bible's metadata (BibleMeta)
//	bibles/<id>/<BOOK>.usfm     one USFM (or <BOOK>.usx, USX) file per book, as imported
//	bibles/<id>/license.xml     the DBL licence of a bundle, kept as delivered
//	bibles/<id>/versification.vrs  the Bible's own versification (custom)
//	organizations/<uuid>.json   organizations
//	licenses/<id>.json, .html   licences and their texts
//	fonts/<id>.json, files/…    font families and their files
//	verse_of_the_day.json       the verse-of-the-day calendar
package build

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/lang"
	"github.com/bibleplatform/platform/versification"
	"golang.org/x/text/language"
)

// BibleMeta is bibles/<id>/bible.json: what the API says of a Bible beyond
// its books, plus what the build needs (licence, direction).
type BibleMeta struct {
	ID                    int32  `json:"id"`
	Abbreviation          string `json:"abbreviation"`
	Title                 string `json:"title"`
	LocalizedTitle        string `json:"localized_title,omitempty"`
	LocalizedAbbreviation string `json:"localized_abbreviation,omitempty"`
	LanguageTag           string `json:"language_tag"`
	LicenseID             int    `json:"license_id"`
	OrganizationID        string `json:"organization_id,omitempty"`
	Copyright             string `json:"copyright,omitempty"`
	PromotionalContent    string `json:"promotional_content,omitempty"`
	Info                  string `json:"info,omitempty"`
	PublisherURL          string `json:"publisher_url,omitempty"`
	// TextDirection is "ltr" or "rtl"; empty means derived from the
	// language's script.
	TextDirection string `json:"text_direction,omitempty"`
	// DBLID is the Digital Bible Library id of the bundle the Bible was
	// imported from, so that a re-import finds the same Bible.
	DBLID string `json:"dbl_id,omitempty"`
	// BookNames, when set (from a DBL bundle's metadata), name the books:
	// they replace the \toc3, \toc2 and \toc1 of the book's source.
	BookNames map[bible.BookID]BookName `json:"book_names,omitempty"`
	// Versification is how the Bible numbers its verses: one of
	// versification.Names, or versification.Custom with the scheme in
	// VRSFile beside bible.json. Empty is versification.Default.
	Versification string `json:"versification,omitempty"`
	// Numbering says which of the source's numbers the Bible is
	// published in: NumberingVerse (empty is the same), its \c and \v,
	// or NumberingAlternate, its \ca and \va (the UHB's Hebrew numbers
	// beside its English ones); the others show as alternate numbers.
	Numbering string `json:"numbering,omitempty"`
}

// numberingOf is m's numbering, NumberingVerse when it names none.
func numberingOf(m BibleMeta) string {
	if m.Numbering == "" {
		return NumberingVerse
	}
	return m.Numbering
}

// The values of BibleMeta.Numbering.
const (
	NumberingVerse     = "verse"
	NumberingAlternate = "alternate"
)

// renderOptions are how the Bible's books render.
func (m *BibleMeta) renderOptions(file string) render.Options {
	return render.Options{Language: m.LanguageTag, File: file, Alternate: m.Numbering == NumberingAlternate}
}

// VRSFile is the name of a Bible's own versification file in its folder
// of the content directory, as a DBL bundle names it.
const VRSFile = "versification.vrs"

// Scheme is the Bible's versification name, versification.Default when
// bible.json names none.
func (m *BibleMeta) Scheme() string {
	if m.Versification == "" {
		return versification.Default
	}
	return m.Versification
}

// loadScheme reads the versification of the Bible whose folder is dir: a
// standard scheme, or the folder's VRSFile for a custom one.
func (m *BibleMeta) loadScheme(dir string) (*versification.Scheme, error) {
	name := m.Scheme()
	if s, ok := versification.Standard(name); ok {
		return s, nil
	}
	p := filepath.Join(dir, VRSFile)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("bible %d: versification is %s: %w", m.ID, name, err)
	}
	s, _, err := versification.ParseVRS(p, versification.Custom, data)
	return s, err
}

// BookName is a book's names in the Bible's language.
type BookName struct {
	Abbreviation string `json:"abbreviation,omitempty"` // \toc3
	Short        string `json:"short,omitempty"`        // \toc2
	Long         string `json:"long,omitempty"`         // \toc1
}

// apply sets the book's headers from names.
func (n BookName) apply(headers map[string]string) {
	for k, v := range map[string]string{"toc3": n.Abbreviation, "toc2": n.Short, "toc1": n.Long} {
		if v != "" {
			headers[k] = v
		}
	}
}

// Validate checks the fields a Bible cannot be published without.
func (m *BibleMeta) Validate() error {
	var miss []string
	if m.ID <= 0 {
		miss = append(miss, "id (a positive integer)")
	}
	if m.Abbreviation == "" {
		miss = append(miss, "abbreviation")
	}
	if m.Title == "" {
		miss = append(miss, "title")
	}
	if _, err := language.Parse(m.LanguageTag); err != nil {
		miss = append(miss, fmt.Sprintf("language_tag (%q is not BCP 47)", m.LanguageTag))
	}
	if m.TextDirection != "" && m.TextDirection != "ltr" && m.TextDirection != "rtl" {
		miss = append(miss, "text_direction (ltr or rtl)")
	}
	if m.Versification != "" && !versification.Valid(m.Versification) {
		miss = append(miss, fmt.Sprintf("versification (%q is not one of %s or %s)", m.Versification, strings.Join(versification.Names, ", "), versification.Custom))
	}
	if m.Numbering != "" && m.Numbering != NumberingVerse && m.Numbering != NumberingAlternate {
		miss = append(miss, fmt.Sprintf("numbering (%q is not %s or %s)", m.Numbering, NumberingVerse, NumberingAlternate))
	}
	if len(miss) > 0 {
		return fmt.Errorf("bible %d: missing or bad %s", m.ID, strings.Join(miss, ", "))
	}
	return nil
}

// Override sets the non-empty fields of flags on m: flags given on the
// command line over a bundle's metadata or a --metadata file, and a new
// import over an earlier one.
func (m *BibleMeta) Override(flags BibleMeta) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	if flags.ID != 0 {
		m.ID = flags.ID
	}
	set(&m.Abbreviation, flags.Abbreviation)
	set(&m.Title, flags.Title)
	set(&m.LocalizedTitle, flags.LocalizedTitle)
	set(&m.LocalizedAbbreviation, flags.LocalizedAbbreviation)
	set(&m.LanguageTag, flags.LanguageTag)
	set(&m.OrganizationID, flags.OrganizationID)
	set(&m.Copyright, flags.Copyright)
	set(&m.PromotionalContent, flags.PromotionalContent)
	set(&m.Info, flags.Info)
	set(&m.PublisherURL, flags.PublisherURL)
	set(&m.TextDirection, flags.TextDirection)
	set(&m.DBLID, flags.DBLID)
	set(&m.Versification, flags.Versification)
	set(&m.Numbering, flags.Numbering)
	if flags.LicenseID != 0 {
		m.LicenseID = flags.LicenseID
	}
	if flags.BookNames != nil {
		m.BookNames = flags.BookNames
	}
}

// Direction is the Bible's text direction.
func (m *BibleMeta) Direction() string {
	if m.TextDirection != "" {
		return m.TextDirection
	}
	dir, _ := directionOf(m.LanguageTag)
	return dir
}

// rtlScripts are the ISO 15924 scripts written right to left that Bibles
// are published in.
var rtlScripts = map[string]bool{
	"Arab": true, "Hebr": true, "Syrc": true, "Thaa": true, "Nkoo": true, "Adlm": true,
	"Rohg": true, "Mand": true, "Samr": true, "Mend": true, "Yezi": true, "Armi": true,
}

// directionOf derives a text direction from a language tag: an explicit
// script first, then the language catalogue's direction for the language
// (CLDR, and the languages Bibles use that CLDR lacks, such as hbo), then
// the script x/text thinks likely. A language none of them knows is ltr
// unless bible.json says otherwise; import warns about it.
func directionOf(tag string) (dir string, known bool) {
	t, err := language.Parse(tag)
	if err != nil {
		return "ltr", false
	}
	if s, c := t.Script(); c == language.Exact {
		return scriptDirection(s.String()), true
	}
	if id, err := lang.Canonical(tag); err == nil {
		if l, ok := lang.Lookup(id); ok && l.TextDirection != "" {
			return l.TextDirection, true
		}
	}
	if s, c := t.Script(); c != language.No {
		return scriptDirection(s.String()), true
	}
	return "ltr", false
}

func scriptDirection(script string) string {
	if rtlScripts[script] {
		return "rtl"
	}
	return "ltr"
}

// Bible returns the API's Bible object for the given books. readerURL is
// the base of the operator's reader, to which the Bible id is appended for
// platform_deep_link.
func (m *BibleMeta) Bible(books []bible.BookID, readerURL string) bible.Bible {
	b := bible.Bible{
		ID: m.ID, Abbreviation: m.Abbreviation, PromotionalContent: m.PromotionalContent,
		Copyright: m.Copyright, Info: m.Info,
		LanguageTag: m.LanguageTag, LocalizedAbbreviation: m.LocalizedAbbreviation,
		LocalizedTitle: m.LocalizedTitle, Title: m.Title, Books: books,
		PlatformDeepLink: readerURL + strconv.Itoa(int(m.ID)),
		Versification:    m.Scheme(),
	}
	if m.PublisherURL != "" {
		b.PublisherURL = &m.PublisherURL
	}
	if b.LocalizedAbbreviation == "" {
		b.LocalizedAbbreviation = m.Abbreviation
	}
	if b.LocalizedTitle == "" {
		b.LocalizedTitle = m.Title
	}
	if b.Books == nil {
		b.Books = []bible.BookID{}
	}
	if m.OrganizationID != "" {
		id := m.OrganizationID
		b.OrganizationID = &id
	}
	return b
}

// ContentBible is one Bible found in a content directory.
type ContentBible struct {
	Dir    string
	Meta   BibleMeta
	Books  map[bible.BookID]string // book → file path
	Scheme *versification.Scheme   // how the Bible numbers its verses
}

// ReadBibles lists the Bibles in a content directory, by id.
func ReadBibles(content string) ([]*ContentBible, error) {
	bibles, bad, err := readBibles(content)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, bad[0].err
	}
	return bibles, nil
}

// unreadBible is a Bible folder that cannot be read: a bible.json that
// is not valid, a book in two files. A build leaves it as the previous
// build published it.
type unreadBible struct {
	id  int32 // from the folder's name; 0 if that is not a number
	dir string
	err error
}

// readBibles lists the Bibles in a content directory, by id, and the
// folders that cannot be read. Two folders of one id are an error.
func readBibles(content string) ([]*ContentBible, []unreadBible, error) {
	dirs, err := filepath.Glob(filepath.Join(content, "bibles", "*", "bible.json"))
	if err != nil {
		return nil, nil, err
	}
	var out []*ContentBible
	var bad []unreadBible
	for _, p := range dirs {
		cb, err := readBible(p)
		if err != nil {
			id, _ := strconv.ParseInt(filepath.Base(filepath.Dir(p)), 10, 32)
			bad = append(bad, unreadBible{id: int32(id), dir: filepath.Dir(p), err: err})
			continue
		}
		out = append(out, cb)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Meta.ID < out[j].Meta.ID })
	for i := 1; i < len(out); i++ {
		if out[i].Meta.ID == out[i-1].Meta.ID {
			return nil, nil, fmt.Errorf("bible id %d is used by %s and %s", out[i].Meta.ID, out[i-1].Dir, out[i].Dir)
		}
	}
	return out, bad, nil
}

// readBible reads the Bible whose bible.json is p.
func readBible(p string) (*ContentBible, error) {
	cb := &ContentBible{Dir: filepath.Dir(p), Books: map[bible.BookID]string{}}
	if err := readJSON(p, &cb.Meta); err != nil {
		return nil, err
	}
	if err := cb.Meta.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	var err error
	if cb.Scheme, err = cb.Meta.loadScheme(cb.Dir); err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(cb.Dir, "*.*"))
	for _, f := range files {
		id, _, ok := bookFile(filepath.Base(f))
		if !ok {
			continue
		}
		if other, dup := cb.Books[id]; dup {
			return nil, fmt.Errorf("%s: book %s is both %s and %s", cb.Dir, id, filepath.Base(other), filepath.Base(f))
		}
		cb.Books[id] = f
	}
	return cb, nil
}

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

func writeJSON(path string, v any) error {
	b, err := jsonBytes(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
