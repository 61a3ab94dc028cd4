package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/internal/repotest"
)

// vocabulary is the package that holds every text a client reads in an
// error answer of either service, and the rules of 422 entries
// (STYLE.md: one error vocabulary for both services).
const vocabulary = module + "wire/problem"

// No handler of the edge or of dynamic spells a client message: every
// problem.Text the services answer with comes from wire/problem, where
// each is written once, so that the same mistake reads the same from
// both and no text drifts from its twin. A string literal that becomes a
// problem.Text, or a conversion to problem.Text, outside wire/problem is
// a message spelled in place.
func TestNoInlineClientMessages(t *testing.T) {
	root := repotest.Root(t)
	patterns := []string{"./edge/...", "./dynamic/..."}
	imp := exportImporter(t, root, patterns...)
	cmd := exec.Command("go", append([]string{"list", "-f", `{{.ImportPath}}|{{.Dir}}|{{join .GoFiles ","}}`}, patterns...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, rest, _ := strings.Cut(line, "|")
		dir, names, _ := strings.Cut(rest, "|")
		if names == "" {
			continue
		}
		fset := token.NewFileSet()
		var files []*ast.File
		for _, n := range strings.Split(names, ",") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		for _, v := range inlineMessages(t, fset, path, files, imp) {
			rel, _ := filepath.Rel(root, v)
			t.Error(rel)
		}
		checked++
	}
	if checked < 2 {
		t.Fatalf("checked %d packages; the edge and dynamic were not found", checked)
	}
}

// The check finds what it is meant to find: literals handed to a
// problem.Text parameter, put in a Detail's Msg, hidden in a local
// constant or converted, and no vocabulary call.
func TestInlineMessageCheckFails(t *testing.T) {
	src := `package edge
import "github.com/bibleplatform/platform/wire/problem"
func answer(k problem.Kind, m problem.Text) {}
const hidden problem.Text = "Hidden away."
func f(id string) {
	answer(problem.NotFound, "Bible not found.")
	answer(problem.NotFound, problem.Text("No app " + id))
	answer(problem.NotFound, hidden)
	_ = problem.Detail{Loc: []string{"query", "x"}, Msg: "Field required", Type: "missing"}
	answer(problem.NotFound, problem.NoRoute)
	answer(problem.NotFound, problem.BibleNotFound(7))
	_ = problem.OneOf([]string{"text", "html"}, "query", "format")
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	imp := exportImporter(t, repotest.Root(t), "./wire/problem")
	got := inlineMessages(t, fset, "example/edge", []*ast.File{f}, imp)
	if len(got) != 4 {
		t.Errorf("found %d inline messages, want 4: %q", len(got), got)
	}
}

// inlineMessages lists the places in files (package path) that make a
// problem.Text of their own.
func inlineMessages(t *testing.T, fset *token.FileSet, path string, files []*ast.File, imp types.Importer) []string {
	t.Helper()
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{Importer: imp}).Check(path, fset, files, info); err != nil {
		t.Fatalf("type-check %s: %v", path, err)
	}
	isText := func(typ types.Type) bool {
		named, ok := types.Unalias(typ).(*types.Named)
		return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == vocabulary && named.Obj().Name() == "Text"
	}
	var out []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				// A constant takes the type it is converted to: a
				// literal of type problem.Text is a message spelled here.
				// "" is the absence of a message, not one.
				if tv, ok := info.Types[n]; ok && n.Kind == token.STRING && n.Value != `""` && isText(tv.Type) {
					out = append(out, fmt.Sprintf("%s: the client message %s is spelled in place; name it in wire/problem", fset.Position(n.Pos()), n.Value))
				}
			case *ast.CallExpr:
				if tv, ok := info.Types[n.Fun]; ok && tv.IsType() && isText(tv.Type) {
					out = append(out, fmt.Sprintf("%s: a client message is built in place (a conversion to problem.Text); build it in wire/problem", fset.Position(n.Pos())))
				}
			}
			return true
		})
	}
	sort.Strings(out)
	return out
}
