// Package command is what every command's main does: parse the flags with kong,
// run the chosen command with a context that SIGINT and SIGTERM cancel and a
// logger bound, and exit 1 with the error on failure.
package command

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/bibleplatform/platform/internal/logbuf"
)

// Logging is the log flags of a long-running command; embed it in the
// command's root with its environment prefix:
//
//	command.Logging `embed:"" envprefix:"EDGE_"`
type Logging struct {
	LogLevel  slog.Level `help:"Log level (debug, info, warn, error)." default:"info" env:"LOG_LEVEL"`
	LogFormat string     `help:"Log format: json (one object a line, for log collectors) or text (key=value, for people)." enum:"json,text" default:"json" env:"LOG_FORMAT"`
}

func (l *Logging) logging() *Logging { return l }

// Main parses the command line into root and runs it. When root embeds
// Logging, the logger follows its flags; otherwise it logs JSON at info.
// opts are the command's own kong options (variables for its defaults).
func Main(name, description string, root any, opts ...kong.Option) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	parser, err := kong.New(root, append([]kong.Option{kong.Name(name), kong.Description(description),
		kong.BindTo(ctx, (*context.Context)(nil))}, opts...)...)
	if err != nil {
		panic(err) // the command's own flag declarations are wrong
	}
	k, err := parser.Parse(os.Args[1:])
	if err != nil {
		os.Exit(usageError(os.Stderr, name, err))
	}
	lg := &Logging{LogLevel: slog.LevelInfo, LogFormat: "json"}
	if l, ok := root.(interface{ logging() *Logging }); ok {
		lg = l.logging()
	}
	// The flags too, for a command that makes a second logger of the same
	// kind (the edge's access log).
	log := NewLogger(os.Stderr, lg)
	// Libraries that log through slog's default (the OpenID provider logs
	// refused authorization requests) write as the command does, redacted.
	slog.SetDefault(log)
	k.Bind(log, lg)
	if err := k.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		stop()
		os.Exit(1)
	}
}

// usageError prints a command-line mistake the way people read it: the
// error (with kong's "did you mean" when it has one) and where to find the
// usage, rather than the whole usage before the one line that matters. It
// returns the exit status, 2 as for any usage error.
func usageError(w io.Writer, name string, err error) int {
	fmt.Fprintf(w, "%s: error: %v\n", name, err)
	help := name + " --help"
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		if cmd := strings.TrimSpace(pe.Context.Command()); cmd != "" {
			help = name + " " + cmd + " --help"
		}
	}
	fmt.Fprintf(w, "Run %q for usage.\n", help)
	return 2
}

// NewLogger is a logger writing to w in the format and from the level l
// says: the one Main binds (to standard error), or another of the same
// kind, such as the edge's buffered access log.
func NewLogger(w io.Writer, l *Logging) *slog.Logger {
	opts := &slog.HandlerOptions{Level: l.LogLevel, ReplaceAttr: redact}
	if l.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// NewAccessLog is a logger of l's kind for a service's access log: its
// lines gather in memory and reach standard error in batches (every
// 100 ms, or 64 KiB), since one write(2) a request for its log line cost
// as much CPU as answering it. Lines of the last 100 ms are lost if the
// process is killed; call close at shutdown to write them out.
func NewAccessLog(l *Logging) (log *slog.Logger, close func() error) {
	w := logbuf.New(os.Stderr, 64<<10, 100*time.Millisecond)
	return NewLogger(w, l), w.Close
}

// SetMemoryLimit gives the Go runtime the soft memory limit limit (bytes),
// unless the GOMEMLIMIT environment variable sets one: an operator's
// setting wins over the command's own estimate. It reports whether it set
// the limit.
func SetMemoryLimit(limit int64) bool {
	if os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetMemoryLimit(limit)
	return true
}

// credentialAttrs name log attributes whose values are credentials, as the
// OpenID provider names the fields of the requests it logs: an App Key
// (the OAuth client_id), codes and tokens, passwords.
var credentialAttrs = map[string]bool{"client_id": true, "code": true, "code_verifier": true,
	"refresh_token": true, "access_token": true, "id_token": true, "password": true}

// redact replaces a credential's value, in any group, by the first bytes of
// its SHA-256: lines about one key or token still match, and no log
// carries what a reader of it could use.
func redact(_ []string, a slog.Attr) slog.Attr {
	if credentialAttrs[a.Key] && a.Value.Kind() == slog.KindString && a.Value.String() != "" {
		sum := sha256.Sum256([]byte(a.Value.String()))
		a.Value = slog.StringValue("sha256:" + hex.EncodeToString(sum[:4]))
	}
	return a
}
