package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// runCLI parses args with the whole publish CLI and runs the command with
// its output in a buffer.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var c cli
	p, err := kong.New(&c, kong.Name("publish"), kong.Exit(func(int) { t.Fatal("kong exited") }))
	if err != nil {
		t.Fatal(err)
	}
	k, err := p.Parse(args)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	switch cmd := k.Selected().Target.Addr().Interface().(type) {
	case *importCmd:
		cmd.out = &buf
	case *organizationsAddCmd:
		cmd.out = &buf
	case *licenseAddCmd:
		cmd.out = &buf
	case *removeCmd:
		cmd.out = &buf
	}
	k.BindTo(context.Background(), (*context.Context)(nil))
	err = k.Run()
	return buf.String(), err
}

// TestContentCommands adds an organization and a licence, imports a book
// strictly (a damaged one is refused: non-zero exit, the good one kept),
// checks without writing, and builds.
func TestContentCommands(t *testing.T) {
	content, src, store := t.TempDir(), t.TempDir(), t.TempDir()
	org := "4c0e2c1d-9f3a-4b6e-8d2c-1a2b3c4d5e6f"
	out, err := runCLI(t, "organizations", "add", "--content", content, "--id", org, "--name", "en=Sample Society", "--name", "es=Sociedad de Muestra", "--website", "https://sample.example.org")
	if err != nil || !strings.Contains(out, "organization "+org+" written") {
		t.Fatalf("organizations add: %v %q", err, out)
	}
	if _, err := runCLI(t, "licenses", "add", "--content", content, "--name", "Sample licence", "--organization", "ffffffff-9f3a-4b6e-8d2c-1a2b3c4d5e6f"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a licence of an unknown organization: %v", err)
	}
	out, err = runCLI(t, "licenses", "add", "--content", content, "--name", "Sample licence", "--organization", org, "--open")
	if err != nil || !strings.Contains(out, "licence 1 written") {
		t.Fatalf("license add: %v %q", err, out)
	}
	jud := "\\id JUD\n\\h Jude\n\\c 1\n\\p\n\\v 1 Jude, a servant.\n\\v 2 Mercy to you.\n"
	os.WriteFile(filepath.Join(src, "JUD.usfm"), []byte(jud), 0o644)
	imp := []string{"import", "--content", content, "--id", "5", "--language", "en", "--abbreviation", "S", "--title", "Sample", "--license", "1", "--organization", org, src}
	if out, err := runCLI(t, imp...); err != nil || !strings.Contains(out, "imported Bible 5: 1 books") {
		t.Fatalf("import: %v %q", err, out)
	}
	os.WriteFile(filepath.Join(src, "JUD.usfm"), []byte(strings.Replace(jud, `\v 2`, `\v two`, 1)), 0o644)
	out, err = runCLI(t, append([]string{"import", "--check"}, imp[1:]...)...)
	if err == nil || !strings.Contains(out, "refused: JUD") || !strings.Contains(out, "checked (nothing written)") {
		t.Errorf("import --check of a damaged book: %v %q", err, out)
	}
	out, err = runCLI(t, imp...)
	if err == nil || !strings.Contains(err.Error(), "1 books refused") || !strings.Contains(out, "refused: JUD") {
		t.Errorf("import of a damaged book: %v %q", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(content, "bibles", "5", "JUD.usfm")); string(b) != jud {
		t.Errorf("the good copy was not kept: %q", b)
	}
	if _, err := runCLI(t, "build", "--content", content, "--store", store); err != nil {
		t.Fatal(err)
	}
}

// TestImportVersificationFlag names a standard scheme, gives a .vrs file
// of the Bible's own, and refuses what is neither.
func TestImportVersificationFlag(t *testing.T) {
	content, src := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(src, "JUD.usfm"), []byte("\\id JUD\n\\c 1\n\\p\n\\v 1 Jude, a servant.\n"), 0o644)
	vrs := filepath.Join(t.TempDir(), "own.vrs")
	os.WriteFile(vrs, []byte("JUD 1:26\nJUD 1:26 = JUD 1:25\n"), 0o644)
	imp := func(v string) error {
		_, err := runCLI(t, "import", "--content", content, "--id", "5", "--language", "en", "--abbreviation", "S", "--title", "Sample", "--license", "1", "--versification", v, src)
		return err
	}
	bibleJSON := func() string {
		b, _ := os.ReadFile(filepath.Join(content, "bibles", "5", "bible.json"))
		return string(b)
	}
	for _, tc := range []struct{ flag, want string }{
		{"lxx", `"versification": "lxx"`},
		{vrs, `"versification": "custom"`},
	} {
		if err := imp(tc.flag); err != nil || !strings.Contains(bibleJSON(), tc.want) {
			t.Errorf("--versification %s: %v, bible.json %s", tc.flag, err, bibleJSON())
		}
	}
	if err := imp("kjv"); err == nil || !strings.Contains(err.Error(), "--versification kjv: neither one of org, eng, lxx, vul, rsc, rso nor a readable .vrs file") {
		t.Errorf("--versification kjv: %v", err)
	}
}
