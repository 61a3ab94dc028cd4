package main

import (
	"fmt"
	"strings"

	"github.com/alecthomas/kong"
)

// movedCmds are the admin commands publish used to carry. They write the
// dynamic service's PostgreSQL, so they live in the binary that owns that
// data; the old spellings say where they went and fail, so a script that
// still calls them stops instead of silently doing nothing.
type movedCmds struct {
	Apps  movedCmd `cmd:"" hidden:"" passthrough:"all" help:"Moved to dynamic apps."`
	Keys  movedCmd `cmd:"" hidden:"" passthrough:"all" help:"Moved to dynamic keys."`
	Users movedCmd `cmd:"" hidden:"" passthrough:"all" help:"Moved to dynamic users."`
	Seed  movedCmd `cmd:"" hidden:"" passthrough:"all" help:"Moved to dynamic seed."`
}

type movedCmd struct {
	Args []string `arg:"" optional:""`
}

func (c *movedCmd) Run(k *kong.Context) error {
	// "licenses agree" is a subcommand of a group publish still has.
	name := strings.TrimPrefix(k.Selected().FullPath(), k.Model.Name+" ")
	return fmt.Errorf("`publish %s` moved to the dynamic binary: run `dynamic %s` with the same flags", name, name)
}
