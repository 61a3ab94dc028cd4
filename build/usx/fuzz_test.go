package usx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/build/render"
	"github.com/bibleplatform/platform/build/usfm"
	"github.com/bibleplatform/platform/internal/repotest"
)

// FuzzParse checks that Parse never panics, that its errors are Diags
// inside the input, and that what it returns renders without a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`<usx version="3.0"><book code="GEN" style="id">x</book><chapter number="1" style="c"/><para style="p"><verse number="1" style="v"/>In <char style="w" strong="H1">the</char> beginning<note caller="+" style="f"><char style="ft">n</char></note></para></usx>`,
		`<usx><book code="PSA"/><chapter number="3"/><para style="d">Title <verse number="1"/>x</para><table><row><cell style="tc1"><verse number="2"/>a</cell></row></table></usx>`,
		`<usx><book code="JHN"/><chapter number="three"/><para style="s">h<verse number="7And"/></para></usx>`,
	} {
		f.Add([]byte(s))
	}
	if root, err := repotest.FindShared("bibles", "usfm-tests", "tcdocs", "tests"); err == nil {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "origin.xml" {
				if b, err := os.ReadFile(path); err == nil && len(b) <= 16<<10 {
					f.Add(b)
				}
			}
			return nil
		})
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		book, err := Parse("fuzz", src)
		lines := strings.Count(string(src), "\n") + 1
		if err != nil {
			var d usfm.Diag
			if !errors.As(err, &d) {
				t.Fatalf("error %T is not a Diag: %v", err, err)
			}
			if d.Pos.Line < 1 || d.Pos.Line > lines || d.File != "fuzz" {
				t.Fatalf("error outside the input: %v", err)
			}
			return
		}
		if !usfm.ValidBookCode(book.ID) {
			t.Fatalf("book ID %q", book.ID)
		}
		for _, w := range book.Warnings {
			if w.Pos.Line < 1 || w.Pos.Line > lines {
				t.Fatalf("warning outside the input: %v", w)
			}
		}
		render.Render(book, render.Options{File: "fuzz"})
	})
}
