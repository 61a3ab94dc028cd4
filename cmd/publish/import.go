package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/versification"
)

type importCmd struct {
	Content               string `help:"Content directory." default:"content" env:"CONTENT" type:"path"`
	ID                    int32  `name:"id" help:"Bible id. Required, except for a DBL bundle (its earlier import's id, or the next free one)."`
	Language              string `help:"BCP 47 language tag of the text. Required unless --metadata, a DBL bundle or an earlier import of this Bible gives it."`
	Abbreviation          string `help:"Abbreviation. Required unless --metadata, a DBL bundle or an earlier import of this Bible gives it."`
	Title                 string `help:"English title. Required unless --metadata, a DBL bundle or an earlier import of this Bible gives it."`
	LocalizedTitle        string `help:"Title in the Bible's language."`
	LocalizedAbbreviation string `help:"Abbreviation in the Bible's language."`
	License               int    `help:"Licence id (content/licenses/<id>.json; see publish licenses add)."`
	Organization          string `help:"Publishing organization's uuid (content/organizations/<uuid>.json; see publish organizations add)."`
	Copyright             string `help:"Short copyright text."`
	Promotional           string `name:"promotional-content" help:"Longer copyright text from the publisher."`
	Info                  string `help:"Extra information, shown in a reader's footer."`
	PublisherURL          string `name:"publisher-url" help:"Link to the publisher's page."`
	Direction             string `help:"Text direction (ltr, rtl); derived from the language by default." enum:",ltr,rtl" default:""`
	Versification         string `help:"How the source numbers its verses: org, eng, lxx, vul, rsc, rso, or a Paratext .vrs file (kept with the Bible unless it is one of those). Default: a DBL bundle's versification.vrs, else an earlier import's, else eng."`
	Numbering             string `help:"Which of the source's numbers to publish: verse (its \\c and \\v) or alternate (its \\ca and \\va, such as the UHB's Hebrew numbers beside its English ones; name their scheme with --versification). Default: an earlier import's, else verse." enum:",verse,alternate" default:""`
	Metadata              string `help:"A bible.json to start from; flags override its fields." type:"existingfile"`
	AllowDamaged          bool   `name:"allow-damaged" help:"Import books with damaged structure (bad chapter or verse numbers, lost verses, text with no verse) instead of refusing them."`
	Check                 bool   `help:"Read and report only; write nothing (and say what would be removed)."`
	ReplaceAll            bool   `name:"replace-all" help:"Remove the books of the Bible that the source does not have (without it, the source's books are added or replaced and the others kept)."`
	Replace               bool   `help:"Import a source whose title, abbreviation, language, DBL id or text differs from the Bible already at this id."`
	Source                string `arg:"" help:"A folder of .usfm/.sfm/.usx(.gz) files, a .zip of them, one file, or a DBL text bundle (folder or .zip with metadata.xml)." type:"path"`

	out io.Writer `kong:"-"`
}

func (c *importCmd) Run() error {
	out := c.out
	if out == nil {
		out = os.Stdout
	}
	var meta build.BibleMeta
	if c.Metadata != "" {
		b, err := os.ReadFile(c.Metadata)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			return fmt.Errorf("%s: %w", c.Metadata, err)
		}
	}
	meta.Override(build.BibleMeta{
		ID: c.ID, LanguageTag: c.Language, Abbreviation: c.Abbreviation, Title: c.Title,
		LocalizedTitle: c.LocalizedTitle, LocalizedAbbreviation: c.LocalizedAbbreviation,
		OrganizationID: c.Organization, Copyright: c.Copyright, PromotionalContent: c.Promotional,
		Info: c.Info, PublisherURL: c.PublisherURL, TextDirection: c.Direction, LicenseID: c.License,
		Numbering: c.Numbering,
	})
	opt := build.ImportOptions{AllowDamaged: c.AllowDamaged, Check: c.Check, ReplaceAll: c.ReplaceAll, Replace: c.Replace}
	if err := c.versification(&meta, &opt); err != nil {
		return err
	}
	rep, err := build.Import(c.Content, c.Source, meta, opt)
	if rep != nil {
		printImport(out, os.Stderr, rep, c.Check, err != nil)
	}
	if err != nil {
		return err
	}
	switch {
	case rep.Failed() && c.Check:
		return fmt.Errorf("%d books would be refused, %d files could not be read", len(rep.Refused), rep.Unreadable)
	case rep.Failed():
		return fmt.Errorf("%d books refused (earlier copies kept), %d files could not be read; the other books were imported", len(rep.Refused), rep.Unreadable)
	}
	return nil
}

// versification reads --versification: a scheme's name, or a .vrs file.
func (c *importCmd) versification(meta *build.BibleMeta, opt *build.ImportOptions) error {
	switch v := c.Versification; {
	case v == "":
	case versification.Valid(v):
		meta.Versification = v
	default:
		data, err := os.ReadFile(v)
		if err != nil {
			return fmt.Errorf("--versification %s: neither one of %s nor a readable .vrs file: %w", v, strings.Join(versification.Names, ", "), err)
		}
		opt.VRS, opt.VRSName = data, v
	}
	return nil
}

// printImport writes the diagnostics to errw and the summary to out.
// refused says the import wrote nothing because of an error.
func printImport(out, errw io.Writer, rep *build.ImportReport, check, refused bool) {
	for _, w := range rep.Warnings {
		fmt.Fprintln(errw, "warning:", w)
	}
	for _, e := range rep.Errors {
		fmt.Fprintln(errw, "error:", e)
	}
	if len(rep.Repairs) > 0 {
		classes := make([]string, 0, len(rep.Repairs))
		for c := range rep.Repairs {
			classes = append(classes, c)
		}
		sort.Strings(classes)
		parts := make([]string, len(classes))
		for i, c := range classes {
			parts[i] = fmt.Sprintf("%d × %s", rep.Repairs[c], c)
		}
		fmt.Fprintf(out, "repaired: %s\n", strings.Join(parts, "; "))
	}
	if len(rep.Refused) > 0 {
		fmt.Fprintf(out, "refused: %s (an earlier import's copy of each is kept; --allow-damaged imports damaged books anyway)\n", joinIDs(rep.Refused))
	}
	if len(rep.Damaged) > 0 {
		fmt.Fprintf(out, "imported with damage (--allow-damaged): %s\n", joinIDs(rep.Damaged))
	}
	switch {
	case len(rep.Removed) > 0 && check:
		fmt.Fprintf(out, "would remove (--replace-all): %s\n", joinIDs(rep.Removed))
	case len(rep.Removed) > 0:
		fmt.Fprintf(out, "removed (--replace-all): %s\n", joinIDs(rep.Removed))
	}
	if len(rep.Kept) > 0 {
		fmt.Fprintf(out, "kept, not in the source: %s (--replace-all removes them; publish remove removes some)\n", joinIDs(rep.Kept))
	}
	for _, c := range rep.Created {
		fmt.Fprintf(out, "wrote %s from the bundle's metadata\n", c)
	}
	verb := "imported"
	switch {
	case check:
		verb = "checked (nothing written)"
	case refused:
		verb = "refused (nothing written)"
	}
	removed := "removed"
	if check || refused {
		removed = "to remove"
	}
	fmt.Fprintf(out, "%s Bible %d: %d books, %d peripheral (%s), %d refused, %d kept, %d %s, %d errors, %d warnings\n",
		verb, rep.Bible, len(rep.Books), len(rep.Peripheral), joinIDs(rep.Peripheral), len(rep.Refused), len(rep.Kept), len(rep.Removed), removed, len(rep.Errors), len(rep.Warnings))
}
