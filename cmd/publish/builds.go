package main

import (
	"context"
	"fmt"
	"time"

	"github.com/bibleplatform/platform/cmd/internal/storeurl"
	"github.com/bibleplatform/platform/publish"
)

type buildsCmd struct {
	Store string `help:"The store: a directory or s3://…" default:".run/store" env:"STORE"`
}

func (c *buildsCmd) Run(ctx context.Context) error {
	st, err := storeurl.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	bs, err := publish.Builds(ctx, st)
	if err != nil {
		return err
	}
	for _, b := range bs {
		mark := " "
		if b.Current {
			mark = "*"
		}
		fmt.Printf("%s %s  %s  %d packs  %s\n", mark, b.ID, b.Created.Format(time.RFC3339), b.Packs, humanBytes(b.Bytes))
	}
	return nil
}

type rollbackCmd struct {
	Store string `help:"The store: a directory or s3://…" default:".run/store" env:"STORE"`
	Build string `arg:"" optional:"" help:"Build to make current (default: the one before the current build)."`
}

func (c *rollbackCmd) Run(ctx context.Context) error {
	st, err := storeurl.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	return withLease(ctx, st, "rollback", func(l *publish.Lease) error {
		id, err := publish.Rollback(ctx, l.Guard(st), c.Build)
		if err != nil {
			return err
		}
		fmt.Printf("build %s is now current\n", id)
		return nil
	})
}

type gcCmd struct {
	Store   string `help:"The store: a directory or s3://…" default:".run/store" env:"STORE"`
	Keep    int    `help:"Newest builds to keep (the current one is always kept)." default:"5"`
	Delete  bool   `help:"Delete; without it, only say what would go."`
	Orphans bool   `help:"Also remove packs and volumes that no build names (never while someone publishes)."`
}

func (c *gcCmd) Run(ctx context.Context) error {
	st, err := storeurl.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	var rep publish.GCReport
	gc := func() error {
		rep, err = publish.GC(ctx, st, publish.GCOptions{Keep: c.Keep, Delete: c.Delete, Orphans: c.Orphans})
		return err
	}
	if c.Delete {
		// Deleting while a build runs could remove a pack it reuses.
		err = withLease(ctx, st, "gc", func(*publish.Lease) error { return gc() })
	} else {
		err = gc()
	}
	if err != nil {
		return err
	}
	verb := "would remove"
	if rep.Deleted {
		verb = "removed"
	}
	fmt.Printf("kept %d builds; %s %d builds and %d objects (%s), and %d temporary files of interrupted writes (%s)\n", len(rep.Kept), verb,
		len(rep.RemovedBuilds), rep.RemovedObjects, humanBytes(rep.RemovedBytes), rep.RemovedTemps, humanBytes(rep.RemovedTempBytes))
	if !rep.Deleted {
		fmt.Println("dry run: pass --delete to delete")
	}
	return nil
}
