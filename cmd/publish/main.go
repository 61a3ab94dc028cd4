// Command publish is the content team's tool: import sources into a content
// directory, and build and publish them. The admin commands (apps, keys, licences,
// users, seed) belong to the dynamic binary, which owns that data.
package main

import "github.com/bibleplatform/platform/cmd/internal/command"

type cli struct {
	Import   importCmd   `cmd:"" help:"Import USFM or USX books (a folder, a .zip, one file) or a DBL text bundle into the content directory."`
	Remove   removeCmd   `cmd:"" help:"Remove books from a Bible of the content directory (dry run by default)."`
	Build    buildCmd    `cmd:"" help:"Render the content directory and publish it to a store."`
	Builds   buildsCmd   `cmd:"" help:"List the builds in a store, newest first; * marks the current one."`
	Rollback rollbackCmd `cmd:"" help:"Make an earlier build current again."`
	GC       gcCmd       `cmd:"" name:"gc" help:"Remove builds beyond the newest few and the objects only they use (dry run by default)."`
	Lease    leaseCmd    `cmd:"" help:"Show who holds the store's writer lease, or break a stale one."`

	Organizations organizationsCmd `cmd:"" help:"Organizations (publishers) of the content directory."`
	Licenses      licensesCmd      `cmd:"" help:"Licences of the content directory."`

	movedCmds `embed:""`
}

func main() {
	var c cli
	command.Main("publish", "Import, build and publish Bible content.", &c)
}
