package main

import (
	"context"
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
	return brokenBibles(os.Stderr, rep)
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
