package layout

import (
	"slices"
	"strings"
	"testing"
)

// edgeRoles are the edge's role packages and the packages of this module
// each may import. A role is a room: what it may reach is listed here, so
// that a change to one shows what it can touch, and a new import between
// roles is a decision made in this table, not found later by grep. The
// edge package itself wires the roles and may import any of them; no role
// imports another that is not listed.
var edgeRoles = map[string][]string{
	"edge/internal/respond":   {"wire", "publish", "wire/problem"},
	"edge/internal/cache":     {"edge/internal/metrics"},
	"edge/internal/represent": {"edge/internal/cache", "edge/internal/respond", "publish"},
	"edge/internal/packs": {"edge/internal/cache", "edge/internal/metrics", "edge/internal/represent",
		"edge/internal/respond", "publish", "internal/atomicfile", "internal/diskread", "wire/problem"},
	"edge/internal/site":    {"edge/internal/cache", "edge/internal/packs", "edge/internal/represent", "bible", "publish"},
	"edge/internal/params":  {"edge/internal/respond"},
	"edge/internal/compose": {"edge/internal/cache", "edge/internal/represent", "edge/internal/respond", "publish", "wire/problem"},
	"edge/internal/content": {"edge/internal/authz", "edge/internal/cache", "edge/internal/compose", "edge/internal/packs",
		"edge/internal/params", "edge/internal/represent", "edge/internal/respond", "edge/internal/site", "bible", "publish", "wire/problem",
		"versification", "citation"},
	"edge/internal/paging": {"edge/internal/respond", "wire/problem"},
	"edge/internal/catalog": {"edge/internal/authz", "edge/internal/cache", "edge/internal/compose", "edge/internal/metrics",
		"edge/internal/packs", "edge/internal/paging", "edge/internal/params", "edge/internal/represent", "edge/internal/respond",
		"edge/internal/site", "bible", "lang", "publish", "wire", "wire/problem"},
	"edge/internal/searchapi": {"edge/internal/authz", "edge/internal/cache", "edge/internal/catalog", "edge/internal/compose",
		"edge/internal/metrics", "edge/internal/outage", "edge/internal/packs", "edge/internal/paging", "edge/internal/params",
		"edge/internal/represent", "edge/internal/respond", "edge/internal/site", "lang", "publish", "search", "topic", "trending", "wire", "wire/problem"},
	"edge/internal/dev":     {"edge/internal/compose", "edge/internal/represent", "edge/internal/respond", "openapi", "publish", "wire/problem"},
	"edge/internal/gateway": {"edge/internal/authz", "edge/internal/outage", "edge/internal/respond", "wire", "wire/problem"},
	"edge/internal/outage":  {},
	"edge/internal/conn":    {"edge/internal/respond", "wire"},
	"edge/internal/authz":   {"edge/internal/respond", "access", "wire", "wire/problem"},
	"edge/internal/metrics": {},
	"edge/internal/usage":   {"edge/internal/metrics", "bible", "wire"},
}

func TestEdgeRoleImports(t *testing.T) {
	for _, p := range listPackages(t) {
		name := strings.TrimPrefix(p.ImportPath, module)
		if !strings.HasPrefix(name, "edge/internal/") {
			continue
		}
		allowed, ok := edgeRoles[name]
		if !ok {
			t.Errorf("%s is not in edgeRoles: name what it may import (internal/layout/roles_test.go)", name)
			continue
		}
		for _, v := range edgeRoleViolations(name, allowed, p.Imports) {
			t.Error(v)
		}
	}
}

// edgeRoleViolations lists the imports of this module that role may not
// make.
func edgeRoleViolations(role string, allowed, imports []string) []string {
	var out []string
	for _, d := range imports {
		dep, ok := strings.CutPrefix(d, module)
		if !ok || slices.Contains(allowed, dep) {
			continue
		}
		out = append(out, role+" imports "+dep+", which edgeRoles does not allow it")
	}
	return out
}

// The check finds what it is meant to find.
func TestEdgeRoleCheckFails(t *testing.T) {
	got := edgeRoleViolations("edge/internal/respond", edgeRoles["edge/internal/respond"],
		[]string{"fmt", module + "wire", module + "edge/internal/authz", "github.com/valyala/fasthttp"})
	if len(got) != 1 || !strings.Contains(got[0], "edge/internal/authz") {
		t.Errorf("violations = %q, want respond importing authz alone", got)
	}
}

// No library package of dynamic depends on the edge: the two services meet
// only in the wire contract (wire) and the access snapshot (access), and dynamic must build and change
// without the edge. Programs (package main, benchmarks that drive both)
// and tests may use both.
func TestDynamicDoesNotImportEdge(t *testing.T) {
	for _, p := range listPackages(t) {
		name := strings.TrimPrefix(p.ImportPath, module)
		if !strings.HasPrefix(name, "dynamic") || p.Name == "main" {
			continue
		}
		for _, d := range p.Deps {
			if dep := strings.TrimPrefix(d, module); dep == "edge" || strings.HasPrefix(dep, "edge/") {
				t.Errorf("%s depends on %s; dynamic never imports the edge", name, dep)
			}
		}
	}
}
