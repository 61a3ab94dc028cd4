package build

import (
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build/licensehtml"
	"github.com/bibleplatform/platform/publish"
)

// Organization is organizations/<uuid>.json: the spec's Organization with
// its name and description in several languages.
type Organization struct {
	ID              string            `json:"id"`
	ParentID        *string           `json:"parent_organization_id"`
	PrimaryLanguage string            `json:"primary_language"`
	Names           map[string]string `json:"names"`
	Descriptions    map[string]string `json:"descriptions,omitempty"`
	Email           *string           `json:"email"`
	Phone           *string           `json:"phone"`
	WebsiteURL      *string           `json:"website_url"`
	Address         json.RawMessage   `json:"address"`
}

// AddOrganization writes organizations/<id>.json. An empty ID gets a new
// random uuid; an organization that exists already is refused unless
// replace. It returns the id.
func AddOrganization(content string, o Organization, replace bool) (string, error) {
	if o.ID == "" {
		o.ID = bible.NewUUID()
	}
	o.ID = strings.ToLower(o.ID)
	if !bible.ValidUUID(o.ID) {
		return "", fmt.Errorf("organization id %q is not a uuid", o.ID)
	}
	if o.PrimaryLanguage == "" || len(o.Names) == 0 || o.Names[o.PrimaryLanguage] == "" {
		return "", errors.New("an organization needs a primary language and a name in it")
	}
	if len(o.Address) == 0 {
		o.Address = json.RawMessage("null")
	}
	p := filepath.Join(content, "organizations", o.ID+".json")
	if _, err := os.Stat(p); err == nil && !replace {
		return "", fmt.Errorf("organization %s exists already (%s)", o.ID, p)
	}
	return o.ID, writeJSON(p, o)
}

// AddLicense writes licenses/<id>.json and, when text is not empty,
// licenses/<id>.html. An ID of 0 takes the next free id. The licence's
// organization must exist, and its text must be licence HTML
// (licensehtml.Check; the error is a *licensehtml.Error): otherwise
// nothing is written. It returns the id.
func AddLicense(content string, l publish.License, text string, replace bool) (int, error) {
	if l.Name == "" {
		return 0, errors.New("a licence needs a name")
	}
	if err := licensehtml.Check(text); err != nil {
		return 0, fmt.Errorf("licence %q: its text: %w", l.Name, err)
	}
	if l.Version == 0 {
		l.Version = 1
	}
	if err := organizationExists(content, l.OrganizationID); err != nil {
		return 0, fmt.Errorf("licence %q: %w", l.Name, err)
	}
	if l.ID == 0 {
		ids, err := licenseIDs(content)
		if err != nil {
			return 0, err
		}
		for _, id := range ids {
			l.ID = max(l.ID, id)
		}
		l.ID++
	}
	if l.ID < 0 {
		return 0, fmt.Errorf("licence id %d is not positive", l.ID)
	}
	p := filepath.Join(content, "licenses", strconv.Itoa(l.ID)+".json")
	if _, err := os.Stat(p); err == nil && !replace {
		return 0, fmt.Errorf("licence %d exists already (%s)", l.ID, p)
	}
	// The text lives in the .html file; bible_ids are filled in by the build.
	l.HTML, l.BibleIDs = "", nil
	data, err := jsonBytes(struct {
		ID             int    `json:"id"`
		Name           string `json:"name"`
		Version        int    `json:"version"`
		OrganizationID string `json:"organization_id"`
		URI            string `json:"uri"`
		Open           bool   `json:"open"`
	}{l.ID, l.Name, l.Version, l.OrganizationID, l.URI, l.Open})
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return 0, err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return 0, err
	}
	if text != "" {
		if err := os.WriteFile(strings.TrimSuffix(p, ".json")+".html", []byte(text+"\n"), 0o644); err != nil {
			return 0, err
		}
	}
	return l.ID, nil
}

func licenseIDs(content string) ([]int, error) {
	files, _ := filepath.Glob(filepath.Join(content, "licenses", "*.json"))
	var ids []int
	for _, p := range files {
		id, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(p), ".json"))
		if err != nil {
			return nil, fmt.Errorf("%s: a licence file is named by its numeric id", p)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func organizationExists(content, id string) error {
	if id == "" {
		return errors.New("no organization")
	}
	if !bible.ValidUUID(id) {
		return fmt.Errorf("organization id %q is not a uuid", id)
	}
	p := filepath.Join(content, "organizations", strings.ToLower(id)+".json")
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("organization %s does not exist (add it with publish organizations add, or write %s)", id, p)
	} else if err != nil {
		return err
	}
	return nil
}

// CheckReferences checks that what one Bible of a content directory
// refers to exists: its licence, and its organization and its licence's
// organization. The error names everything missing. A build leaves such a
// Bible as the previous build published it (withoutReferences).
func CheckReferences(content string, cb *ContentBible) error {
	var problems []string
	m := &cb.Meta
	lp := filepath.Join(content, "licenses", strconv.Itoa(m.LicenseID)+".json")
	var l publish.License
	switch err := readJSON(lp, &l); {
	case m.LicenseID <= 0:
		problems = append(problems, fmt.Sprintf("bible %d has no licence (license_id in %s; add one with publish licenses add and import with --license)", m.ID, filepath.Join(cb.Dir, "bible.json")))
	case errors.Is(err, fs.ErrNotExist):
		problems = append(problems, fmt.Sprintf("bible %d: licence %d does not exist (add it with publish licenses add, or write %s)", m.ID, m.LicenseID, lp))
	case err != nil:
		problems = append(problems, err.Error())
	case l.OrganizationID != "":
		if err := organizationExists(content, l.OrganizationID); err != nil {
			problems = append(problems, fmt.Sprintf("licence %d: %v", l.ID, err))
		}
	}
	if m.OrganizationID != "" {
		if err := organizationExists(content, m.OrganizationID); err != nil {
			problems = append(problems, fmt.Sprintf("bible %d: %v", m.ID, err))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// withoutReferences moves the Bibles whose licence or organization is
// missing (CheckReferences) from bibles to unread, so that they stay as the
// previous build published them while the others publish.
func withoutReferences(content string, bibles []*ContentBible, unread []unreadBible) ([]*ContentBible, []unreadBible) {
	ok := bibles[:0]
	for _, cb := range bibles {
		if err := CheckReferences(content, cb); err != nil {
			unread = append(unread, unreadBible{id: cb.Meta.ID, dir: cb.Dir, err: err})
			continue
		}
		ok = append(ok, cb)
	}
	return ok, unread
}

// nameUUID is a name-based (version 5 style, SHA-1) uuid: the same name
// gives the same id, so re-importing a bundle finds its organization.
func nameUUID(name string) string {
	h := sha1.Sum([]byte("bibleplatform organization\x00" + name))
	return bible.FormatUUID([16]byte(h[:16]), 5)
}

// paragraphsHTML turns plain text paragraphs into escaped <p> elements.
func paragraphsHTML(paras ...string) string {
	var b strings.Builder
	for _, p := range paras {
		if p = strings.TrimSpace(p); p != "" {
			b.WriteString("<p>" + html.EscapeString(p) + "</p>")
		}
	}
	return b.String()
}
