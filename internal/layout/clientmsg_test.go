package layout

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/internal/repotest"
)

// What dynamic writes to a client: the functions whose arguments become a
// body, and the struct fields that become one. Their arguments must not
// be built from an error value (STYLE.md: the client message is written
// for the client; the wrapped error goes to the log).
var (
	clientSinks = map[string]bool{"message": true, "validation": true, "writeBody": true, "writeJSON": true,
		"errorPage": true, "fault": true, "refuse": true}
	clientFields = map[string]map[string]bool{
		"problem.Detail":      {"Msg": true},
		"problem.Problem":     {"Text": true},
		"templates.ErrorPage": {"Title": true, "Message": true},
	}
)

// No client-facing message of dynamic is built from an error: every
// argument of a sink, and every message field of a body, is checked by
// type for an error value, an Error() call or a Go type name.
func TestNoErrorInClientMessages(t *testing.T) {
	root := repotest.Root(t)
	imp := exportImporter(t, root, "./dynamic")
	fset := token.NewFileSet()
	files := packageFiles(t, fset, filepath.Join(root, "dynamic"))
	for _, v := range clientMessageViolations(t, fset, "github.com/bibleplatform/platform/dynamic", files, imp) {
		t.Error(v)
	}
}

// The check finds what it is meant to find.
func TestClientMessageCheckFails(t *testing.T) {
	src := `package dynamic
import ("fmt"; "reflect")
func message(status int, msg string) {}
func refuse(kind int, msg string) {}
func f(err error) {
	message(400, "Bad: " + err.Error())
	message(400, fmt.Sprint(err))
	refuse(1, fmt.Sprintf("%v", err))
	refuse(1, fmt.Sprintf("%s", err))
	message(400, "Want " + reflect.TypeOf(err).String())
	message(400, "fine")
	refuse(1, "fine")
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := clientMessageViolations(t, fset, "example/dynamic", []*ast.File{f}, importer.Default())
	if len(got) != 5 {
		t.Errorf("found %d violations, want 5: %q", len(got), got)
	}
}

func clientMessageViolations(t *testing.T, fset *token.FileSet, path string, files []*ast.File, imp types.Importer) []string {
	t.Helper()
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: imp}).Check(path, fset, files, info); err != nil {
		t.Fatalf("type-check %s: %v", path, err)
	}
	errType := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	isError := func(x ast.Expr) bool {
		tv, ok := info.Types[x]
		return ok && tv.IsValue() && tv.Type != nil && types.Implements(tv.Type, errType)
	}
	// fromError reports where e turns an error into text: e is an error
	// itself, calls Error(), or hands an error to a parameter that is not
	// an error (fmt.Sprint's ...any). Reading an error's fields (a
	// MissingError's book) or passing it to a function that takes an
	// error (a classifier whose own bodies this check reads) is allowed.
	fromError := func(e ast.Expr) (bad ast.Node) {
		if isError(e) {
			return e
		}
		ast.Inspect(e, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if bad != nil || !ok {
				return bad == nil
			}
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && len(c.Args) == 0 {
				// Error() is the error's text; a reflect.Type's String or
				// Name is a Go type name ("struct { BibleID … }").
				recv := info.Types[sel.X].Type
				if sel.Sel.Name == "Error" || recv != nil && recv.String() == "reflect.Type" && (sel.Sel.Name == "String" || sel.Sel.Name == "Name") {
					bad = c
					return false
				}
			}
			sig, ok := info.Types[c.Fun].Type.(*types.Signature)
			if !ok {
				return true
			}
			for i, a := range c.Args {
				if !isError(a) {
					continue
				}
				var param types.Type
				switch {
				case sig.Variadic() && i >= sig.Params().Len()-1:
					param = sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice).Elem()
				case i < sig.Params().Len():
					param = sig.Params().At(i).Type()
				}
				if param == nil || !types.Implements(param, errType) {
					bad = a
					return false
				}
			}
			return true
		})
		return bad
	}
	var out []string
	report := func(n ast.Node, what string) {
		out = append(out, fmt.Sprintf("%s: %s is built from an error value or a Go type name", fset.Position(n.Pos()), what))
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				var id *ast.Ident
				switch fn := n.Fun.(type) {
				case *ast.Ident:
					id = fn
				case *ast.SelectorExpr:
					id = fn.Sel
				}
				if id == nil || !clientSinks[id.Name] {
					return true
				}
				if obj := info.Uses[id]; obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != path {
					return true
				}
				for _, a := range n.Args {
					if fromError(a) != nil {
						report(a, "an argument of "+id.Name)
					}
				}
			case *ast.CompositeLit:
				tv, ok := info.Types[n]
				if !ok {
					return true
				}
				named, ok := types.Unalias(tv.Type).(*types.Named)
				if !ok || named.Obj().Pkg() == nil {
					return true
				}
				name := named.Obj().Pkg().Name() + "." + named.Obj().Name()
				fields, ok := clientFields[name]
				if !ok {
					return true
				}
				for _, el := range n.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if k, ok := kv.Key.(*ast.Ident); ok && fields[k.Name] && fromError(kv.Value) != nil {
						report(kv.Value, name+"."+k.Name)
					}
				}
			}
			return true
		})
	}
	sort.Strings(out)
	return out
}

// exportImporter imports packages from the export data `go list -export`
// writes for the dependencies of pkgs, so the checks type-check the
// services without a dependency on x/tools.
func exportImporter(t *testing.T, root string, pkgs ...string) types.Importer {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}"}, pkgs...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if p, file, ok := strings.Cut(sc.Text(), " "); ok && file != "" {
			exports[p] = file
		}
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}
