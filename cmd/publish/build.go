package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/bibleplatform/platform/build"
	"github.com/bibleplatform/platform/cmd/internal/command"
	"github.com/bibleplatform/platform/cmd/internal/storeurl"
	"github.com/bibleplatform/platform/publish"
)

type buildCmd struct {
	Content   string `help:"Content directory." default:"content" env:"CONTENT" type:"path"`
	Store     string `help:"Where to publish: a directory or s3://bucket[/prefix]?endpoint=…" default:".run/store" env:"STORE"`
	ReaderURL string `name:"reader-url" help:"Base of platform_deep_link; the Bible id is appended." default:"https://read.bibleplatform.org/versions/" env:"READER_URL"`
	Workers   int    `help:"Books rendered in parallel (0: one per core)." default:"0"`
	Warnings  bool   `help:"Print every warning, not only their count."`
	// The share is build.MaxShrink.
	AllowShrink bool `name:"allow-shrink" help:"Publish even when more than 10% of the current build's Bibles are not in the content directory."`
}

func (c *buildCmd) Run(ctx context.Context) error {
	st, err := storeurl.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	return withLease(ctx, st, "build", func(l *publish.Lease) error { return c.run(ctx, st, l) })
}

func (c *buildCmd) run(ctx context.Context, st publish.Store, l *publish.Lease) error {
	prevID, _ := st.Current(ctx)
	setMemoryLimit(ctx, st, prevID, c.Workers)
	// Uploads run in parallel with retries; the build's switch to the new
	// build waits for all of them and is refused if any failed, so an
	// interrupted publish leaves the previous build current. The switch
	// also checks that this build still holds the store's lease.
	up := publish.NewUploader(ctx, l.Guard(st), publish.SyncOptions{})
	bar := newProgress(os.Stderr)
	rep, err := build.Build(ctx, build.Options{
		Content: c.Content, Store: up, ReaderURL: c.ReaderURL, Workers: c.Workers, Progress: bar.update,
		AllowShrink: c.AllowShrink,
	})
	bar.done()
	if _, werr := up.Wait(ctx); err == nil {
		err = werr
	}
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(up.Report(), prevID)
		}
		return err
	}
	if rep.Switched {
		if err := publish.RecordSwitch(ctx, st, rep.Build, publish.SwitchBuild); err != nil {
			return fmt.Errorf("build %s is current, but the switch is not in the store's history (rollback may not find it): %w", rep.Build, err)
		}
	}
	if c.Warnings {
		for _, w := range rep.Warnings {
			fmt.Fprintln(os.Stderr, "warning:", w)
		}
	}
	if len(rep.Removed) > 0 && rep.Switched {
		fmt.Printf("removed from the catalogue (not in the content directory): Bibles %s\n", strings.Trim(fmt.Sprint(rep.Removed), "[]"))
	}
	fmt.Println(summary(rep, up.Report(), c.Warnings))
	fmt.Printf("search indexes: %d built in %s\n", rep.SearchBuilt, rep.Search.Round(time.Millisecond))
	return brokenBibles(os.Stderr, rep)
}

// setMemoryLimit gives the Go runtime the build's memory budget
// (build.MemoryBudget) as its soft limit, unless GOMEMLIMIT sets one.
func setMemoryLimit(ctx context.Context, st publish.Store, prevID string, workers int) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var manifest int64
	if prevID != "" {
		manifest, _ = st.Stat(ctx, publish.ManifestKey(prevID))
	}
	command.SetMemoryLimit(build.MemoryBudget(workers, manifest))
}

// summary is the build's one closing line. Objects are counted once: what
// the build wrote, and what it found unchanged in the store.
func summary(rep *build.Report, up publish.SyncReport, listed bool) string {
	state := "is now current"
	if !rep.Switched {
		state = "unchanged, already current"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "build %s %s: %d objects written (%s), %d unchanged; %d books rendered, %d reused; %d warnings",
		rep.Build, state, rep.Written, humanBytes(rep.Bytes), rep.Skipped, rep.Rendered, rep.Reused, len(rep.Warnings))
	if len(rep.Warnings) > 0 && !listed {
		b.WriteString(" (--warnings lists them)")
	}
	if rep.Volumes > 0 {
		fmt.Fprintf(&b, "; packs in %d new volume", rep.Volumes)
		if rep.Volumes > 1 {
			b.WriteByte('s')
		}
		if rep.Repacked > 0 {
			fmt.Fprintf(&b, ", %d of them moved from volumes mostly of packs no longer published", rep.Repacked)
		}
	}
	if up.Retries > 0 {
		fmt.Fprintf(&b, "; %d uploads retried", up.Retries)
	}
	fmt.Fprintf(&b, "; %s", rep.Duration.Round(time.Millisecond))
	return b.String()
}

// interrupted says what an interrupted build leaves behind: the objects
// that landed stay (they are content-addressed, so the next build reuses
// them instead of writing them again), and the current build is the one
// before.
func interrupted(up publish.SyncReport, prev string) error {
	cur := "there is still no current build"
	if prev != "" {
		cur = "build " + prev + " is still current"
	}
	return fmt.Errorf("interrupted: %s; the %d objects written (%s) are kept and the next build reuses them",
		cur, up.Uploaded, humanBytes(up.UploadedBytes))
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

// progress draws one bar on a terminal, and nothing elsewhere: the books
// done of all, the Bible being rendered, and the time left at the rate so
// far.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	start time.Time
	last  time.Time
	width int // of the last line, to clear it
}

func newProgress(f *os.File) *progress {
	fi, err := f.Stat()
	return &progress{w: f, tty: err == nil && fi.Mode()&os.ModeCharDevice != 0, start: time.Now()}
}

func (p *progress) update(b build.Progress) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if b.Done < b.Total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	line := progressLine(b, now.Sub(p.start))
	pad := max(p.width-len(line), 0)
	p.width = len(line)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
}

// progressLine is "[=====     ] 46/332 books  Bible 206 WEB  ETA 1m05s".
func progressLine(b build.Progress, elapsed time.Duration) string {
	const width = 30
	n := width * b.Done / max(b.Total, 1)
	eta := "ETA --"
	if b.Done >= b.Total {
		eta = "done in " + elapsed.Round(time.Second).String()
	} else if b.Done > 0 {
		left := time.Duration(float64(elapsed) / float64(b.Done) * float64(b.Total-b.Done))
		eta = "ETA " + left.Round(time.Second).String()
	}
	return fmt.Sprintf("[%s%s] %d/%d books  Bible %s  %s",
		strings.Repeat("=", n), strings.Repeat(" ", width-n), b.Done, b.Total, b.Bible, eta)
}

func (p *progress) done() {
	if p.tty && !p.last.IsZero() {
		fmt.Fprintln(p.w)
	}
}
