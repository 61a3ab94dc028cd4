package publish

import (
	"path"
	"strings"
	"testing"
)

// TestCheckKey: the keys a store takes, and those it refuses (a key is a
// path under the store's objects/, so none may climb out of it).
func TestCheckKey(t *testing.T) {
	good := []string{
		"packs/ae88446f53c996f423e84689c7a1acc2d22b090d",
		"builds/6e66e9f8b988fbe4022e.json",
		"a", "A-Z_0.9", "x/.hidden", "x/a..b", "x/a.", strings.Repeat("k", 512),
	}
	bad := []string{
		"", "/packs/a", "packs/a/", "packs//a", ".", "..", "./a", "a/.", "a/..", "../a", "a/../b",
		"a b", "a\\b", "a\x00b", "ä", "a?b", "a%2fb", strings.Repeat("k", 513),
	}
	for _, k := range good {
		if err := CheckKey(k); err != nil {
			t.Errorf("CheckKey(%q) = %v", k, err)
		}
	}
	for _, k := range bad {
		if err := CheckKey(k); err == nil {
			t.Errorf("CheckKey(%q) took it", k)
		}
	}
}

// FuzzCheckKey: a key taken is clean, relative and within the store, so
// that joining it to the objects directory as it is (Dir.path) names the
// same file as cleaning the join would.
func FuzzCheckKey(f *testing.F) {
	for _, k := range []string{"packs/ab12", "a/../b", "a/./b", ".x/y", "a//b"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		if CheckKey(k) != nil {
			return
		}
		if path.Clean(k) != k || path.IsAbs(k) || k == ".." || strings.HasPrefix(k, "../") {
			t.Fatalf("CheckKey took %q (clean: %q)", k, path.Clean(k))
		}
	})
}
