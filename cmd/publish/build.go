package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/cmd/internal/storeurl"
	"github.com/bibleplatform/platform/publish"
)

type importCmd struct {
	Content               string `help:"Content directory." default:"content" env:"CONTENT" type:"path"`
	ID                    int32  `name:"id" help:"Bible id." required:""`
	Language              string `help:"BCP 47 language tag of the text."`
	Abbreviation          string `help:"Abbreviation."`
	Title                 string `help:"English title."`
	LocalizedTitle        string `help:"Title in the Bible's language."`
	LocalizedAbbreviation string `help:"Abbreviation in the Bible's language."`
	License               int    `help:"Licence id (content/licenses/<id>.json)."`
	Organization          string `help:"Publishing organization's uuid."`
	Copyright             string `help:"Short copyright text."`
	Promotional           string `name:"promotional-content" help:"Longer copyright text from the publisher."`
	Info                  string `help:"Extra information, shown in a reader's footer."`
	PublisherURL          string `name:"publisher-url" help:"Link to the publisher's page."`
	Direction             string `help:"Text direction (ltr, rtl); derived from the language by default." enum:",ltr,rtl" default:""`
	Metadata              string `help:"A bible.json to start from; flags override its fields." type:"existingfile"`
	Source                string `arg:"" help:"A folder of .usfm/.sfm(.gz) files, a .zip of them, or one file." type:"path"`
}

func (c *importCmd) Run() error {
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
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	meta.ID = c.ID
	set(&meta.LanguageTag, c.Language)
	set(&meta.Abbreviation, c.Abbreviation)
	set(&meta.Title, c.Title)
	set(&meta.LocalizedTitle, c.LocalizedTitle)
	set(&meta.LocalizedAbbreviation, c.LocalizedAbbreviation)
	set(&meta.OrganizationID, c.Organization)
	set(&meta.Copyright, c.Copyright)
	set(&meta.PromotionalContent, c.Promotional)
	set(&meta.Info, c.Info)
	set(&meta.PublisherURL, c.PublisherURL)
	set(&meta.TextDirection, c.Direction)
	if c.License != 0 {
		meta.LicenseID = c.License
	}
	rep, err := build.Import(c.Content, c.Source, meta)
	if rep != nil {
		for _, w := range rep.Warnings {
			fmt.Fprintln(os.Stderr, "warning:", w)
		}
		for _, e := range rep.Errors {
			fmt.Fprintln(os.Stderr, "error:", e)
		}
		fmt.Printf("imported Bible %d: %d books, %d peripheral (%s), %d errors, %d warnings\n",
			c.ID, len(rep.Books), len(rep.Peripheral), joinIDs(rep.Peripheral), len(rep.Errors), len(rep.Warnings))
	}
	if err != nil {
		return err
	}
	if len(rep.Errors) > 0 {
		return fmt.Errorf("%d source files could not be imported (the others were)", len(rep.Errors))
	}
	return nil
}

type buildCmd struct {
	Content   string `help:"Content directory." default:"content" env:"CONTENT" type:"path"`
	Store     string `help:"Where to publish: a directory or s3://bucket[/prefix]?endpoint=…" default:".run/store" env:"STORE"`
	ReaderURL string `name:"reader-url" help:"Base of platform_deep_link; the Bible id is appended." default:"https://read.bibleplatform.org/versions/" env:"READER_URL"`
	Workers   int    `help:"Books rendered in parallel (0: one per core)." default:"0"`
	Warnings  bool   `help:"Print every warning, not only their count."`
}

func (c *buildCmd) Run(ctx context.Context) error {
	st, err := storeurl.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	// Uploads run in parallel with retries; the build's switch to the new
	// build waits for all of them and is refused if any failed, so an
	// interrupted publish leaves the previous build current.
	up := publish.NewUploader(ctx, st, publish.SyncOptions{})
	bar := newProgress(os.Stderr)
	rep, err := build.Build(ctx, build.Options{
		Content: c.Content, Store: up, ReaderURL: c.ReaderURL, Workers: c.Workers, Progress: bar.update,
	})
	bar.done()
	if _, werr := up.Wait(ctx); err == nil {
		err = werr
	}
	if err != nil {
		return err
	}
	if c.Warnings {
		for _, w := range rep.Warnings {
			fmt.Fprintln(os.Stderr, "warning:", w)
		}
	}
	state := "now current"
	if !rep.Switched {
		state = "unchanged, already current"
	}
	fmt.Printf("uploads: %s\n", up.Report())
	fmt.Printf("build %s %s: %d objects written, %d skipped, %s written, %d books rendered, %d reused, %d warnings, %s\n",
		rep.Build, state, rep.Written, rep.Skipped, humanBytes(rep.Bytes), rep.Rendered, rep.Reused,
		len(rep.Warnings), rep.Duration.Round(time.Millisecond))
	fmt.Printf("search indexes: %d built in %s\n", rep.SearchBuilt, rep.Search.Round(time.Millisecond))
	return nil
}

func joinIDs[T ~string](ids []T) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, " ")
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// progress draws a bar on a terminal and nothing elsewhere.
type progress struct {
	mu   sync.Mutex
	w    io.Writer
	tty  bool
	last time.Time
}

func newProgress(f *os.File) *progress {
	fi, err := f.Stat()
	return &progress{w: f, tty: err == nil && fi.Mode()&os.ModeCharDevice != 0}
}

func (p *progress) update(done, total int) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if done < total && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	const width = 40
	n := width * done / max(total, 1)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d books", strings.Repeat("=", n), strings.Repeat(" ", width-n), done, total)
}

func (p *progress) done() {
	if p.tty && !p.last.IsZero() {
		fmt.Fprintln(p.w)
	}
}
