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

	"github.com/bibleplatform/platform/access"
	"github.com/bibleplatform/platform/internal/repotest"
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

// The headers the edge sets for dynamic are spelled once, in access: a
// service that wrote its own copy could drift from the other.
func TestForwardedHeadersOnlyInAccess(t *testing.T) {
	names := map[string]bool{}
	for _, h := range []string{access.HeaderVerifiedAppID, access.HeaderEdgeToken,
		access.HeaderForwardedFor, access.HeaderForwardedProto, access.HeaderForwardedHost} {
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
					t.Errorf("%s spells the header %q; use the constant in access", path, s)
				}
				return true
			})
		}
	}
}
