package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/internal/repotest"
)

// architecturePage is the page whose package table and passage walk the
// tests below keep true.
const architecturePage = "docs/architecture.md"

func readArchitecture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repotest.Root(t), architecturePage))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var tableCell = regexp.MustCompile("`([^`]+)`")

// tablePackages are the packages the first cell of each row of the page's
// package table names.
func tablePackages(page string) []string {
	_, sec, _ := strings.Cut(page, "## Packages and what they own")
	sec, _, _ = strings.Cut(sec, "\n## ")
	var out []string
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		for _, m := range tableCell.FindAllStringSubmatch(first, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// Every package go list shows has a row in the architecture page's table,
// and every row names a package that exists.
func TestArchitecturePackageTable(t *testing.T) {
	listed := tablePackages(readArchitecture(t))
	if len(listed) == 0 {
		t.Fatalf("%s: no package table found", architecturePage)
	}
	var real []string
	for _, p := range listPackages(t) {
		real = append(real, strings.TrimPrefix(p.ImportPath, module))
	}
	for _, p := range real {
		if !slices.Contains(listed, p) {
			t.Errorf("%s: package %s has no row in the package table", architecturePage, p)
		}
	}
	for _, p := range listed {
		if !slices.Contains(real, p) {
			t.Errorf("%s: the package table names %s, which go list does not show", architecturePage, p)
		}
	}
}

// walkStep is one line of the page's passage walk.
type walkStep struct {
	depth           int
	pkg, recv, name string // edge.Server.Handler: edge, Server, Handler
	parent          int    // index of the calling step; -1 for the first
}

var walkLine = regexp.MustCompile("^( *)- `([a-z]+)\\.(?:([A-Za-z]+)\\.)?([A-Za-z]+)`")

func parseWalk(t *testing.T, page string) []walkStep {
	t.Helper()
	_, sec, ok := strings.Cut(page, "<!-- passage walk -->")
	sec, _, ok2 := strings.Cut(sec, "<!-- end passage walk -->")
	if !ok || !ok2 {
		t.Fatalf("%s: no passage walk between its markers", architecturePage)
	}
	var steps []walkStep
	for _, line := range strings.Split(sec, "\n") {
		m := walkLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := walkStep{depth: len(m[1]) / 2, pkg: m[2], recv: m[3], name: m[4], parent: -1}
		for i := len(steps) - 1; i >= 0; i-- {
			if steps[i].depth < s.depth {
				s.parent = i
				break
			}
		}
		steps = append(steps, s)
	}
	return steps
}

// walkDirs are the source directories of the packages a walk may name;
// a package not here (fasthttp) is outside the repository and only its
// call is checked.
var walkDirs = map[string]string{
	"edge": "edge", "authz": "edge/internal/authz", "represent": "edge/internal/represent",
	"respond": "edge/internal/respond", "conn": "edge/internal/conn", "packs": "edge/internal/packs",
	"cache": "edge/internal/cache", "content": "edge/internal/content", "bible": "bible", "publish": "publish",
}

// packageFiles parses the non-test Go files of the package in dir (an
// absolute path).
func packageFiles(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// findFunc finds the declaration of recv.name (or the function name) in
// dir's non-test files.
func findFunc(t *testing.T, fset *token.FileSet, dir, recv, name string) *ast.FuncDecl {
	t.Helper()
	for _, f := range packageFiles(t, fset, filepath.Join(repotest.Root(t), dir)) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name != name || (fd.Recv == nil) != (recv == "") {
				continue
			}
			if recv != "" && exprName(fd.Recv.List[0].Type) != recv {
				continue
			}
			return fd
		}
	}
	return nil
}

// calls reports whether fd, a function of package from, calls the
// walk's step s. A call is told by its form, not only by its name: a
// function of from itself is called bare (name), a function of another
// package through that package's name (pkg.Name), and a method on a value
// (x.Name, x not a package's name); so a function of one package does not
// stand for a method of the same name in another (represent.Serve for
// packs.Packs.Serve).
func calls(fd *ast.FuncDecl, from string, s walkStep) bool {
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || exprName(c.Fun) != s.name {
			return !found
		}
		// A package's name is an identifier the parser did not resolve
		// to a declaration (Obj nil).
		var qual string
		if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil && (walkDirs[id.Name] != "" || id.Name == "fasthttp") {
				qual = id.Name
			}
		}
		_, bare := c.Fun.(*ast.Ident)
		switch {
		case s.recv != "":
			found = !bare && qual == ""
		case s.pkg == from:
			found = bare
		default:
			found = qual == s.pkg
		}
		return !found
	})
	return found
}

// TestPassageWalk checks the architecture page's walk of a passage
// request, step by step, against the source, and prints it with -v.
func TestPassageWalk(t *testing.T) {
	steps := parseWalk(t, readArchitecture(t))
	if len(steps) < 3 {
		t.Fatalf("%s: the passage walk has %d steps", architecturePage, len(steps))
	}
	fset := token.NewFileSet()
	decls := make([]*ast.FuncDecl, len(steps))
	var roles []string
	for i, s := range steps {
		full := s.pkg + "." + s.name
		if s.recv != "" {
			full = s.pkg + "." + s.recv + "." + s.name
		}
		where := "(outside the repository)"
		if dir, ok := walkDirs[s.pkg]; ok {
			decls[i] = findFunc(t, fset, dir, s.recv, s.name)
			if decls[i] == nil {
				t.Errorf("step %d: %s is not declared in %s", i+1, full, dir)
				continue
			}
			p := fset.Position(decls[i].Pos())
			rel, _ := filepath.Rel(repotest.Root(t), p.Filename)
			where = filepath.ToSlash(rel) + ":" + strconv.Itoa(p.Line)
		}
		if s.parent >= 0 && decls[s.parent] != nil && !calls(decls[s.parent], steps[s.parent].pkg, s) {
			t.Errorf("step %d: %s does not call %s", i+1, steps[s.parent].name, full)
		}
		t.Logf("%2d %-10s %s%s  %s", i+1, s.pkg, strings.Repeat("  ", s.depth), full, where)
		// A step called by a step of its own role continues that role
		// (content calling its own helper after a call into bible):
		// only a call from another role enters one.
		continues := s.parent >= 0 && steps[s.parent].pkg == s.pkg
		if (len(roles) == 0 || roles[len(roles)-1] != s.pkg) && !continues {
			roles = append(roles, s.pkg)
		}
	}
	t.Logf("roles in order: %s", strings.Join(roles, " → "))
	// Each role once, in order: a return to a role already left means a
	// rule of that role is split across the path (issue: the licence check
	// outside the one authorisation entry point).
	seen := map[string]bool{}
	for _, r := range roles {
		if seen[r] {
			t.Errorf("the walk returns to %s: %s", r, strings.Join(roles, " → "))
		}
		seen[r] = true
	}
}
