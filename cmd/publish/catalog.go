package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/build/licensehtml"
	"github.com/bibleplatform/platform/publish"
)

// Content-directory catalogue commands: licences and organizations are
// files of the content directory (not rows of PostgreSQL), written here so
// that nobody writes their JSON by hand.

type organizationsCmd struct {
	Add organizationsAddCmd `cmd:"" help:"Add an organization (publisher) to the content directory."`
}

type organizationsAddCmd struct {
	Content     string            `help:"Content directory." default:"content" env:"CONTENT" type:"path"`
	ID          string            `name:"id" help:"The organization's uuid (a new one by default)."`
	Language    string            `help:"Its primary language (BCP 47)." default:"en"`
	Name        map[string]string `help:"Its name per language, e.g. --name en='Bible Society' --name es='Sociedad Bíblica'." required:""`
	Description map[string]string `help:"Its description per language."`
	Email       string            `help:"Contact email."`
	Phone       string            `help:"Contact phone."`
	Website     string            `help:"Website URL."`
	Replace     bool              `help:"Replace an organization with the same id."`

	out io.Writer `kong:"-"`
}

func (c *organizationsAddCmd) Run() error {
	o := build.Organization{ID: c.ID, PrimaryLanguage: c.Language, Names: c.Name, Descriptions: c.Description,
		Email: optional(c.Email), Phone: optional(c.Phone), WebsiteURL: optional(c.Website)}
	id, err := build.AddOrganization(c.Content, o, c.Replace)
	if err != nil {
		return err
	}
	fmt.Fprintf(writerOr(c.out), "organization %s written to %s/organizations/%s.json\n", id, c.Content, id)
	return nil
}

type licensesCmd struct {
	Add licenseAddCmd `cmd:"" help:"Add a licence to the content directory."`
	// Agreements to licences are the dynamic service's data.
	Agree movedCmd `cmd:"" hidden:"" passthrough:"all" help:"Moved to dynamic licenses agree."`
}

type licenseAddCmd struct {
	Content      string `help:"Content directory." default:"content" env:"CONTENT" type:"path"`
	ID           int    `name:"id" help:"Licence id (the next free one by default)."`
	Name         string `help:"The licence's name." required:""`
	Version      int    `help:"Its version." default:"1"`
	Organization string `help:"The organization (uuid) that grants it; it must exist (publish organizations add)." required:""`
	URI          string `name:"uri" help:"Where the licence is published."`
	Open         bool   `help:"Open licence: every app may read its Bibles without an agreement (public domain, CC BY…)."`
	Text         string `help:"A file with the licence's text as HTML (licenses/<id>.html): text structure, tables and https/http/mailto links only (docs/import.md)." type:"existingfile"`
	Replace      bool   `help:"Replace a licence with the same id."`

	out io.Writer `kong:"-"`
}

func (c *licenseAddCmd) Run() error {
	var text string
	if c.Text != "" {
		b, err := os.ReadFile(c.Text)
		if err != nil {
			return err
		}
		// Leading white space is kept, so that the lines the check names
		// are the file's.
		text = strings.TrimRightFunc(string(b), unicode.IsSpace)
	}
	l := publish.License{ID: c.ID, Name: c.Name, Version: c.Version, OrganizationID: c.Organization, URI: c.URI, Open: c.Open}
	id, err := build.AddLicense(c.Content, l, text, c.Replace)
	if bad := (*licensehtml.Error)(nil); errors.As(err, &bad) {
		return fmt.Errorf("--text %s: %w", c.Text, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(writerOr(c.out), "licence %d written to %s/licenses/%d.json\n", id, c.Content, id)
	return nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func writerOr(w io.Writer) io.Writer {
	if w == nil {
		return os.Stdout
	}
	return w
}
