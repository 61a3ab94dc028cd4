// Command publish is the content team's tool: import sources into a content
// directory, build and publish them, and administer apps and keys.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kong"
)

type cli struct {
	Import   importCmd   `cmd:"" help:"Import USFM (a folder, .usfm.gz files or a .zip) into the content directory."`
	Build    buildCmd    `cmd:"" help:"Render the content directory and publish it to a store."`
	Builds   buildsCmd   `cmd:"" help:"List the builds in a store, newest first; * marks the current one."`
	Rollback rollbackCmd `cmd:"" help:"Make an earlier build current again."`
	GC       gcCmd       `cmd:"" name:"gc" help:"Remove builds beyond the newest few and the objects only they use (dry run by default)."`

	adminCmds `embed:""`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var c cli
	k := kong.Parse(&c, kong.Name("publish"),
		kong.Description("Import, build and publish Bible content."),
		kong.BindTo(ctx, (*context.Context)(nil)), kong.UsageOnError())
	if err := k.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "publish:", err)
		os.Exit(1)
	}
}
