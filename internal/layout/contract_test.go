package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/internal/repotest"
	"github.com/bibleplatform/platform/wire"
)

// goFiles parses the non-test Go files under dir (relative to the
// repository root), comments included.
func goFiles(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	root := repotest.Root(t)
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The headers the edge sets for dynamic are spelled once, in wire: a
// service that wrote its own copy could drift from the other.
func TestForwardedHeadersOnlyInWire(t *testing.T) {
	names := map[string]bool{}
	for _, h := range []string{wire.HeaderVerifiedAppID, wire.HeaderEdgeToken,
		wire.HeaderForwardedFor, wire.HeaderForwardedProto, wire.HeaderForwardedHost, wire.HeaderRequestID} {
		names[strings.ToLower(h)] = true
	}
	for _, dir := range []string{"edge", "dynamic"} {
		for path, f := range goFiles(t, dir) {
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err == nil && names[strings.ToLower(s)] {
					t.Errorf("%s spells the header %q; use the constant in wire", path, s)
				}
				return true
			})
		}
	}
}

// clientWriters are the edge's functions and methods that put text in an
// answer, and the composite types that carry such text.
var clientWriters = map[string]bool{
	"Answer": true, "Message": true, "Invalid": true, "JSON": true,
	"SetBody": true, "SetBodyString": true, "AppendMessage": true, "AppendValidation": true,
	"Problem": true, "Fault": true, "Detail": true,
}

// TestNoClientMessageFromError checks that no answer of the edge is built
// from an error value: no argument of a function that writes an answer
// (and no field of a problem) calls Error() or names an error variable.
// An error's text can hold file paths, store keys, Go type names or
// PostgreSQL details; it goes to the log, and the client reads a message
// written for it (edge/internal/respond/failure.go).
func TestNoClientMessageFromError(t *testing.T) {
	for path, f := range goFiles(t, "edge") {
		ast.Inspect(f, func(n ast.Node) bool {
			var name string
			var args []ast.Expr
			switch x := n.(type) {
			case *ast.CallExpr:
				name, args = exprName(x.Fun), x.Args
			case *ast.CompositeLit:
				name = exprName(x.Type)
				for _, e := range x.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						e = kv.Value
					}
					args = append(args, e)
				}
			default:
				return true
			}
			if !clientWriters[name] {
				return true
			}
			for _, a := range args {
				ast.Inspect(a, func(m ast.Node) bool {
					switch y := m.(type) {
					case *ast.CallExpr:
						if exprName(y.Fun) == "Error" && len(y.Args) == 0 {
							t.Errorf("%s: %s's argument calls Error(): a client message built from an error", path, name)
						}
					case *ast.Ident:
						if l := strings.ToLower(y.Name); l == "err" || strings.HasPrefix(l, "err") && len(l) > 3 && y.Name[3] >= 'A' && y.Name[3] <= 'Z' || strings.HasSuffix(y.Name, "Err") {
							t.Errorf("%s: %s's argument names the error %s: a client message built from an error", path, name, y.Name)
						}
					}
					return true
				})
			}
			return true
		})
	}
}

// exprName is the name a call or type refers to: f, x.f, pkg.T, &T.
func exprName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.StarExpr:
		return exprName(x.X)
	case *ast.IndexExpr:
		return exprName(x.X)
	}
	return ""
}
