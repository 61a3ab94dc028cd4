package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/bibleplatform/platform/cmd/internal/storeurl"
	"github.com/bibleplatform/platform/publish"
)

// withLease runs f holding the store's writer lease (publish.AcquireLease)
// and gives it up afterwards, even when ctx was cancelled.
func withLease(ctx context.Context, st publish.Store, op string, f func(l *publish.Lease) error) error {
	l, err := publish.AcquireLease(ctx, st, op)
	if err != nil {
		return err
	}
	ferr := f(l)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := l.Release(rctx); err != nil {
		err = fmt.Errorf("giving the store's lease up: %w", err)
		if ferr == nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "warning:", err)
	}
	return ferr
}

type leaseCmd struct {
	Store string `help:"The store: a directory or s3://…" default:".run/store" env:"STORE"`
	Break string `name:"break" placeholder:"TOKEN" help:"Break the lease with this token (shown by this command and in the refusal of a second writer): only when its holder is gone."`

	out io.Writer `kong:"-"`
}

func (c *leaseCmd) Run(ctx context.Context) error {
	out := c.out
	if out == nil {
		out = os.Stdout
	}
	st, err := storeurl.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	if c.Break != "" {
		info, err := publish.BreakLease(ctx, st, c.Break)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "broke the lease of %s; if that writer is still running, it will refuse to switch builds\n", info)
		return nil
	}
	info, err := publish.ReadLease(ctx, st)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(out, "nobody holds the store's lease")
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "held: %s (token %s)\n", info, info.Token)
	fmt.Fprintf(out, "if that writer is gone: publish lease --store %s --break %s\n", c.Store, info.Token)
	return nil
}
