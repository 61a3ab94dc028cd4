// Package command is what every command's main does: parse the flags with kong,
// run the chosen command with a context that SIGINT and SIGTERM cancel and a
// JSON logger bound, and exit 1 with the error on failure.
package command

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kong"
)

// Main parses the command line into root and runs it. level, when not nil,
// is root's log-level flag, read once the flags are parsed.
func Main(name, description string, root any, level *slog.Level, opts ...kong.Option) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	k := kong.Parse(root, append([]kong.Option{kong.Name(name), kong.Description(description),
		kong.BindTo(ctx, (*context.Context)(nil)), kong.UsageOnError()}, opts...)...)
	hopts := &slog.HandlerOptions{}
	if level != nil {
		hopts.Level = *level
	}
	k.Bind(slog.New(slog.NewJSONHandler(os.Stderr, hopts)))
	if err := k.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		stop()
		os.Exit(1)
	}
}
