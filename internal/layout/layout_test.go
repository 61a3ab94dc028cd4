// Package layout checks the import directions STYLE.md sets: the domain
// depends on nothing, publish on the domain only, the edge never reaches
// PostgreSQL, and each adapter (pgx, minio-go) is imported only by its own
// package and by cmd/ (pgx only by cmd/dynamic, which owns the data).
package layout

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/internal/repotest"
)

const module = "github.com/bibleplatform/platform/"

type pkg struct {
	ImportPath string
	Name       string
	Imports    []string // direct imports, tests excluded
	Deps       []string // everything below it
}

func listPackages(t *testing.T) []pkg {
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = repotest.Root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// standard reports whether path is in the standard library: only other
// modules have a dot in their first element (the standard library's own
// vendored modules, crypto/internal/fips140/v1.0.0, have one further on).
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func TestImportDirections(t *testing.T) {
	for _, p := range listPackages(t) {
		name := strings.TrimPrefix(p.ImportPath, module)
		for _, d := range p.Deps {
			dep := strings.TrimPrefix(d, module)
			local := dep != d
			switch {
			case name == "bible" && (local || !standard(d)):
				t.Errorf("bible must use the standard library only; it imports %s", d)
			case name == "versification" && (local && dep != "bible" || !local && !standard(d)):
				t.Errorf("versification uses the standard library and bible only; it imports %s", d)
			case strings.HasPrefix(name, "publish") && !strings.HasPrefix(name, "publish/s3") &&
				local && (strings.HasPrefix(dep, "build") || strings.HasPrefix(dep, "edge") || strings.HasPrefix(dep, "dynamic")):
				t.Errorf("%s is below build, edge and dynamic; it imports %s", name, dep)
			case strings.HasPrefix(d, "github.com/jackc/") && (name == "dynamic" || strings.HasPrefix(name, "cmd/") && name != "cmd/dynamic"):
				// The admin commands live in cmd/dynamic, so the publish
				// and edge binaries never link PostgreSQL's driver, and
				// the service's rules never depend on it.
				t.Errorf("of the binaries only dynamic links pgx, and package dynamic does not; %s depends on %s", name, d)
			case strings.HasPrefix(name, "edge") && (strings.HasPrefix(d, "github.com/jackc/") || strings.HasPrefix(dep, "dynamic") || strings.HasPrefix(dep, "build")):
				t.Errorf("the edge never reaches PostgreSQL or the build; %s imports %s", name, d)
			}
		}
		for _, d := range p.Imports {
			switch {
			case strings.HasPrefix(d, "github.com/jackc/") && !strings.HasPrefix(name, "dynamic/postgres") && name != "cmd/dynamic":
				t.Errorf("pgx is imported only by dynamic/postgres (and its test helpers) and cmd/dynamic; %s imports %s", name, d)
			case strings.HasPrefix(d, "github.com/minio/") && !strings.HasPrefix(name, "publish/s3") && !strings.HasPrefix(name, "cmd/"):
				t.Errorf("minio-go is imported only by publish/s3 and cmd/; %s imports %s", name, d)
			}
		}
	}
}
