package usfm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/internal/repotest"
)

// FuzzParse checks that Parse never panics and that what it returns is
// sane: errors are Diags, every position is inside the input, the tree
// has the documented shape, and text is normalised.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"\\id GEN\n\\c 1\n\\p\n\\v 1 In the beginning \\w God|strong=\"H430\"\\w*\\f + \\fr 1.1 \\ft note\\f*",
		"\uFEFF\r\n\\id PSA x\r\n\\c 3\r\n\\d \\va 1\\va*\r\n\\q1 \\v 1 \\qs Selah\\qs*",
		"\\id NUM\n\\c 7\n\\tr \\th1 a \\thr2 b\n\\tr \\tc1 \\v 1 c",
		"\\id GEN\n\\c 1\n\\p \\v 1 \\zaln-s |x=\"1\"\\*\\w a\\w*\\zaln-e\\* \\fig c|src=\"x\"\\fig*",
		"\\id GEN\n\\c 1\n\\p \\v 1 a \\ b\n\\\\v 2 c\\",
		"\\id EST\n\\c 2\n\\p \\v 21 a \\f + \\fr 2:21 \\ft b \\xt c\\*d \\wj e \\+nd f\\* g\\* h",
	} {
		f.Add([]byte(s))
	}
	if shared, err := repotest.FindShared(); err == nil {
		root := filepath.Join(shared, "bibles", "usfm-tests", "tcdocs", "tests")
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "origin.usfm" {
				// Whole books make slow seeds: minimising them stalls the fuzzer.
				if b, err := os.ReadFile(path); err == nil && len(b) <= 16<<10 {
					f.Add(b)
				}
			}
			return nil
		})
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		book, err := Parse("fuzz", src)
		lines := strings.Split(string(src), "\n")
		inside := func(p Pos) bool {
			return p.Line >= 1 && p.Line <= len(lines) && p.Col >= 1 && p.Col <= len(lines[p.Line-1])+1
		}
		if err != nil {
			var d Diag
			if !errors.As(err, &d) {
				t.Fatalf("error %T is not a Diag: %v", err, err)
			}
			if !inside(d.Pos) || d.File != "fuzz" {
				t.Fatalf("error position %v outside the input: %v", d.Pos, err)
			}
			return
		}
		if !validCode(book.ID) {
			t.Fatalf("book ID %q", book.ID)
		}
		for _, w := range book.Warnings {
			if !inside(w.Pos) {
				t.Fatalf("warning outside the input: %v", w)
			}
		}
		if err := checkTree(book.Nodes, nil, inside); err != nil {
			t.Fatal(err)
		}
	})
}

// checkTree checks the shape the renderer relies on.
func checkTree(nodes []*Node, parent *Node, inside func(Pos) bool) error {
	for i, n := range nodes {
		if n == nil {
			return errors.New("nil node")
		}
		if !inside(n.Pos) {
			return fmt.Errorf("%v node at %v outside the input", n.Kind, n.Pos)
		}
		var ok bool
		switch n.Kind {
		case Para, Chapter, Table:
			ok = parent == nil
		case Row:
			ok = parent != nil && parent.Kind == Table
		case Cell:
			ok = parent != nil && parent.Kind == Row
		case Verse:
			ok = parent != nil && (parent.Kind == Para || parent.Kind == Cell)
		case Text, Char, Note:
			ok = parent != nil && parent.Kind != Table && parent.Kind != Row
		}
		if !ok {
			return fmt.Errorf("%v node at %v inside %v", n.Kind, n.Pos, parent)
		}
		switch n.Kind {
		case Chapter, Verse:
			if n.Number == "" {
				return fmt.Errorf("%v at %v without a number", n.Kind, n.Pos)
			}
		case Text:
			if n.Text == "" || strings.ContainsAny(n.Text, "\n\r\t") || strings.Contains(n.Text, "  ") {
				return fmt.Errorf("text %q at %v is not normalised", n.Text, n.Pos)
			}
			if i == 0 && parent.Kind != Char && parent.Kind != Note && n.Text[0] == ' ' {
				return fmt.Errorf("text %q at %v starts its block with a space", n.Text, n.Pos)
			}
			if i > 0 && nodes[i-1].Kind == Text {
				return fmt.Errorf("adjacent text nodes at %v", n.Pos)
			}
		}
		if n.Kind == Text && len(n.Children) > 0 {
			return fmt.Errorf("text node with children at %v", n.Pos)
		}
		if err := checkTree(n.Children, n, inside); err != nil {
			return err
		}
	}
	return nil
}
