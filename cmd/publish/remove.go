package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bibleplatform/platform/bible"
	"github.com/bibleplatform/platform/build"
)

type removeCmd struct {
	Content string   `help:"Content directory." default:"content" env:"CONTENT" type:"path"`
	ID      int32    `name:"id" required:"" help:"Bible id."`
	Delete  bool     `help:"Remove; without it, only say what would go."`
	Books   []string `arg:"" help:"USFM codes of the books to remove (e.g. TOB JDT)."`

	out io.Writer `kong:"-"`
}

func (c *removeCmd) Run() error {
	out := c.out
	if out == nil {
		out = os.Stdout
	}
	ids := make([]bible.BookID, len(c.Books))
	for i, b := range c.Books {
		ids[i] = bible.BookID(strings.ToUpper(b))
	}
	files, err := build.RemoveBooks(c.Content, c.ID, ids, !c.Delete)
	if err != nil {
		return err
	}
	verb := "would remove"
	if c.Delete {
		verb = "removed"
	}
	for _, f := range files {
		fmt.Fprintf(out, "%s %s\n", verb, f)
	}
	if !c.Delete {
		fmt.Fprintln(out, "dry run: pass --delete to remove; the next build publishes the Bible without them")
	}
	return nil
}
