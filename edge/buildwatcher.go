package edge

import (
	"context"
	"log/slog"
	"time"

	"github.com/bibleplatform/platform/edge/internal/outage"
	"github.com/bibleplatform/platform/publish"
)

// BuildWatcher follows the store's current pointer and swaps builds in.
type BuildWatcher struct {
	Store    publish.Store
	Server   *Server
	Interval time.Duration
	Log      *slog.Logger

	restoreTried bool // the saved build is read at most once per process
	follow       publish.Follower
	outage       outage.Log
}

// Check loads the current build if it is not the one being served. Its
// requests tell the server whether the store answers (readiness).
//
// When the store cannot be read and nothing is served yet (an edge
// starting during an outage), the build saved in the disk cache is
// served instead, and the error is still returned: later checks switch
// to the store's current build once it answers.
func (w *BuildWatcher) Check(ctx context.Context) error {
	err := w.check(ctx)
	if err != nil && !publish.IsNotExist(err) && ctx.Err() == nil && !w.restoreTried {
		w.restoreTried = true
		if id, ok := w.Server.restoreBuild(); ok {
			w.Log.Warn("object store unreachable; serving the build saved in the disk cache until it answers", "build", id, "err", err)
		}
	}
	return err
}

func (w *BuildWatcher) check(ctx context.Context) error {
	w.follow.Store = w.Server.packs.Observe(w.Store)
	// The build served may have come from elsewhere (the disk cache's
	// saved copy): the follower compares the store's pointer with it.
	if cur := w.Server.site.Load(); cur != nil {
		if f := w.follow.Current(); f == nil || f.ID != cur.Build {
			w.follow.Keep(cur.Build, cur.Manifest)
		}
	}
	b, changed, err := w.follow.Check(ctx)
	if err != nil || !changed {
		return err
	}
	w.Server.SetBuild(b.ID, b.Manifest)
	w.Server.saveBuild(b.ID, b.Manifest)
	w.Log.Info("serving build", "build", b.ID, "bibles", len(b.Manifest.Bibles))
	return nil
}

// Run checks every Interval until ctx ends.
func (w *BuildWatcher) Run(ctx context.Context) {
	t := time.NewTicker(w.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := w.Check(ctx); err != nil && !publish.IsNotExist(err) {
				w.outage.Failed(w.Log, "build check failed; serving the previous build", "err", err)
			} else if ctx.Err() == nil {
				w.outage.OK(w.Log, "build check succeeds again")
			}
		}
	}
}
