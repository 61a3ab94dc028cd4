package layout

import (
	"bytes"
	"go/ast"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/internal/repotest"
)

// Bounds that keep the services a set of rooms: past them, a role has
// grown inside another's file or type and is due its own.
const (
	maxFileLines         = 600
	maxEdgeServerMethods = 25
)

// No Go file under edge/ or dynamic/, tests included, is over maxFileLines
// lines.
func TestServiceFileSize(t *testing.T) {
	root := repotest.Root(t)
	for _, dir := range []string{"edge", "dynamic"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if n := bytes.Count(b, []byte("\n")); n > maxFileLines {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s has %d lines, over %d: split it by role", rel, n, maxFileLines)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// edge.Server has at most maxEdgeServerMethods methods: it wires and
// dispatches; the routes' work is done by types that hold only what they
// use.
func TestEdgeServerMethods(t *testing.T) {
	var names []string
	for _, f := range goFiles(t, "edge") {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && exprName(fd.Recv.List[0].Type) == "Server" &&
				f.Name.Name == "edge" {
				names = append(names, fd.Name.Name)
			}
		}
	}
	if len(names) > maxEdgeServerMethods {
		t.Errorf("edge.Server has %d methods, over %d: %s", len(names), maxEdgeServerMethods, strings.Join(names, ", "))
	}
}
