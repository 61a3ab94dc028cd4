// Command publish is the content team's tool: import sources into a content
// directory, build and publish them, and administer apps and keys.
package main

import "github.com/bibleplatform/platform/cmd/internal/command"

type cli struct {
	Import   importCmd   `cmd:"" help:"Import USFM or USX books (a folder, a .zip, one file) or a DBL text bundle into the content directory."`
	Build    buildCmd    `cmd:"" help:"Render the content directory and publish it to a store."`
	Builds   buildsCmd   `cmd:"" help:"List the builds in a store, newest first; * marks the current one."`
	Rollback rollbackCmd `cmd:"" help:"Make an earlier build current again."`
	GC       gcCmd       `cmd:"" name:"gc" help:"Remove builds beyond the newest few and the objects only they use (dry run by default)."`

	Organizations organizationsCmd `cmd:"" help:"Organizations (publishers) of the content directory."`
	// License is "publish license add" while "publish licenses" is still
	// the admin command that records licence agreements in PostgreSQL.
	License licenseCmd `cmd:"" help:"Licences of the content directory."`

	adminCmds `embed:""`
}

func main() {
	var c cli
	command.Main("publish", "Import, build and publish Bible content.", &c, nil)
}
