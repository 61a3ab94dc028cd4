package main

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bibleplatform/platform/build/buildtest"
)

// TestLicenseText runs bin/publish licenses add with a licence text that
// is not licence HTML: it exits 1 naming each thing refused with its line,
// and the content directory is as it was, whether the licence is new or
// replaces one. A good text lands as licenses/<id>.html. A text edited by
// hand afterwards stops the build, which names the file.
func TestLicenseText(t *testing.T) {
	dir := teamContent(t)
	bad := "<h2>Terms</h2>\n<p>Agree <a href=\" javascript:alert(1)\">here</a>.</p>\n<iframe src=\"https://evil.example/\"></iframe>\n"
	os.WriteFile(filepath.Join(dir, "bad.html"), []byte(bad), 0o644)
	before := buildtest.Files(t, filepath.Join(dir, "content"))
	for _, id := range [][]string{{"--id", "1", "--replace"}, nil} {
		args := append([]string{"licenses", "add", "--content", "content", "--name", "Terms", "--organization", teamOrg, "--text", "bad.html"}, id...)
		out, code := run(t, dir, args...)
		// kong makes the file's path absolute.
		want := "publish: --text " + filepath.Join(dir, "bad.html") + `: licence "Terms": its text: not allowed in a licence's HTML: ` +
			`line 2 col 10: href of <a>: " javascript:alert(1)" has a space or control character at byte 0 (write a space as %20); ` +
			`line 3 col 1: the element <iframe> (a licence may use the elements a, b,`
		if code != 1 || !strings.HasPrefix(out, want) {
			t.Errorf("publish %s: exit %d\n%s\nwant exit 1 and\n%s", strings.Join(args, " "), code, out, want)
		}
	}
	if after := buildtest.Files(t, filepath.Join(dir, "content")); !maps.Equal(after, before) {
		t.Errorf("a refused licence changed the content directory:\n%v\nwas\n%v", after, before)
	}

	good := "\n<h2>Terms</h2>\n<p dir=\"ltr\">Read them at <a href=\"https://example.org/terms\" title=\"Terms\">example.org</a> or write to <a href=\"mailto:rights@example.org\">us</a>.</p>\n\n"
	os.WriteFile(filepath.Join(dir, "good.html"), []byte(good), 0o644)
	out := mustRun(t, dir, "licenses", "add", "--content", "content", "--name", "Terms", "--organization", teamOrg, "--text", "good.html")
	if !strings.Contains(out, "licence 2 written") {
		t.Errorf("licenses add: %s", out)
	}
	p := filepath.Join(dir, "content", "licenses", "2.html")
	if got, want := readString(t, p), strings.TrimRight(good, "\n")+"\n"; got != want {
		t.Errorf("licenses/2.html holds %q, want %q", got, want)
	}

	os.WriteFile(p, []byte("<p>Edited by hand.</p>\n<p><!-- <script>alert(1)</script> --></p>\n"), 0o644)
	out, code := run(t, dir, "build", "--content", "content", "--store", "store")
	if want := "publish: " + p + `: not allowed in a licence's HTML: line 2 col 4: the comment "<!-- <script>alert(1)</script> -->"`; code != 1 || !strings.HasPrefix(out, want) {
		t.Errorf("build: exit %d\n%s\nwant exit 1 and\n%s", code, out, want)
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
